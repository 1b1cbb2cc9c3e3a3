package io.partita.formats.onnx.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.formats.onnx.internal.proto.TensorProto;

/** Initializer sizes are computed with overflow checks, and checked against the stored values, before allocating. */
class TensorValuesTest {
    private static TensorProto proto(int type, long[] dims, float[] floats, long[] int32) {
        return new TensorProto("W", type, dims, null, floats, int32, new long[0], new long[0], new long[0], 0, false);
    }

    private static OnnxImportException refused(TensorProto t) {
        return assertThrows(OnnxImportException.class, () -> TensorValues.toTensor(t, "m.onnx", "initializer 'W'"));
    }

    private static void assertMessage(Throwable e, String... parts) {
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "expected '" + p + "' in: " + e.getMessage());
        }
    }

    @Test
    void sixHundredMillionFloatsWithoutDataAreRefusedBeforeAllocating() {
        OnnxImportException e = refused(proto(OnnxTypes.FLOAT, new long[] {600_000_000L}, new float[0], new long[0]));
        assertMessage(e, "initializer 'W'", "[600000000]", "600000000 elements", "2400000000 bytes");
    }

    @Test
    void missingValuesAreReportedWithTheCountBeforeAllocating() {
        OnnxImportException e = refused(proto(OnnxTypes.INT8, new long[] {20_000, 30_000}, new float[0], new long[0]));
        assertMessage(e, "initializer 'W'", "[20000,30000]", "600000000 elements but 0 values in int32_data");
    }

    @Test
    void elementCountsThatOverflowAreRefused() {
        OnnxImportException e = refused(proto(OnnxTypes.FLOAT, new long[] {1L << 62, 4}, new float[0], new long[0]));
        assertMessage(e, "initializer 'W'", "[4611686018427387904,4]", "more than 2^63-1 elements");
        e = refused(proto(OnnxTypes.FLOAT, new long[] {2, -3}, new float[0], new long[0]));
        assertMessage(e, "initializer 'W'", "dim 1 is -3");
    }

    @Test
    void valuesThatFitStillDecode() {
        OnnxTensor t = TensorValues.toTensor(proto(OnnxTypes.FLOAT, new long[] {2, 2}, new float[] {1, 2, 3, 4},
                new long[0]), "m.onnx", "initializer 'W'");
        assertArrayEquals(new long[] {2, 2}, t.dims());
    }
}
