package io.partita.graph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;

/** Conversions to and from every data type round the way oneDNN does. */
class ElementCodecTest {

    @Test
    void bf16RoundsToNearestEven() {
        // 1 + 2^-8 is exactly half way between bf16 neighbours 1 and 1 + 2^-7: ties to even (1).
        assertEquals(1.0, ElementCodec.round(DataType.BF16, 1 + Math.scalb(1.0, -8)));
        // 1 + 3 * 2^-8 is half way between 1 + 2^-7 and 1 + 2^-6: ties to even (1 + 2^-6).
        assertEquals(1 + Math.scalb(1.0, -6), ElementCodec.round(DataType.BF16, 1 + 3 * Math.scalb(1.0, -8)));
        assertTrue(Double.isNaN(ElementCodec.round(DataType.BF16, Double.NaN)));
        assertEquals(Double.POSITIVE_INFINITY, ElementCodec.round(DataType.BF16, Double.POSITIVE_INFINITY));
    }

    @Test
    void f16RoundsAndOverflowsToInfinity() {
        assertEquals(65504.0, ElementCodec.round(DataType.F16, 65504.0));
        assertEquals(Double.POSITIVE_INFINITY, ElementCodec.round(DataType.F16, 70000.0));
        assertEquals(1.0, ElementCodec.round(DataType.F16, 1 + Math.scalb(1.0, -11)));
    }

    @Test
    void integersRoundHalfToEvenSaturateAndMapNanToZero() {
        assertEquals(2.0, ElementCodec.round(DataType.S8, 2.5));
        assertEquals(-2.0, ElementCodec.round(DataType.S8, -2.5));
        assertEquals(127.0, ElementCodec.round(DataType.S8, 1000));
        assertEquals(-128.0, ElementCodec.round(DataType.S8, -1000));
        assertEquals(0.0, ElementCodec.round(DataType.U8, -3));
        assertEquals(255.0, ElementCodec.round(DataType.U8, 300));
        assertEquals(0.0, ElementCodec.round(DataType.S32, Double.NaN));
        assertEquals(7.0, ElementCodec.round(DataType.S4, 9));
        assertEquals(-8.0, ElementCodec.round(DataType.S4, -9));
        assertEquals(15.0, ElementCodec.round(DataType.U4, 99));
        assertEquals(1.0, ElementCodec.round(DataType.BOOLEAN, -0.5));
    }

    @Test
    void fp8EncodingRoundTripsEveryCode() {
        for (MiniFloat f : MiniFloat.values()) {
            for (int b = 0; b < 256; b++) {
                double v = f.decode(b);
                if (Double.isNaN(v)) {
                    assertTrue(Double.isNaN(f.decode(f.encode(v))));
                } else {
                    assertEquals(v, f.decode(f.encode(v)), f + " code " + b);
                }
            }
        }
        assertEquals(448.0, MiniFloat.E4M3.maxFinite());
        assertEquals(57344.0, MiniFloat.E5M2.maxFinite());
        assertEquals(448.0, ElementCodec.round(DataType.F8_E4M3, 1e6)); // saturates
        assertEquals(Double.POSITIVE_INFINITY, ElementCodec.round(DataType.F8_E5M2, 1e6));
        assertEquals(Math.scalb(1.0, -9), MiniFloat.E4M3.decode(1)); // smallest subnormal
    }

    @Test
    void fourBitTypesPackTwoPerByteLowNibbleFirst() {
        try (Arena arena = Arena.ofConfined()) {
            LogicalTensor lt = LogicalTensor.of(0, DataType.S4, 3);
            MemorySegment seg = arena.allocate(2);
            ElementCodec.write(lt, seg, new double[] {-1, 3, -8});
            assertEquals((byte) 0x3F, seg.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals((byte) 0x08, seg.get(ValueLayout.JAVA_BYTE, 1));
            assertArrayEquals(new double[] {-1, 3, -8}, ElementCodec.read(lt, seg));
        }
    }

    @Test
    void stridedTensorsAreReadInLogicalOrder() {
        try (Arena arena = Arena.ofConfined()) {
            // dims [2, 3] stored column-major (strides [1, 2])
            LogicalTensor lt = LogicalTensor.of(0, DataType.F32, 2, 3).withStrides(1, 2);
            MemorySegment seg = arena.allocate(24);
            for (int i = 0; i < 6; i++) {
                seg.setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
            }
            assertArrayEquals(new double[] {0, 2, 4, 1, 3, 5}, ElementCodec.read(lt, seg));
            ElementCodec.write(lt, seg, new double[] {10, 11, 12, 13, 14, 15});
            assertEquals(13f, seg.getAtIndex(ValueLayout.JAVA_FLOAT, 1));
        }
    }

    // ---------------------------------------------------------------- Partita's extension types

    /** Writes the values to a dense tensor of the type and returns the stored 64-bit words. */
    private static long[] words(DataType dt, double... values) {
        try (Arena arena = Arena.ofConfined()) {
            LogicalTensor lt = LogicalTensor.of(0, dt, values.length);
            MemorySegment seg = arena.allocate(8L * values.length);
            ElementCodec.write(lt, seg, values);
            long[] out = new long[values.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = seg.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
            }
            return out;
        }
    }

    private static double readWord(DataType dt, long bits) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(8);
            seg.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, bits);
            return ElementCodec.read(LogicalTensor.of(0, dt, 1), seg)[0];
        }
    }

    @Test
    void f64KeepsEveryDoubleExactly() {
        double[] v = {0.1, -0.0, Double.MIN_VALUE, Double.MAX_VALUE, Double.NEGATIVE_INFINITY, 1 + Math.ulp(1.0)};
        long[] w = words(DataType.F64, v);
        for (int i = 0; i < v.length; i++) {
            assertEquals(Double.doubleToRawLongBits(v[i]), w[i], "element " + i);
            assertEquals(v[i], readWord(DataType.F64, w[i]));
            assertEquals(v[i], ElementCodec.round(DataType.F64, v[i]));
        }
        assertTrue(Double.isNaN(readWord(DataType.F64, words(DataType.F64, Double.NaN)[0])));
        assertTrue(Double.isNaN(ElementCodec.round(DataType.F64, Double.NaN)));
    }

    @Test
    void sixteenBitIntegersRoundSaturateAndStoreTwoBytes() {
        assertEquals(32767.0, ElementCodec.round(DataType.S16, 1e9));
        assertEquals(-32768.0, ElementCodec.round(DataType.S16, -40000));
        assertEquals(-2.0, ElementCodec.round(DataType.S16, -2.5));
        assertEquals(65535.0, ElementCodec.round(DataType.U16, 70000));
        assertEquals(0.0, ElementCodec.round(DataType.U16, -1));
        assertEquals(0.0, ElementCodec.round(DataType.U16, Double.NaN));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(4);
            ElementCodec.write(LogicalTensor.of(0, DataType.S16, 2), seg, new double[] {-2, 1e9});
            assertEquals((short) -2, seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0));
            assertEquals(Short.MAX_VALUE, seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, 2));
            ElementCodec.write(LogicalTensor.of(0, DataType.U16, 2), seg, new double[] {65535, 40000});
            // The high bit set reads back unsigned, not as a negative short.
            assertArrayEquals(new double[] {65535, 40000}, ElementCodec.read(LogicalTensor.of(0, DataType.U16, 2), seg));
        }
    }

    @Test
    void u64SaturatesAtItsTrueBoundsAndReadsUnsigned() {
        double two63 = 0x1p63;
        double two64 = 0x1p64;
        // At or above 2^64 (infinity included): all ones; below 0 and NaN: 0.
        assertArrayEquals(new long[] {-1L, -1L, 0, 0, 0},
                words(DataType.U64, two64, Double.POSITIVE_INFINITY, -5, Double.NaN, Double.NEGATIVE_INFINITY));
        // [2^63, 2^64): the high bit, not a saturated signed value; 2.5 ties to even.
        assertArrayEquals(new long[] {Long.MIN_VALUE, Long.MIN_VALUE | 2048, 2},
                words(DataType.U64, two63, two63 + 2048, 2.5));
        assertEquals(two64, readWord(DataType.U64, -1L), "2^64 - 1 reads as the nearest double, 2^64");
        assertEquals(two63, readWord(DataType.U64, Long.MIN_VALUE));
        assertEquals(two63 + 4096, readWord(DataType.U64, Long.MIN_VALUE | 4096));
        // Beyond 2^53 a double keeps 53 bits: 2^63 + 1 rounds to 2^63, 2^63 + 1025 rounds up.
        assertEquals(two63, readWord(DataType.U64, Long.MIN_VALUE | 1));
        assertEquals(two63 + 2048, readWord(DataType.U64, Long.MIN_VALUE | 1025));
        assertEquals(two64, ElementCodec.round(DataType.U64, 1e30));
        assertEquals(0.0, ElementCodec.round(DataType.U64, -1e30));
        assertEquals(12345.0, readWord(DataType.U64, words(DataType.U64, 12345)[0]));
    }

    @Test
    void unsignedConversionRoundsToNearestLikeBigDecimal() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            long bits = r.nextLong();
            double expected = new java.math.BigDecimal(Long.toUnsignedString(bits)).doubleValue();
            assertEquals(expected, ElementCodec.unsignedToDouble(bits), Long.toUnsignedString(bits));
            assertEquals(Long.toUnsignedString(ElementCodec.toUnsignedLong(expected)),
                    new java.math.BigDecimal(expected).toBigInteger().min(java.math.BigInteger.TWO.pow(64)
                            .subtract(java.math.BigInteger.ONE)).toString());
        }
    }

    @Test
    void extensionTypesAreNamedAndSized() {
        assertEquals(DataType.F64, DataType.fromSpelling("f64"));
        assertEquals(DataType.U64, DataType.fromSpelling("u64"));
        assertEquals(16, DataType.S16.bits());
        assertEquals(16L, DataType.U16.byteSize(8));
        assertTrue(DataType.F64.isFloatingPoint() && !DataType.F64.isInteger());
        assertTrue(DataType.U64.isInteger() && DataType.S16.isInteger() && DataType.U16.isInteger());
    }
}
