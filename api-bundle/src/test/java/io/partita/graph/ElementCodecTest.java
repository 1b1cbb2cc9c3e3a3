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
}
