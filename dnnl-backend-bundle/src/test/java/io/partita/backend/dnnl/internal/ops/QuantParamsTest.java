package io.partita.backend.dnnl.internal.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;

/** The int8 conversions of the dnnl backend: per channel, half to even, saturating, through strides. */
class QuantParamsTest {
    private static MemorySegment floats(float... v) {
        return MemorySegment.ofArray(v.clone());
    }

    @Test
    void quantizeRoundsHalfToEvenAndSaturates() {
        QuantParams p = new QuantParams(DataType.U8, new float[] {0.5f}, new long[] {10}, -1);
        byte[] out = new byte[6];
        // x / 0.5 + 10: 10.5 -> 10, 11.5 -> 12, 410 -> 255, -20 -> 0, NaN -> 0
        p.quantize(floats(0.25f, 0.75f, 200, -15, Float.NaN, 1), MemorySegment.ofArray(out),
                LogicalTensor.of(0, DataType.U8, 6).withStrides(new long[] {1}), null);
        assertArrayEquals(new byte[] {10, 12, (byte) 255, 0, 0, 12}, out);
    }

    @Test
    void dequantizePerChannelThroughStrides() {
        // s8 [2, 3] stored column-major; channels along axis 1 with scales 1, 2, 4 and zero points 0, 1, -1
        QuantParams p = new QuantParams(DataType.S8, new float[] {1, 2, 4}, new long[] {0, 1, -1}, 1);
        byte[] colMajor = {1, -4, 2, -5, 3, -6};
        float[] out = new float[6];
        p.dequantize(MemorySegment.ofArray(colMajor), LogicalTensor.of(0, DataType.S8, 2, 3)
                .withStrides(new long[] {1, 2}), MemorySegment.ofArray(out), null);
        assertArrayEquals(new float[] {1, 2, 16, -4, -12, -20}, out);
    }

    @Test
    void parametersOfAStaticOpCompareByValue() {
        Op op = Op.builder(0, OpKind.Dequantize).input(LogicalTensor.of(0, DataType.S8, 4, 3))
                .output(LogicalTensor.of(1, DataType.F32, 4, 3)).attr("qtype", "per_channel").attr("axis", -1L)
                .attr("scales", new float[] {1, 2, 3}).build();
        QuantParams a = QuantParams.of(op, DataType.S8, 2);
        assertEquals(new QuantParams(DataType.S8, new float[] {1, 2, 3}, new long[3], 1), a);
        assertNotEquals(new QuantParams(DataType.S8, new float[] {1, 2, 4}, new long[3], 1), a);
    }
}
