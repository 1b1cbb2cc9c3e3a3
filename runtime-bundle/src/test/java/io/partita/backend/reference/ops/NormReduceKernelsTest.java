package io.partita.backend.reference.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import io.partita.backend.reference.RefOps;
import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.testing.OpRunner;

/**
 * Reference kernels of normalizations, softmax variants and reductions: hand-computed values
 * through the whole public path (f32 tensors), and the backward ops against central finite
 * differences of the forward kernels (called directly, in double precision).
 */
class NormReduceKernelsTest {
    private static final double F32_TOL = 2e-6;
    private static final double LN2 = Math.log(2);
    private static final double LN3 = Math.log(3);

    private static LogicalTensor t(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    private static void near(double[] expected, double[] actual) {
        near(expected, actual, F32_TOL);
    }

    private static void near(double[] expected, double[] actual, double tol) {
        assertEquals(expected.length, actual.length, "element count");
        for (int i = 0; i < expected.length; i++) {
            double e = expected[i];
            double a = actual[i];
            if (Double.isNaN(e) || Double.isInfinite(e)) {
                assertEquals(e, a, "element " + i);
            } else {
                assertEquals(e, a, tol * Math.max(1, Math.abs(e)), "element " + i);
            }
        }
    }

    // ---------------------------------------------------------------- SoftMax family

    @Test
    void softmaxOverDefaultAxisOne() {
        Op op = Op.builder(0, OpKind.SoftMax).input(t(0, 2, 3)).output(t(1, 2, 3)).build();
        double[] y = OpRunner.run(op, new double[] {0, LN2, LN3, LN3, LN2, 0}).get(0);
        near(new double[] {1 / 6.0, 2 / 6.0, 3 / 6.0, 3 / 6.0, 2 / 6.0, 1 / 6.0}, y);
    }

    @Test
    void softmaxOverAxisZeroAndMiddleAxis() {
        Op op0 = Op.builder(0, OpKind.SoftMax).input(t(0, 3, 2)).output(t(1, 3, 2)).attr("axis", 0L).build();
        double[] y0 = OpRunner.run(op0, new double[] {0, LN3, LN2, LN2, LN3, 0}).get(0);
        near(new double[] {1 / 6.0, 3 / 6.0, 2 / 6.0, 2 / 6.0, 3 / 6.0, 1 / 6.0}, y0);
        // [1, 3, 2] along axis 1: two interleaved lines of length 3
        Op op1 = Op.builder(0, OpKind.SoftMax).input(t(0, 1, 3, 2)).output(t(1, 1, 3, 2)).attr("axis", 1L).build();
        double[] y1 = OpRunner.run(op1, new double[] {0, LN3, LN2, LN2, LN3, 0}).get(0);
        near(new double[] {1 / 6.0, 3 / 6.0, 2 / 6.0, 2 / 6.0, 3 / 6.0, 1 / 6.0}, y1);
    }

    @Test
    void softmaxNegativeAxisWithStats() {
        Op op = Op.builder(0, OpKind.SoftMax).input(t(0, 1, 2, 2)).outputs(t(1, 1, 2, 2), t(2, 1, 2, 1))
                .attr("axis", -1L).build();
        List<double[]> out = OpRunner.run(op, new double[] {0, LN3, 5, 5});
        near(new double[] {0.25, 0.75, 0.5, 0.5}, out.get(0));
        near(new double[] {Math.log(4), 5 + LN2}, out.get(1));
    }

    @Test
    void softmaxInfAsZeroGivesZerosForAllMinusInfinityLinesAndNoneGivesNaN() {
        double inf = Double.NEGATIVE_INFINITY;
        Op zero = Op.builder(0, OpKind.SoftMax).input(t(0, 2, 2)).outputs(t(1, 2, 2), t(2, 2, 1))
                .attr("mode", "inf_as_zero").build();
        List<double[]> out = OpRunner.run(zero, new double[] {inf, inf, 0, 0});
        near(new double[] {0, 0, 0.5, 0.5}, out.get(0));
        near(new double[] {inf, LN2}, out.get(1));
        Op none = Op.builder(0, OpKind.SoftMax).input(t(0, 2, 2)).output(t(1, 2, 2)).attr("mode", "none").build();
        double[] y = OpRunner.run(none, new double[] {inf, inf, 0, 0}).get(0);
        assertTrue(Double.isNaN(y[0]) && Double.isNaN(y[1]), "mode none: a line of -inf gives NaN");
        near(new double[] {0.5, 0.5}, new double[] {y[2], y[3]});
        // a single -inf in a line is an ordinary zero probability in both modes
        double[] y2 = OpRunner.run(none, new double[] {inf, 0, 0, 0}).get(0);
        near(new double[] {0, 1, 0.5, 0.5}, y2);
    }

    @Test
    void softmaxF32ToBf16RoundsTheOutput() {
        Op op = Op.builder(0, OpKind.SoftMax).input(t(0, 1, 3))
                .output(LogicalTensor.of(1, DataType.BF16, 1, 3)).build();
        double[] y = OpRunner.run(op, new double[] {0, LN2, LN3}).get(0);
        near(new double[] {1 / 6.0, 2 / 6.0, 3 / 6.0}, y, 4e-3);
        assertEquals(0.5, y[2], 0.0, "0.5 is exact in bf16");
    }

    @Test
    void softmaxBackwardByHand() {
        Op op = Op.builder(0, OpKind.SoftMaxBackward).inputs(t(0, 1, 2), t(1, 1, 2)).output(t(2, 1, 2)).build();
        // y = [0.25, 0.75], dy = [1, 3]: sum(dy*y) = 2.5, dx = y * (dy - 2.5)
        double[] dx = OpRunner.run(op, new double[] {1, 3}, new double[] {0.25, 0.75}).get(0);
        near(new double[] {-0.375, 0.375}, dx);
        Op op0 = Op.builder(0, OpKind.SoftMaxBackward).inputs(t(0, 2, 1), t(1, 2, 1)).output(t(2, 2, 1))
                .attr("axis", 0L).build();
        near(new double[] {-0.375, 0.375}, OpRunner.run(op0, new double[] {1, 3}, new double[] {0.25, 0.75}).get(0));
    }

    @Test
    void logSoftmaxByHand() {
        Op op = Op.builder(0, OpKind.LogSoftmax).input(t(0, 1, 3)).output(t(1, 1, 3)).build();
        double[] y = OpRunner.run(op, new double[] {0, LN2, LN3}).get(0);
        near(new double[] {Math.log(1 / 6.0), Math.log(1 / 3.0), Math.log(0.5)}, y);
        Op op0 = Op.builder(0, OpKind.LogSoftmax).input(t(0, 3, 1)).output(t(1, 3, 1)).attr("axis", 0L).build();
        near(new double[] {Math.log(1 / 6.0), Math.log(1 / 3.0), Math.log(0.5)},
                OpRunner.run(op0, new double[] {0, LN2, LN3}).get(0));
    }

    @Test
    void logSoftmaxBackwardByHand() {
        Op op = Op.builder(0, OpKind.LogSoftmaxBackward).inputs(t(0, 1, 2), t(1, 1, 2)).output(t(2, 1, 2)).build();
        // dst = log [0.5, 0.5], dy = [1, 3]: dx = dy - 0.5 * 4
        double[] dx = OpRunner.run(op, new double[] {1, 3}, new double[] {-LN2, -LN2}).get(0);
        near(new double[] {-1, 1}, dx);
    }

    // ---------------------------------------------------------------- reductions

    private static final double[] R23 = {1, -2, 3, -4, 5, -6};

    private static double[] reduce(OpKind kind, long[] srcDims, long[] axes, boolean keep, long[] outDims, double[] x) {
        Op op = Op.builder(0, kind).input(t(0, srcDims)).output(t(1, outDims)).attr("axes", axes)
                .attr("keep_dims", keep).build();
        return OpRunner.run(op, x).get(0);
    }

    @Test
    void everyReductionOverTheLastAxisKeepingDims() {
        long[] src = {2, 3};
        long[] out = {2, 1};
        long[] axes = {1};
        near(new double[] {6, 15}, reduce(OpKind.ReduceL1, src, axes, true, out, R23));
        near(new double[] {Math.sqrt(14), Math.sqrt(77)}, reduce(OpKind.ReduceL2, src, axes, true, out, R23));
        near(new double[] {3, 5}, reduce(OpKind.ReduceMax, src, axes, true, out, R23));
        near(new double[] {-2, -6}, reduce(OpKind.ReduceMin, src, axes, true, out, R23));
        near(new double[] {2 / 3.0, -5 / 3.0}, reduce(OpKind.ReduceMean, src, axes, true, out, R23));
        near(new double[] {-6, 120}, reduce(OpKind.ReduceProd, src, axes, true, out, R23));
        near(new double[] {2, -5}, reduce(OpKind.ReduceSum, src, axes, true, out, R23));
    }

    @Test
    void reductionsOverAxisZeroNegativeAxesAndAllAxes() {
        near(new double[] {-3, 3, -3}, reduce(OpKind.ReduceSum, new long[] {2, 3}, new long[] {0}, false,
                new long[] {3}, R23));
        near(new double[] {1, 5, 3}, reduce(OpKind.ReduceMax, new long[] {2, 3}, new long[] {-2}, false,
                new long[] {3}, R23));
        near(new double[] {-3}, reduce(OpKind.ReduceSum, new long[] {2, 3}, new long[] {0, 1}, false,
                new long[] {}, R23));
        near(new double[] {-720}, reduce(OpKind.ReduceProd, new long[] {2, 3}, new long[] {-1, 0}, true,
                new long[] {1, 1}, R23));
        near(new double[] {-0.5}, reduce(OpKind.ReduceMean, new long[] {2, 3}, new long[] {1, 0}, true,
                new long[] {1, 1}, R23));
    }

    @Test
    void reductionsOfAnOddThreeDimensionalTensor() {
        // src [3, 1, 2] holds 1..6: element (i, 0, j) = 2i + j + 1
        double[] x = {1, 2, 3, 4, 5, 6};
        long[] src = {3, 1, 2};
        near(new double[] {9, 12}, reduce(OpKind.ReduceSum, src, new long[] {0}, false, new long[] {1, 2}, x));
        near(new double[] {15, 48}, reduce(OpKind.ReduceProd, src, new long[] {0}, true, new long[] {1, 1, 2}, x));
        near(new double[] {3, 4}, reduce(OpKind.ReduceMean, src, new long[] {0, 1}, false, new long[] {2}, x));
        near(new double[] {21}, reduce(OpKind.ReduceL1, src, new long[] {0, 2}, false, new long[] {1}, x));
        near(new double[] {6}, reduce(OpKind.ReduceMax, src, new long[] {0, 2}, true, new long[] {1, 1, 1}, x));
        near(new double[] {1, 3, 5}, reduce(OpKind.ReduceMin, src, new long[] {2}, false, new long[] {3, 1}, x));
        near(new double[] {Math.sqrt(5), 5, Math.sqrt(61)},
                reduce(OpKind.ReduceL2, src, new long[] {1, 2}, true, new long[] {3, 1, 1}, x));
        // reducing a dim of size 1 applies the per-element part of the reduction
        near(new double[] {1, 2, 3, 4, 5, 6},
                reduce(OpKind.ReduceL1, src, new long[] {1}, true, new long[] {3, 1, 2}, x));
    }

    @Test
    void emptyAxesIsTheIdentity() {
        near(R23, reduce(OpKind.ReduceL1, new long[] {2, 3}, new long[0], false, new long[] {2, 3}, R23));
        near(R23, reduce(OpKind.ReduceSum, new long[] {2, 3}, new long[0], true, new long[] {2, 3}, R23));
    }

    @Test
    void reductionAxesFromTheSecondInput() {
        Op op = Op.builder(0, OpKind.ReduceSum).inputs(t(0, 2, 3), LogicalTensor.of(1, DataType.S32, 1))
                .output(t(2, 2)).build();
        near(new double[] {2, -5}, OpRunner.run(op, R23, new double[] {-1}).get(0));
        Op keep = Op.builder(0, OpKind.ReduceMin).inputs(t(0, 2, 3), LogicalTensor.of(1, DataType.S32, 1))
                .output(t(2, 1, 3)).attr("keep_dims", true).build();
        near(new double[] {-4, -2, -6}, OpRunner.run(keep, R23, new double[] {0}).get(0));
    }

    // ---------------------------------------------------------------- BatchNorm

    @Test
    void batchNormInferenceNcxAndNxc() {
        // var + eps = 4 and 0.25 exactly
        double[] gamma = {2, 3};
        double[] beta = {1, -1};
        double[] mean = {0.5, 1};
        double[] var = {3.9375, 0.1875};
        Op ncx = Op.builder(0, OpKind.BatchNormInference)
                .inputs(t(0, 1, 2, 1, 2), t(1, 2), t(2, 2), t(3, 2), t(4, 2)).output(t(5, 1, 2, 1, 2))
                .attr("epsilon", 0.0625f).attr("data_format", "NCX").build();
        near(new double[] {2, 3, 5, -7}, OpRunner.run(ncx, new double[] {1.5, 2.5, 2, 0}, gamma, beta, mean, var).get(0));
        Op nxc = Op.builder(0, OpKind.BatchNormInference)
                .inputs(t(0, 1, 2, 2), t(1, 2), t(2, 2), t(3, 2), t(4, 2)).output(t(5, 1, 2, 2))
                .attr("epsilon", 0.0625f).build(); // data_format defaults to NXC
        near(new double[] {2, 5, 3, -7}, OpRunner.run(nxc, new double[] {1.5, 2, 2.5, 0}, gamma, beta, mean, var).get(0));
    }

    private static Op bnTraining(long[] src, String fmt, boolean affine, Float momentum) {
        Op.Builder b = Op.builder(0, OpKind.BatchNormForwardTraining).inputs(t(0, src), t(1, 2), t(2, 2));
        if (affine) {
            b.inputs(t(3, 2), t(4, 2));
        }
        b.outputs(t(5, src), t(6, 2), t(7, 2), t(8, 2), t(9, 2)).attr("epsilon", 0f).attr("data_format", fmt);
        if (momentum != null) {
            b.attr("momentum", momentum.floatValue());
        }
        return b.build();
    }

    @Test
    void batchNormForwardTrainingStatisticsAndRunningStatistics() {
        // channel 0 holds [1, 3] (mean 2, var 1), channel 1 [0, 4] (mean 2, var 4)
        double[] x = {1, 0, 3, 4};
        double[] oldMean = {10, 0};
        double[] oldVar = {1, 8};
        List<double[]> out = OpRunner.run(bnTraining(new long[] {2, 2, 1, 1}, "NCX", true, 0.25f), x, oldMean, oldVar,
                new double[] {2, 1}, new double[] {0, 1});
        near(new double[] {-2, 0, 2, 2}, out.get(0));
        near(new double[] {0.25 * 10 + 0.75 * 2, 0.75 * 2}, out.get(1));
        near(new double[] {0.25 * 1 + 0.75 * 1, 0.25 * 8 + 0.75 * 4}, out.get(2));
        near(new double[] {2, 2}, out.get(3));
        near(new double[] {1, 4}, out.get(4));
    }

    @Test
    void batchNormForwardTrainingWithoutMomentumOrScaleAndInNxc() {
        double[] x = {1, 0, 3, 4};
        List<double[]> out = OpRunner.run(bnTraining(new long[] {2, 2, 1, 1}, "NCX", false, null), x,
                new double[] {10, 0}, new double[] {1, 8});
        near(new double[] {-1, -1, 1, 1}, out.get(0));
        near(new double[] {6, 1}, out.get(1), F32_TOL); // momentum 0.5 when absent
        near(new double[] {1, 6}, out.get(2), F32_TOL);
        // NXC [1, 2, 2]: the channel is the last dim, so channel 0 is [1, 3] again
        List<double[]> nxc = OpRunner.run(bnTraining(new long[] {1, 2, 2}, "NXC", true, 0.25f), x,
                new double[] {10, 0}, new double[] {1, 8}, new double[] {2, 1}, new double[] {0, 1});
        near(new double[] {-2, 0, 2, 2}, nxc.get(0));
        near(new double[] {1, 4}, nxc.get(4));
    }

    @Test
    void batchNormTrainingBackwardByHand() {
        // one channel of three: x = [-1, 0, 1], mean 0, var 2/3, eps 1/3 (inv = 1)
        Op op = Op.builder(0, OpKind.BatchNormTrainingBackward)
                .inputs(t(0, 1, 1, 3), t(1, 1, 1, 3), t(2, 1), t(3, 1), t(4, 1))
                .outputs(t(5, 1, 1, 3), t(6, 1), t(7, 1)).attr("epsilon", 1 / 3f).attr("data_format", "NCX").build();
        List<double[]> out = OpRunner.run(op, new double[] {-1, 0, 1}, new double[] {1, 0, 0}, new double[] {0},
                new double[] {2 / 3.0}, new double[] {2});
        near(new double[] {2 / 3.0, -2 / 3.0, 0}, out.get(0), 1e-5);
        near(new double[] {-1}, out.get(1), 1e-5);
        near(new double[] {1}, out.get(2), 1e-5);
        Op noScale = Op.builder(0, OpKind.BatchNormTrainingBackward)
                .inputs(t(0, 1, 1, 3), t(1, 1, 1, 3), t(2, 1), t(3, 1)).output(t(5, 1, 1, 3))
                .attr("epsilon", 1 / 3f).attr("data_format", "NCX").build();
        near(new double[] {1 / 3.0, -1 / 3.0, 0}, OpRunner.run(noScale, new double[] {-1, 0, 1},
                new double[] {1, 0, 0}, new double[] {0}, new double[] {2 / 3.0}).get(0), 1e-5);
    }

    // ---------------------------------------------------------------- LayerNorm / GroupNorm / RMSNorm

    @Test
    void layerNormWithoutAffineOrStats() {
        Op op = Op.builder(0, OpKind.LayerNorm).input(t(0, 2, 3)).output(t(1, 2, 3)).attr("keep_stats", false)
                .attr("use_affine", false).attr("epsilon", 0.0625f).build();
        double s = Math.sqrt(2 / 3.0 + 0.0625);
        near(new double[] {-1 / s, 0, 1 / s, 0, 0, 0}, OpRunner.run(op, new double[] {1, 2, 3, 4, 4, 4}).get(0));
    }

    @Test
    void layerNormAffineWithStatsDefaults() {
        // defaults: keep_stats and use_affine true, begin_norm_axis -1, epsilon 1e-5
        Op op = Op.builder(0, OpKind.LayerNorm).inputs(t(0, 2, 3), t(1, 3), t(2, 3))
                .outputs(t(3, 2, 3), t(4, 2), t(5, 2)).build();
        List<double[]> out = OpRunner.run(op, new double[] {1, 2, 3, 4, 4, 4}, new double[] {1, 2, 3},
                new double[] {0, 0, 1});
        double s = Math.sqrt(2 / 3.0 + 1e-5f);
        near(new double[] {-1 / s, 0, 3 / s + 1, 0, 0, 1}, out.get(0), 1e-5);
        near(new double[] {2, 4}, out.get(1));
        near(new double[] {2 / 3.0, 0}, out.get(2));
    }

    @Test
    void layerNormOverTheLastTwoDims() {
        Op op = Op.builder(0, OpKind.LayerNorm).inputs(t(0, 2, 2, 2), t(1, 2, 2), t(2, 2, 2))
                .outputs(t(3, 2, 2, 2), t(4, 2), t(5, 2)).attr("begin_norm_axis", 1L).attr("epsilon", 0f).build();
        List<double[]> out = OpRunner.run(op, new double[] {1, 1, 3, 3, 0, 0, 0, 4}, new double[] {1, 2, 3, 4},
                new double[] {0, 0, 0, 1});
        double r3 = Math.sqrt(3);
        near(new double[] {-1, -2, 3, 5, -1 / r3, -2 / r3, -3 / r3, 4 * 3 / r3 + 1}, out.get(0));
        near(new double[] {2, 1}, out.get(1));
        near(new double[] {1, 3}, out.get(2));
    }

    @Test
    void layerNormBackwardByHand() {
        Op affine = Op.builder(0, OpKind.LayerNormBackward)
                .inputs(t(0, 1, 3), t(1, 1, 3), t(2, 1), t(3, 1), t(4, 3), t(5, 3))
                .outputs(t(6, 1, 3), t(7, 3), t(8, 3)).attr("epsilon", 1 / 3f).build();
        List<double[]> out = OpRunner.run(affine, new double[] {-1, 0, 1}, new double[] {1, 0, 0}, new double[] {0},
                new double[] {2 / 3.0}, new double[] {2, 2, 2}, new double[] {5, 5, 5});
        near(new double[] {2 / 3.0, -2 / 3.0, 0}, out.get(0), 1e-5);
        near(new double[] {-1, 0, 0}, out.get(1), 1e-5);
        near(new double[] {1, 0, 0}, out.get(2), 1e-5);
        Op plain = Op.builder(0, OpKind.LayerNormBackward).inputs(t(0, 1, 3), t(1, 1, 3), t(2, 1), t(3, 1))
                .output(t(6, 1, 3)).attr("epsilon", 1 / 3f).attr("use_affine", false).build();
        near(new double[] {1 / 3.0, -1 / 3.0, 0}, OpRunner.run(plain, new double[] {-1, 0, 1},
                new double[] {1, 0, 0}, new double[] {0}, new double[] {2 / 3.0}).get(0), 1e-5);
    }

    @Test
    void groupNormNcxWithStats() {
        // groups of channels {0, 1} = [1, 3, 1, 3] (mean 2, var 1) and {2, 3} = [0, 0, 4, 4] (mean 2, var 4)
        Op op = Op.builder(0, OpKind.GroupNorm).inputs(t(0, 1, 4, 2), t(1, 4), t(2, 4))
                .outputs(t(3, 1, 4, 2), t(4, 1, 2), t(5, 1, 2)).attr("groups", 2L).attr("epsilon", 0f)
                .attr("data_format", "NCX").build();
        List<double[]> out = OpRunner.run(op, new double[] {1, 3, 1, 3, 0, 0, 4, 4}, new double[] {1, 2, 3, 4},
                new double[] {0, 0, 0, 1});
        near(new double[] {-1, 1, -2, 2, -3, -3, 5, 5}, out.get(0));
        near(new double[] {2, 2}, out.get(1));
        near(new double[] {1, 4}, out.get(2));
    }

    @Test
    void groupNormNxcAndPerBatchStatistics() {
        Op nxc = Op.builder(0, OpKind.GroupNorm).inputs(t(0, 1, 2, 4), t(1, 4), t(2, 4)).output(t(3, 1, 2, 4))
                .attr("groups", 2L).attr("epsilon", 0f).attr("keep_stats", false).build(); // NXC by default
        near(new double[] {-1, -2, -3, 5, 1, 2, -3, 5}, OpRunner.run(nxc, new double[] {1, 1, 0, 4, 3, 3, 0, 4},
                new double[] {1, 2, 3, 4}, new double[] {0, 0, 0, 1}).get(0));
        // two batches, one group: statistics per batch
        Op batches = Op.builder(0, OpKind.GroupNorm).input(t(0, 2, 2, 1)).output(t(1, 2, 2, 1)).attr("groups", 1L)
                .attr("epsilon", 0f).attr("keep_stats", false).attr("use_affine", false).attr("data_format", "NCX")
                .build();
        near(new double[] {-1, 1, -1, 1}, OpRunner.run(batches, new double[] {1, 3, 0, 4}).get(0));
    }

    @Test
    void rmsNormWithGammaAndRrms() {
        Op op = Op.builder(0, OpKind.RMSNorm).inputs(t(0, 2, 2), t(1, 2)).outputs(t(2, 2, 2), t(3, 2))
                .attr("epsilon", 0f).build();
        List<double[]> out = OpRunner.run(op, new double[] {2, 2, 3, 4}, new double[] {1, 2});
        double r = 1 / Math.sqrt(12.5);
        near(new double[] {1, 2, 3 * r, 8 * r}, out.get(0));
        near(new double[] {0.5, r}, out.get(1));
    }

    @Test
    void rmsNormOverAllDimsAndBroadcastGamma() {
        Op all = Op.builder(0, OpKind.RMSNorm).input(t(0, 2, 2)).output(t(1, 2, 2)).attr("begin_norm_axis", 0L)
                .attr("epsilon", 0.0625f).build();
        double s = Math.sqrt(8.25 + 0.0625);
        near(new double[] {2 / s, 2 / s, 3 / s, 4 / s}, OpRunner.run(all, new double[] {2, 2, 3, 4}).get(0));
        // gamma [2, 1] scales each row
        Op rows = Op.builder(0, OpKind.RMSNorm).inputs(t(0, 2, 2), t(1, 2, 1)).output(t(2, 2, 2))
                .attr("epsilon", 0f).build();
        double r = 1 / Math.sqrt(12.5);
        near(new double[] {10, 10, -3 * r, -4 * r}, OpRunner.run(rows, new double[] {2, 2, 3, 4},
                new double[] {10, -1}).get(0));
    }

    // ---------------------------------------------------------------- backward ops vs finite differences

    /** Runs the reference kernel of an op directly, in double precision; returns every output. */
    private static List<double[]> direct(Op op, double[]... inputs) {
        Op v = OpSchemas.of(op).validate(op);
        List<RefTensor> ins = new ArrayList<>();
        Map<Long, long[]> values = new HashMap<>();
        for (int i = 0; i < inputs.length; i++) {
            LogicalTensor lt = v.input(i);
            RefTensor r = new RefTensor(lt.dataType(), lt.dims(), inputs[i].clone());
            ins.add(r);
            if (lt.dataType() == DataType.S32) {
                values.put(lt.id(), r.toLongs());
            }
        }
        List<LogicalTensor> outs = OpSchemas.of(v).inferOutputs(v, v.inputs(), values);
        long[][] dims = new long[outs.size()][];
        for (int i = 0; i < dims.length; i++) {
            dims[i] = outs.get(i).dims();
        }
        RefContext ctx = new RefContext(v, ins, dims);
        RefOps.find(v.kind()).compute(ctx);
        List<double[]> result = new ArrayList<>();
        for (int i = 0; i < dims.length; i++) {
            result.add(ctx.out(i).data());
        }
        return result;
    }

    private static double[] random(Random r, int n, double lo, double hi) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = lo + (hi - lo) * r.nextDouble();
        }
        return v;
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    /** The gradient of f at p by central differences. */
    private static double[] numericGradient(Function<double[], Double> f, double[] p) {
        double h = 1e-5;
        double[] g = new double[p.length];
        for (int i = 0; i < p.length; i++) {
            double[] a = p.clone();
            double[] b = p.clone();
            a[i] += h;
            b[i] -= h;
            g[i] = (f.apply(a) - f.apply(b)) / (2 * h);
        }
        return g;
    }

    @Test
    void softmaxBackwardMatchesFiniteDifferences() {
        Random r = new Random(1);
        for (long axis : new long[] {0, 1, 2, -1}) {
            long[] d = {2, 3, 4};
            Op fwd = Op.builder(0, OpKind.SoftMax).input(t(0, d)).output(t(1, d)).attr("axis", axis).build();
            Op bwd = Op.builder(1, OpKind.SoftMaxBackward).inputs(t(2, d), t(1, d)).output(t(3, d)).attr("axis", axis)
                    .build();
            double[] x = random(r, 24, -2, 2);
            double[] dy = random(r, 24, -1, 1);
            double[] y = direct(fwd, x).get(0);
            double[] dx = direct(bwd, dy, y).get(0);
            near(numericGradient(p -> dot(dy, direct(fwd, p).get(0)), x), dx, 1e-7);
        }
    }

    @Test
    void logSoftmaxBackwardMatchesFiniteDifferences() {
        Random r = new Random(2);
        for (long axis : new long[] {0, 1, -1}) {
            long[] d = {3, 5};
            Op fwd = Op.builder(0, OpKind.LogSoftmax).input(t(0, d)).output(t(1, d)).attr("axis", axis).build();
            Op bwd = Op.builder(1, OpKind.LogSoftmaxBackward).inputs(t(2, d), t(1, d)).output(t(3, d))
                    .attr("axis", axis).build();
            double[] x = random(r, 15, -2, 2);
            double[] dy = random(r, 15, -1, 1);
            double[] y = direct(fwd, x).get(0);
            double[] dx = direct(bwd, dy, y).get(0);
            near(numericGradient(p -> dot(dy, direct(fwd, p).get(0)), x), dx, 1e-7);
        }
    }

    @Test
    void batchNormTrainingBackwardMatchesFiniteDifferences() {
        Random r = new Random(3);
        for (String fmt : new String[] {"NCX", "NXC"}) {
            long[] d = {2, 3, 2, 3};
            int n = 36;
            int c = 3; // dim 1 (NCX) and the last dim (NXC) are both 3
            Op fwd = Op.builder(0, OpKind.BatchNormForwardTraining)
                    .inputs(t(0, d), t(1, c), t(2, c), t(3, c), t(4, c))
                    .outputs(t(5, d), t(6, c), t(7, c), t(8, c), t(9, c)).attr("epsilon", 0.0625f)
                    .attr("data_format", fmt).build();
            Op bwd = Op.builder(1, OpKind.BatchNormTrainingBackward)
                    .inputs(t(0, d), t(10, d), t(8, c), t(9, c), t(3, c)).outputs(t(11, d), t(12, c), t(13, c))
                    .attr("epsilon", 0.0625f).attr("data_format", fmt).build();
            double[] x = random(r, n, -2, 2);
            double[] gamma = random(r, c, 0.5, 2);
            double[] beta = random(r, c, -1, 1);
            double[] zeros = new double[c];
            double[] ones = {1, 1, 1};
            double[] dy = random(r, n, -1, 1);
            List<double[]> f = direct(fwd, x, zeros, ones, gamma, beta);
            List<double[]> g = direct(bwd, x, dy, f.get(3), f.get(4), gamma);
            near(numericGradient(p -> dot(dy, direct(fwd, p, zeros, ones, gamma, beta).get(0)), x), g.get(0), 1e-7);
            near(numericGradient(p -> dot(dy, direct(fwd, x, zeros, ones, p, beta).get(0)), gamma), g.get(1), 1e-7);
            near(numericGradient(p -> dot(dy, direct(fwd, x, zeros, ones, gamma, p).get(0)), beta), g.get(2), 1e-7);
        }
    }

    @Test
    void layerNormBackwardMatchesFiniteDifferences() {
        Random r = new Random(4);
        for (long bna : new long[] {-1, -2, 1}) {
            long[] d = {2, 3, 4};
            int n = 24;
            long[] norm = bna == -1 ? new long[] {4} : new long[] {3, 4};
            long[] stat = bna == -1 ? new long[] {2, 3} : new long[] {2};
            int k = bna == -1 ? 4 : 12;
            Op fwd = Op.builder(0, OpKind.LayerNorm).inputs(t(0, d), t(1, norm), t(2, norm))
                    .outputs(t(3, d), t(4, stat), t(5, stat)).attr("begin_norm_axis", bna).attr("epsilon", 0.0625f)
                    .build();
            Op bwd = Op.builder(1, OpKind.LayerNormBackward)
                    .inputs(t(0, d), t(6, d), t(4, stat), t(5, stat), t(1, norm), t(2, norm))
                    .outputs(t(7, d), t(8, norm), t(9, norm)).attr("begin_norm_axis", bna).attr("epsilon", 0.0625f)
                    .build();
            double[] x = random(r, n, -2, 2);
            double[] gamma = random(r, k, 0.5, 2);
            double[] beta = random(r, k, -1, 1);
            double[] dy = random(r, n, -1, 1);
            List<double[]> f = direct(fwd, x, gamma, beta);
            List<double[]> g = direct(bwd, x, dy, f.get(1), f.get(2), gamma, beta);
            near(numericGradient(p -> dot(dy, direct(fwd, p, gamma, beta).get(0)), x), g.get(0), 1e-7);
            near(numericGradient(p -> dot(dy, direct(fwd, x, p, beta).get(0)), gamma), g.get(1), 1e-7);
            near(numericGradient(p -> dot(dy, direct(fwd, x, gamma, p).get(0)), beta), g.get(2), 1e-7);
        }
    }

    @Test
    void layerNormBackwardWithoutAffineMatchesFiniteDifferences() {
        Random r = new Random(5);
        long[] d = {3, 5};
        Op fwd = Op.builder(0, OpKind.LayerNorm).input(t(0, d)).outputs(t(3, d), t(4, 3), t(5, 3))
                .attr("use_affine", false).attr("epsilon", 0.0625f).build();
        Op bwd = Op.builder(1, OpKind.LayerNormBackward).inputs(t(0, d), t(6, d), t(4, 3), t(5, 3)).output(t(7, d))
                .attr("use_affine", false).attr("epsilon", 0.0625f).build();
        double[] x = random(r, 15, -2, 2);
        double[] dy = random(r, 15, -1, 1);
        List<double[]> f = direct(fwd, x);
        double[] dx = direct(bwd, x, dy, f.get(1), f.get(2)).get(0);
        near(numericGradient(p -> dot(dy, direct(fwd, p).get(0)), x), dx, 1e-7);
    }

    @Test
    void everyKindOfTheFamilyHasASchemaAndAKernel() {
        OpKind[] kinds = {OpKind.BatchNormInference, OpKind.BatchNormForwardTraining,
            OpKind.BatchNormTrainingBackward, OpKind.LayerNorm, OpKind.LayerNormBackward, OpKind.GroupNorm,
            OpKind.RMSNorm, OpKind.SoftMax, OpKind.SoftMaxBackward, OpKind.LogSoftmax, OpKind.LogSoftmaxBackward,
            OpKind.ReduceL1, OpKind.ReduceL2, OpKind.ReduceMax, OpKind.ReduceMean, OpKind.ReduceMin,
            OpKind.ReduceProd, OpKind.ReduceSum};
        for (OpKind k : kinds) {
            assertNotNull(OpSchemas.find(k), "schema of " + k);
            assertNotNull(RefOps.find(k), "kernel of " + k);
        }
    }
}
