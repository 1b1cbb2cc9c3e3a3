package io.partita.formats.onnx.internal.proto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.partita.formats.onnx.OnnxBytes;

class TensorDecoderTest {

    @Test
    void packedAndUnpackedRepeatedFieldsDecodeAlike() {
        byte[] unpacked = OnnxBytes.message().int64(1, 2).int64(1, 3).int64(2, 7).int64(7, 5).int64(7, -6)
                .toByteArray();
        byte[] packed = OnnxBytes.message().packedVarints(1, 2, 3).int64(2, 7).packedVarints(7, 5, -6).toByteArray();
        for (byte[] b : new byte[][] {unpacked, packed}) {
            TensorProto t = TensorDecoder.decode(b, "t.pb");
            assertArrayEquals(new long[] {2, 3}, t.dims());
            assertEquals(7, t.dataType());
            assertArrayEquals(new long[] {5, -6}, t.int64Data());
        }
    }

    @Test
    void wrongWireTypeNamesTheField() {
        // data_type (field 2) as a string instead of a varint
        byte[] b = OnnxBytes.message().string(2, "FLOAT").toByteArray();
        OnnxFormatException e = assertThrows(OnnxFormatException.class, () -> TensorDecoder.decode(b, "t.pb"));
        assertTrue(e.getMessage().contains("t.pb") && e.getMessage().contains("data_type")
                && e.getMessage().contains("wire type 2, expected 0"), e.getMessage());
    }

    @Test
    void negativeDimIsRefused() {
        byte[] b = OnnxBytes.message().int64(1, -1).int64(2, 1).string(8, "x").toByteArray();
        OnnxFormatException e = assertThrows(OnnxFormatException.class, () -> TensorDecoder.decode(b, "t.pb"));
        assertTrue(e.getMessage().contains("dims[0] = -1 of tensor 'x' is negative"), e.getMessage());
    }

    @Test
    void attributeWithoutTypeIsInferredFromItsField() {
        // IR version 1 files have no AttributeProto.type
        byte[] b = OnnxBytes.message().string(1, "perm").packedVarints(8, 1, 0).toByteArray();
        AttributeProto a = NodeDecoder.attribute(Wire.of(b, "m.onnx", "AttributeProto"));
        assertEquals(AttributeProto.INTS, a.type());
        assertArrayEquals(new long[] {1, 0}, a.ints());
    }

    @Test
    void modelWithoutGraphIsNotAModel() {
        byte[] b = OnnxBytes.message().int64(1, 8).toByteArray();
        OnnxFormatException e = assertThrows(OnnxFormatException.class, () -> ModelDecoder.decode(b, "m.onnx"));
        assertTrue(e.getMessage().contains("no graph"), e.getMessage());
    }
}
