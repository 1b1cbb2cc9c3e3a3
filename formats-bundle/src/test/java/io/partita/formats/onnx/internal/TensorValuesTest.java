package io.partita.formats.onnx.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.formats.onnx.internal.proto.TensorProto;
import io.partita.graph.DataType;

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

    private static OnnxTensor decode(TensorProto t) {
        return TensorValues.toTensor(t, "m.onnx", "initializer 'W'");
    }

    @Test
    void doublesDecodeFromDoubleDataBitsAndRawData() {
        long[] bits = {Double.doubleToRawLongBits(0.1), Double.doubleToRawLongBits(-2.5e300)};
        OnnxTensor t = decode(new TensorProto("W", OnnxTypes.DOUBLE, new long[] {2}, null, new float[0], new long[0],
                new long[0], bits, new long[0], 0, false));
        assertEquals(DataType.F64, t.dataType());
        assertArrayEquals(new double[] {0.1, -2.5e300}, t.toDoubleArray());
        java.nio.ByteBuffer raw = java.nio.ByteBuffer.allocate(16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        raw.putDouble(Math.PI).putDouble(Double.NEGATIVE_INFINITY);
        OnnxTensor r = decode(new TensorProto("W", OnnxTypes.DOUBLE, new long[] {2}, raw.array(), new float[0],
                new long[0], new long[0], new long[0], new long[0], 0, false));
        assertArrayEquals(new double[] {Math.PI, Double.NEGATIVE_INFINITY}, r.toDoubleArray());
    }

    @Test
    void uint64DecodesFromUint64DataAsUnsigned() {
        OnnxTensor t = decode(new TensorProto("W", OnnxTypes.UINT64, new long[] {3}, null, new float[0], new long[0],
                new long[0], new long[0], new long[] {7, Long.MIN_VALUE, -1L}, 0, false));
        assertEquals(DataType.U64, t.dataType());
        assertArrayEquals(new double[] {7, 0x1p63, 0x1p64}, t.toDoubleArray());
    }

    @Test
    void sixteenBitIntegersDecodeFromInt32Data() {
        OnnxTensor s = decode(proto(OnnxTypes.INT16, new long[] {3}, new float[0], new long[] {-32768, -1, 32767}));
        assertEquals(DataType.S16, s.dataType());
        assertArrayEquals(new double[] {-32768, -1, 32767}, s.toDoubleArray());
        OnnxTensor u = decode(proto(OnnxTypes.UINT16, new long[] {2}, new float[0], new long[] {65535, 1}));
        assertEquals(DataType.U16, u.dataType());
        assertArrayEquals(new double[] {65535, 1}, u.toDoubleArray());
    }

    @Test
    void missingDoublesAreNamedByTheirFieldAndUint32StaysUnsupported() {
        OnnxImportException e = refused(new TensorProto("W", OnnxTypes.DOUBLE, new long[] {3}, null, new float[0],
                new long[0], new long[0], new long[] {1}, new long[0], 0, false));
        assertMessage(e, "initializer 'W'", "3 elements but 1 values in double_data");
        e = refused(new TensorProto("W", OnnxTypes.UINT64, new long[] {2}, null, new float[0], new long[0],
                new long[0], new long[0], new long[0], 0, false));
        assertMessage(e, "2 elements but 0 values in uint64_data");
        e = refused(proto(OnnxTypes.UINT32, new long[] {1}, new float[0], new long[0]));
        assertTrue(e instanceof io.partita.formats.onnx.UnsupportedOnnxException, e.toString());
        assertMessage(e, "initializer 'W'", "data type UINT32 has no Partita data type");
    }
}
