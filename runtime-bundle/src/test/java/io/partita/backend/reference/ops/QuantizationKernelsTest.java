package io.partita.backend.reference.ops;

import static io.partita.backend.reference.ops.DataMovementKernelsTest.f32;
import static io.partita.backend.reference.ops.DataMovementKernelsTest.out;
import static io.partita.backend.reference.ops.DataMovementKernelsTest.t;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.testing.OpRunner;

/** Reference (de)quantization on hand-computed values. */
class QuantizationKernelsTest {

    static double[] run(Op op, double[]... inputs) {
        return OpRunner.run(op, inputs).get(0);
    }

    // ---------------------------------------------------------------- Quantize

    @Test
    void quantizePerTensorToU8RoundsHalfToEvenAndSaturates() {
        Op op = Op.builder(0, OpKind.Quantize).input(f32(0, 8)).output(out(1, DataType.U8))
                .attr("scales", new float[] {0.5f}).attr("zps", new long[] {10}).build();
        // x / 0.5 + 10 = 10, 12.4, 4, 210, 10.5, 11.5, 410, -10
        double[] x = {0, 1.2, -3, 100, 0.25, 0.75, 200, -10};
        assertArrayEquals(new double[] {10, 12, 4, 210, 10, 12, 255, 0}, run(op, x));
    }

    @Test
    void quantizeWithoutZpsUsesZero() {
        Op op = Op.builder(0, OpKind.Quantize).input(f32(0, 3)).output(out(1, DataType.S8))
                .attr("scales", new float[] {0.25f}).build();
        assertArrayEquals(new double[] {-6, 2, 127}, run(op, new double[] {-1.5, 0.625, 100}));
    }

    @Test
    void quantizePerChannelToS8() {
        // axis 0 of [2, 3]: row 0 scale 1 zp 0, row 1 scale 0.25 zp -2.
        Op op = Op.builder(0, OpKind.Quantize).input(f32(0, 2, 3)).output(out(1, DataType.S8))
                .attr("qtype", "per_channel").attr("axis", 0L).attr("scales", new float[] {1, 0.25f})
                .attr("zps", new long[] {0, -2}).build();
        // row 0: 1.5 -> 2 (even), -200 -> -128, 2.5 -> 2 (even); row 1: 2 - 2, 4 - 2, -160 - 2 -> -128
        assertArrayEquals(new double[] {2, -128, 2, 0, 2, -128}, run(op, new double[] {1.5, -200, 2.5, 0.5, 1, -40}));
    }

    @Test
    void quantizePerChannelAlongTheLastAxis() {
        Op op = Op.builder(0, OpKind.Quantize).input(f32(0, 2, 2)).output(out(1, DataType.U8))
                .attr("qtype", "per_channel").attr("axis", -1L).attr("scales", new float[] {2, 0.5f})
                .attr("zps", new long[] {100, 1}).build();
        assertArrayEquals(new double[] {101, 5, 99, 1}, run(op, new double[] {2, 2, -2, 0}));
    }

    @Test
    void quantizeToF8RoundsToTheNearestF8() {
        Op op = Op.builder(0, OpKind.Quantize).input(f32(0, 4)).output(out(1, DataType.F8_E4M3))
                .attr("scales", new float[] {2}).build();
        // x / 2 = 1.5, -3.5, 4.75 (tie between 4.5 and 5 -> 5, even mantissa), 1000 -> saturates to 448
        assertArrayEquals(new double[] {1.5, -3.5, 5, 448}, run(op, new double[] {3, -7, 9.5, 2000}));
    }

    // ---------------------------------------------------------------- Dequantize

    @Test
    void dequantizePerTensorU8() {
        Op op = Op.builder(0, OpKind.Dequantize).input(t(0, DataType.U8, 3)).output(out(1, DataType.F32))
                .attr("scales", new float[] {0.5f}).attr("zps", new long[] {128}).build();
        assertArrayEquals(new double[] {-64, 0, 63.5}, run(op, new double[] {0, 128, 255}));
    }

    @Test
    void dequantizePerChannelS8() {
        Op op = Op.builder(0, OpKind.Dequantize).input(t(0, DataType.S8, 2, 2)).output(out(1, DataType.F32))
                .attr("qtype", "per_channel").attr("axis", 1L).attr("scales", new float[] {2, 0.5f})
                .attr("zps", new long[] {1, -1}).build();
        assertArrayEquals(new double[] {4, 2, -4, 3}, run(op, new double[] {3, 3, -1, 5}));
    }

    @Test
    void dequantizeF8WithoutZps() {
        Op op = Op.builder(0, OpKind.Dequantize).input(t(0, DataType.F8_E5M2, 3)).output(out(1, DataType.F32))
                .attr("scales", new float[] {0.25f}).build();
        assertArrayEquals(new double[] {0.375, -16, 0}, run(op, new double[] {1.5, -64, 0}));
    }

    // ---------------------------------------------------------------- DynamicQuantize

    @Test
    void dynamicQuantizePerChannelWithZeroPoints() {
        // axis 1 of [2, 2, 1]: channel 0 scale 0.5 zp 3, channel 1 scale 4 zp -3.
        Op op = Op.builder(0, OpKind.DynamicQuantize).inputs(f32(0, 2, 2, 1), f32(1, 2), t(2, DataType.S32, 2))
                .output(out(3, DataType.S8)).attr("qtype", "per_channel").attr("axis", 1L).build();
        // -18 / 4 + (-3) = -7.5 -> -8: the zero point is added before rounding, round(x / s + zp).
        assertArrayEquals(new double[] {5, -1, 1, -8},
                run(op, new double[] {1, 8, -1, -18}, new double[] {0.5, 4}, new double[] {3, -3}));
    }

    @Test
    void dynamicQuantizePerTensorWithoutZeroPoints() {
        Op op = Op.builder(0, OpKind.DynamicQuantize).inputs(f32(0, 3), f32(1, 1)).output(out(2, DataType.U8))
                .build();
        assertArrayEquals(new double[] {0, 4, 3}, run(op, new double[] {-1, 1, 0.75}, new double[] {0.25}));
    }

    // ---------------------------------------------------------------- DynamicDequantize

    static Op dynDeq(LogicalTensor src, LogicalTensor scales, LogicalTensor zps, DataType dst, long[] group) {
        Op.Builder b = Op.builder(0, OpKind.DynamicDequantize).inputs(src, scales).output(out(9, dst));
        if (zps != null) {
            b.input(zps);
        }
        if (group != null) {
            b.attr("qtype", "per_group").attr("group_shape", group);
        }
        return b.build();
    }

    @Test
    void perGroupAlongTheLastAxisU4WithU8Zps() {
        // [2, 4] in groups of [1, 2]: scales/zps [2, 2].
        Op op = dynDeq(t(0, DataType.U4, 2, 4), f32(1, 2, 2), t(2, DataType.U8, 2, 2), DataType.F32,
                new long[] {1, 2});
        double[] y = run(op, new double[] {0, 1, 2, 3, 4, 5, 6, 15}, new double[] {1, 2, 0.5, 0.25},
                new double[] {1, 0, 4, 8});
        // row 0: (0-1)*1, (1-1)*1, (2-0)*2, (3-0)*2; row 1: (4-4)*.5, (5-4)*.5, (6-8)*.25, (15-8)*.25
        assertArrayEquals(new double[] {-1, 0, 4, 6, 0, 0.5, -0.5, 1.75}, y);
    }

    @Test
    void perGroupAlongTheFirstAxisS4() {
        // [4, 2] in groups of [2, 1]: scales [2, 2]; s4 values are -8..7.
        Op op = dynDeq(t(0, DataType.S4, 4, 2), f32(1, 2, 2), t(2, DataType.S4, 2, 2), DataType.F32,
                new long[] {2, 1});
        double[] y = run(op, new double[] {-8, 7, 1, -1, 2, 3, 0, -4}, new double[] {1, 2, 3, 4},
                new double[] {-1, 1, 2, -2});
        // rows 0-1 use scales [1, 2] zps [-1, 1]; rows 2-3 use scales [3, 4] zps [2, -2]
        assertArrayEquals(new double[] {-7, 12, 2, -4, 0, 20, -6, -8}, y);
    }

    @Test
    void packedScalesAndASingleZeroPoint() {
        // [1, 1, 4] in groups of [1, 1, 2]: scales [1, 1, 2] given packed as [2]; one zp for all.
        Op op = dynDeq(t(0, DataType.S8, 1, 1, 4), f32(1, 2), t(2, DataType.S8, 1), DataType.F32,
                new long[] {1, 1, 2});
        assertArrayEquals(new double[] {1, 2, 6, 9},
                run(op, new double[] {2, 3, 3, 4}, new double[] {1, 3}, new double[] {1}));
    }

    @Test
    void dstInF16AndBf16IsRounded() {
        Op f16 = dynDeq(t(0, DataType.U8, 2), t(1, DataType.F16, 1), null, DataType.F16, null);
        // 255 * 0.0999755859375 (0.1 in f16) = 25.4937744140625 -> f16 step 2^-6 near 25: 25.5
        assertArrayEquals(new double[] {25.5, 0.0999755859375}, run(f16, new double[] {255, 1}, new double[] {0.1}));
        Op bf16 = dynDeq(t(0, DataType.S8, 1), t(1, DataType.BF16, 1), null, DataType.BF16, null);
        // 3 * 1.0078125 = 3.0234375 -> bf16 step 2^-6 near 3: tie between 3.015625 and 3.03125 -> 3.03125 (even)
        assertArrayEquals(new double[] {3.03125}, run(bf16, new double[] {3}, new double[] {1.0078125}));
    }

    @Test
    void perChannelAndMaskScales() {
        Op perChannel = Op.builder(0, OpKind.DynamicDequantize).inputs(t(0, DataType.S8, 2, 3), f32(1, 3))
                .output(out(9, DataType.F32)).attr("qtype", "per_channel").attr("axis", 1L).build();
        assertArrayEquals(new double[] {1, 4, 9, -1, -2, -3}, run(perChannel, new double[] {1, 2, 3, -1, -1, -1},
                new double[] {1, 2, 3}));
        // mask 0b101 on [2, 2, 2]: scales over dims 0 and 2, packed [2, 2].
        Op mask = Op.builder(0, OpKind.DynamicDequantize).inputs(t(0, DataType.S8, 2, 2, 2), f32(1, 2, 2))
                .output(out(9, DataType.F32)).attr("mask", 5L).build();
        assertArrayEquals(new double[] {1, 2, 1, 2, 3, 4, 3, 4}, run(mask, new double[] {1, 1, 1, 1, 1, 1, 1, 1},
                new double[] {1, 2, 3, 4}));
    }

    @Test
    void aGroupShapeIsIgnoredUnlessPerGroup() {
        // qtype per_channel along axis 1 with a leftover group_shape: one scale per column.
        Op op = Op.builder(0, OpKind.DynamicDequantize).inputs(t(0, DataType.S8, 2, 2), f32(1, 2), t(2, DataType.S8, 1))
                .output(out(9, DataType.F32)).attr("qtype", "per_channel").attr("axis", 1L)
                .attr("group_shape", new long[] {1, 2}).build();
        assertArrayEquals(new double[] {2, 30, 4, 50}, run(op, new double[] {2, 4, 3, 6}, new double[] {2, 10},
                new double[] {1}));
    }

    @Test
    void perTensorWithAScalarScalesTensor() {
        Op op = Op.builder(0, OpKind.DynamicDequantize).inputs(t(0, DataType.U8, 3), t(1, DataType.F32),
                t(2, DataType.U8)).output(out(9, DataType.F32)).build();
        assertArrayEquals(new double[] {-1, 0, 1}, run(op, new double[] {1, 3, 5}, new double[] {0.5},
                new double[] {3}));
    }
}
