package io.partita.backend.reference.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import io.partita.formats.json.GraphJson;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Tensor;
import io.partita.testing.Corpus;
import io.partita.testing.OpRunner;
import io.partita.testkit.check.RandomInputs;

/** Hand-computed results of the binary family's reference kernels, run end to end. */
class BinaryKernelsTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();

    private static final double EPS = 1e-6;

    private static LogicalTensor t(long id, DataType dt, long... dims) {
        return LogicalTensor.of(id, dt, dims);
    }

    private static LogicalTensor f32(long id, long... dims) {
        return t(id, DataType.F32, dims);
    }

    private static Op binary(OpKind kind, LogicalTensor a, LogicalTensor b, LogicalTensor dst, String autoBroadcast) {
        Op.Builder op = Op.builder(0, kind).inputs(a, b).output(dst);
        if (autoBroadcast != null) {
            op.attr("auto_broadcast", autoBroadcast);
        }
        return op.build();
    }

    private static double[] run1(Op op, double[]... inputs) {
        return OpRunner.run(op, inputs).get(0);
    }

    // ---- arithmetic -------------------------------------------------------------------------

    @Test
    void addBroadcastsARowOverEveryRow() {
        Op op = binary(OpKind.Add, f32(0, 2, 3), f32(1, 3), f32(2, 2, 3), null);
        assertArrayEquals(new double[] {11, 22, 33, 14, 25, 36},
                run1(op, new double[] {1, 2, 3, 4, 5, 6}, new double[] {10, 20, 30}), EPS);
    }

    @Test
    void addBroadcastsBothSidesOfOddShapes() {
        // [3,1] + [1,5] -> [3,5]: a column plus a row
        Op op = binary(OpKind.Add, f32(0, 3, 1), f32(1, 1, 5), f32(2, 3, 5), "numpy");
        double[] out = run1(op, new double[] {100, 200, 300}, new double[] {1, 2, 3, 4, 5});
        assertArrayEquals(new double[] {101, 102, 103, 104, 105, 201, 202, 203, 204, 205, 301, 302, 303, 304, 305}, out,
                EPS);
    }

    @Test
    void addBroadcastsAMiddleDimension() {
        // [2,3,2] + [2,1,2]: b[i,0,k] is added along j
        Op op = binary(OpKind.Add, f32(0, 2, 3, 2), f32(1, 2, 1, 2), f32(2, 2, 3, 2), "numpy");
        double[] a = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        double[] b = {100, 200, 300, 400};
        assertArrayEquals(new double[] {100, 201, 102, 203, 104, 205, 306, 407, 308, 409, 310, 411}, run1(op, a, b),
                EPS);
    }

    @Test
    void addWithNoBroadcastAddsElementwise() {
        Op op = binary(OpKind.Add, f32(0, 1, 3), f32(1, 1, 3), f32(2, 1, 3), "none");
        assertArrayEquals(new double[] {0.5, -1, 7}, run1(op, new double[] {1, 2, 3}, new double[] {-0.5, -3, 4}),
                EPS);
    }

    @Test
    void addOfS32IsExactBeyondFloatPrecision() {
        // 2^24 + 1 is not representable in f32; s32 addition must not round through float
        Op op = binary(OpKind.Add, t(0, DataType.S32, 3), t(1, DataType.S32, 3), t(2, DataType.S32, 3), null);
        assertArrayEquals(new double[] {16777218, -2147483648.0, 2147483647},
                run1(op, new double[] {16777217, -1073741824, 1073741824}, new double[] {1, -1073741824, 1073741823}),
                0);
    }

    @Test
    void subtractOfARank0Scalar() {
        Op op = binary(OpKind.Subtract, f32(0, 2, 2), f32(1), f32(2, 2, 2), null);
        assertArrayEquals(new double[] {-1.5, -0.5, 0.5, 1.5}, run1(op, new double[] {1, 2, 3, 4}, new double[] {2.5}),
                EPS);
    }

    @Test
    void subtractIsOrdered() {
        Op op = binary(OpKind.Subtract, f32(0, 3), f32(1, 1), f32(2, 3), null);
        assertArrayEquals(new double[] {-1, 0, 1}, run1(op, new double[] {1, 2, 3}, new double[] {2}), EPS);
    }

    @Test
    void subtractOfS32WithScalar() {
        Op op = binary(OpKind.Subtract, t(0, DataType.S32, 2, 2), t(1, DataType.S32), t(2, DataType.S32, 2, 2), null);
        assertArrayEquals(new double[] {-7, 0, 93, 16777210},
                run1(op, new double[] {0, 7, 100, 16777217}, new double[] {7}), 0);
    }

    @Test
    void multiplyOfF32ByBf16GivesF32() {
        Op op = binary(OpKind.Multiply, f32(0, 2, 2), t(1, DataType.BF16, 1), f32(2, 2, 2), null);
        assertArrayEquals(new double[] {0.75, -1.5, 3, 0}, run1(op, new double[] {0.5, -1, 2, 0}, new double[] {1.5}),
                EPS);
    }

    @Test
    void multiplyOfBf16RoundsToBf16() {
        // 1.00390625 = 1 + 2^-8 is not a bf16 value (8 significand bits): 1 * that rounds to even, 1
        Op op = binary(OpKind.Multiply, t(0, DataType.BF16, 2), t(1, DataType.F32, 2), t(2, DataType.BF16, 2), null);
        assertArrayEquals(new double[] {1, 3}, run1(op, new double[] {1, 2}, new double[] {1.00390625, 1.5}), 0);
    }

    @Test
    void divideBroadcastsPerChannel() {
        Op op = binary(OpKind.Divide, f32(0, 1, 2, 3), f32(1, 1, 2, 1), f32(2, 1, 2, 3), null);
        assertArrayEquals(new double[] {0.5, 1, 1.5, -0.25, -0.5, -0.75},
                run1(op, new double[] {1, 2, 3, 1, 2, 3}, new double[] {2, -4}), EPS);
    }

    @Test
    void divideByZeroFollowsIeee() {
        Op op = binary(OpKind.Divide, f32(0, 3), f32(1, 3), f32(2, 3), null);
        double[] out = run1(op, new double[] {1, -1, 0}, new double[] {0, 0, 0});
        assertEquals(Double.POSITIVE_INFINITY, out[0]);
        assertEquals(Double.NEGATIVE_INFINITY, out[1]);
        assertEquals(Double.NaN, out[2]);
    }

    @Test
    void maximumAndMinimumBroadcast() {
        double[] a = {-2, 0.5, 3, 1};
        double[] b = {0, 1};
        Op max = binary(OpKind.Maximum, f32(0, 2, 2), f32(1, 2), f32(2, 2, 2), null);
        Op min = binary(OpKind.Minimum, f32(0, 2, 2), f32(1, 2), f32(2, 2, 2), "numpy");
        assertArrayEquals(new double[] {0, 1, 3, 1}, run1(max, a, b), EPS);
        assertArrayEquals(new double[] {-2, 0.5, 0, 1}, run1(min, a, b), EPS);
    }

    @Test
    void squaredDifference() {
        Op op = binary(OpKind.SquaredDifference, f32(0, 1, 3), f32(1, 3, 1), f32(2, 3, 3), null);
        // (a_j - b_i)^2 with a = [1, 2, 4], b = [0, 1, 3]
        assertArrayEquals(new double[] {1, 4, 16, 0, 1, 9, 4, 1, 1},
                run1(op, new double[] {1, 2, 4}, new double[] {0, 1, 3}), EPS);
    }

    @Test
    void greaterEqualGivesBooleansIncludingEquality() {
        Op op = binary(OpKind.GreaterEqual, f32(0, 4), f32(1, 4), t(2, DataType.BOOLEAN, 4), null);
        assertArrayEquals(new double[] {1, 1, 0, 1},
                run1(op, new double[] {2, 1, -1, 0}, new double[] {1, 1, 0, -0.0}), 0);
    }

    @Test
    void greaterEqualOfS32Broadcast() {
        // a causal mask: row index >= column index
        Op op = binary(OpKind.GreaterEqual, t(0, DataType.S32, 3, 1), t(1, DataType.S32, 1, 3),
                t(2, DataType.BOOLEAN, 3, 3), null);
        assertArrayEquals(new double[] {1, 0, 0, 1, 1, 0, 1, 1, 1},
                run1(op, new double[] {0, 1, 2}, new double[] {0, 1, 2}), 0);
    }

    // ---- Pow, Select ------------------------------------------------------------------------

    @Test
    void powRaisesToBeta() {
        double[] x = {0.25, 1, 4, 9};
        assertArrayEquals(new double[] {0.5, 1, 2, 3}, run1(pow(0.5f), x), EPS);
        assertArrayEquals(new double[] {0.0625, 1, 16, 81}, run1(pow(2f), x), EPS);
        assertArrayEquals(new double[] {4, 1, 0.25, 1.0 / 9}, run1(pow(-1f), x), EPS);
        assertArrayEquals(new double[] {1, 1, 1, 1}, run1(pow(0f), x), EPS);
    }

    private static Op pow(float beta) {
        return Op.builder(0, OpKind.Pow).input(f32(0, 2, 2)).output(f32(1, 2, 2)).attr("beta", beta).build();
    }

    @Test
    void selectBroadcastsAllThree() {
        // src_0 [2,1] and src_1 [1,3] broadcast to [2,3]; cond [1,3] broadcasts to that
        Op op = Op.builder(0, OpKind.Select)
                .inputs(t(0, DataType.BOOLEAN, 1, 3), f32(1, 2, 1), f32(2, 1, 3))
                .output(f32(3, 2, 3))
                .build();
        assertArrayEquals(new double[] {10, -2, 10, 20, -2, 20},
                run1(op, new double[] {1, 0, 1}, new double[] {10, 20}, new double[] {-1, -2, -3}), EPS);
        // a scalar src_1
        Op scalar = Op.builder(0, OpKind.Select)
                .inputs(t(0, DataType.BOOLEAN, 1, 3), f32(1, 2, 3), f32(2))
                .output(f32(3, 2, 3))
                .build();
        assertArrayEquals(new double[] {1, -1, 3, 4, -1, 6},
                run1(scalar, new double[] {1, 0, 1}, new double[] {1, 2, 3, 4, 5, 6}, new double[] {-1}), EPS);
    }

    @Test
    void selectWithoutBroadcast() {
        Op op = Op.builder(0, OpKind.Select)
                .inputs(t(0, DataType.BOOLEAN, 2, 2), f32(1, 2, 2), f32(2, 2, 2))
                .output(f32(3, 2, 2))
                .attr("auto_broadcast", "none")
                .build();
        assertArrayEquals(new double[] {1, 20, 30, 4},
                run1(op, new double[] {1, 0, 0, 1}, new double[] {1, 2, 3, 4}, new double[] {10, 20, 30, 40}), EPS);
    }

    @Test
    void selectWithAMaskOverTheLastDims() {
        // cond [1,1,2,3] broadcast over [1,2,2,3] sources; masked elements get -inf
        Op op = Op.builder(0, OpKind.Select)
                .inputs(t(0, DataType.BOOLEAN, 1, 1, 2, 3), f32(1, 1, 2, 2, 3), f32(2, 1))
                .output(f32(3, 1, 2, 2, 3))
                .build();
        double[] src = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        double ninf = Double.NEGATIVE_INFINITY;
        assertArrayEquals(new double[] {1, ninf, ninf, 4, 5, ninf, 7, ninf, ninf, 10, 11, ninf},
                run1(op, new double[] {1, 0, 0, 1, 1, 0}, src, new double[] {ninf}), 0);
    }

    // ---- BiasAdd ----------------------------------------------------------------------------

    @Test
    void biasAddNcxAddsAlongAxis1() {
        Op op = Op.builder(0, OpKind.BiasAdd).inputs(f32(0, 2, 3, 2), f32(1, 3)).output(f32(2, 2, 3, 2))
                .attr("data_format", "NCX").build();
        double[] x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        assertArrayEquals(new double[] {10, 11, 22, 23, 34, 35, 16, 17, 28, 29, 40, 41},
                run1(op, x, new double[] {10, 20, 30}), EPS);
    }

    @Test
    void biasAddDefaultsToNxc() {
        Op op = Op.builder(0, OpKind.BiasAdd).inputs(f32(0, 2, 2, 3), f32(1, 3)).output(f32(2, 2, 2, 3)).build();
        double[] x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        assertArrayEquals(new double[] {10, 21, 32, 13, 24, 35, 16, 27, 38, 19, 30, 41},
                run1(op, x, new double[] {10, 20, 30}), EPS);
    }

    @Test
    void biasAddOn2dNcxIsPerColumn() {
        Op op = Op.builder(0, OpKind.BiasAdd).inputs(f32(0, 2, 3), f32(1, 3)).output(f32(2, 2, 3))
                .attr("data_format", "NCX").build();
        assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6},
                run1(op, new double[] {0, 0, 0, 3, 3, 3}, new double[] {1, 2, 3}), EPS);
    }

    @Test
    void biasAddBackwardSumsPerChannel() {
        double[] g = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        Op ncx = Op.builder(0, OpKind.BiasAddBackward).input(f32(0, 2, 3, 2)).output(f32(1, 3))
                .attr("data_format", "NCX").build();
        // element (n, c, x) is at 6n + 2c + x; c0: 0+1+6+7 = 14, c1: 2+3+8+9 = 22, c2: 4+5+10+11 = 30
        assertArrayEquals(new double[] {14, 22, 30}, run1(ncx, g), EPS);
        Op nxc = Op.builder(0, OpKind.BiasAddBackward).input(f32(0, 2, 2, 3)).output(f32(1, 3)).build();
        // c0: 0+3+6+9 = 18, c1: 1+4+7+10 = 22, c2: 2+5+8+11 = 26
        assertArrayEquals(new double[] {18, 22, 26}, run1(nxc, g), EPS);
    }

    // ---- PReLU ------------------------------------------------------------------------------

    private static Op prelu(long[] src, long[] slope, String fmt, Boolean perChannel) {
        Op.Builder b = Op.builder(0, OpKind.PReLU).inputs(f32(0, src), f32(1, slope)).output(f32(2, src));
        if (fmt != null) {
            b.attr("data_format", fmt);
        }
        if (perChannel != null) {
            b.attr("per_channel_broadcast", perChannel.booleanValue());
        }
        return b.build();
    }

    private static final double[] PRELU_X = {-1, 2, -3, 4, -5, 6, 0, -8, 9, -10, 11, -12};

    @Test
    void preluWithAFullSlope() {
        double[] s = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        Op op = prelu(new long[] {2, 3, 2}, new long[] {2, 3, 2}, "NCX", false);
        assertArrayEquals(new double[] {-1, 2, -9, 4, -25, 6, 0, -64, 9, -100, 11, -144}, run1(op, PRELU_X, s), EPS);
    }

    @Test
    void preluPerChannelNcx() {
        Op op = prelu(new long[] {2, 3, 2}, new long[] {3}, "NCX", true);
        // slope by channel (axis 1): 0.1, 0.2, 0.3
        assertArrayEquals(new double[] {-0.1, 2, -0.6, 4, -1.5, 6, 0, -0.8, 9, -2, 11, -3.6},
                run1(op, PRELU_X, new double[] {0.1, 0.2, 0.3}), EPS);
    }

    @Test
    void preluPerChannelNxcIsTheLastAxis() {
        Op op = prelu(new long[] {2, 2, 3}, new long[] {3}, null, null); // defaults NXC, per channel
        // slope by last axis: 0.1, 0.2, 0.3
        assertArrayEquals(new double[] {-0.1, 2, -0.9, 4, -1, 6, 0, -1.6, 9, -1, 11, -3.6},
                run1(op, PRELU_X, new double[] {0.1, 0.2, 0.3}), EPS);
    }

    @Test
    void prelu1dSlopeNotPerChannelFollowsTheLastAxisEvenForNcx() {
        Op op = prelu(new long[] {2, 3, 2}, new long[] {2}, "NCX", false);
        // slope by last axis: 0.5, 2
        assertArrayEquals(new double[] {-0.5, 2, -1.5, 4, -2.5, 6, 0, -16, 9, -20, 11, -24},
                run1(op, PRELU_X, new double[] {0.5, 2}), EPS);
    }

    @Test
    void preluWithAChannelShapedSlope() {
        Op op = prelu(new long[] {2, 3, 2}, new long[] {1, 3, 1}, "NCX", false);
        assertArrayEquals(new double[] {-0.1, 2, -0.6, 4, -1.5, 6, 0, -0.8, 9, -2, 11, -3.6},
                run1(op, PRELU_X, new double[] {0.1, 0.2, 0.3}), EPS);
    }

    @Test
    void preluWithALowerRankSlopeAlignsRight() {
        // slope [3,2] applies to every n of src [2,3,2]
        double[] s = {1, 2, 3, 4, 5, 6};
        Op op = prelu(new long[] {2, 3, 2}, new long[] {3, 2}, "NCX", true);
        assertArrayEquals(new double[] {-1, 2, -9, 4, -25, 6, 0, -16, 9, -40, 11, -72}, run1(op, PRELU_X, s), EPS);
    }

    @Test
    void preluWithASingleSlope() {
        Op op = prelu(new long[] {2, 3, 2}, new long[] {1}, "NCX", true);
        assertArrayEquals(new double[] {-0.5, 2, -1.5, 4, -2.5, 6, 0, -4, 9, -5, 11, -6},
                run1(op, PRELU_X, new double[] {0.5}), EPS);
    }

    @Test
    void preluBackwardPerChannelNcx() {
        Op op = Op.builder(0, OpKind.PReLUBackward)
                .inputs(f32(0, 2, 2, 2), f32(1, 2), f32(2, 2, 2, 2))
                .outputs(f32(3, 2, 2, 2), f32(4, 2))
                .attr("data_format", "NCX").build();
        double[] x = {-1, 2, 0, -4, 5, -6, -7, 8};
        double[] g = {1, 2, 3, 4, 5, 6, 7, 8};
        List<double[]> out = OpRunner.run(op, x, new double[] {0.5, 2}, g);
        // channel 0 holds x[0,1,4,5], channel 1 x[2,3,6,7]; x <= 0 -> slope * g
        assertArrayEquals(new double[] {0.5, 2, 6, 8, 5, 3, 14, 8}, out.get(0), EPS);
        // diff_slope[c] = sum of min(x, 0) * g: c0 = -1*1 + -6*6 = -37; c1 = 0*3 + -4*4 + -7*7 = -65
        assertArrayEquals(new double[] {-37, -65}, out.get(1), EPS);
    }

    @Test
    void preluBackwardNxcPerChannelAndSingleSlope() {
        double[] x = {-1, 2, 0, -4, 5, -6, -7, 8};
        double[] g = {1, 2, 3, 4, 5, 6, 7, 8};
        Op nxc = Op.builder(0, OpKind.PReLUBackward)
                .inputs(f32(0, 2, 2, 2), f32(1, 2), f32(2, 2, 2, 2))
                .outputs(f32(3, 2, 2, 2), f32(4, 2)).build();
        List<double[]> out = OpRunner.run(nxc, x, new double[] {0.5, 2}, g);
        // channel = last axis: even indices channel 0, odd channel 1
        assertArrayEquals(new double[] {0.5, 2, 1.5, 8, 5, 12, 3.5, 8}, out.get(0), EPS);
        // c0: -1*1 + 0*3 + -7*7 = -50; c1: -4*4 + -6*6 = -52
        assertArrayEquals(new double[] {-50, -52}, out.get(1), EPS);

        Op single = Op.builder(0, OpKind.PReLUBackward)
                .inputs(f32(0, 2, 2, 2), f32(1, 1, 1, 1), f32(2, 2, 2, 2))
                .outputs(f32(3, 2, 2, 2), f32(4, 1, 1, 1)).attr("data_format", "NCX").build();
        out = OpRunner.run(single, x, new double[] {0.25}, g);
        assertArrayEquals(new double[] {0.25, 2, 0.75, 1, 5, 1.5, 1.75, 8}, out.get(0), EPS);
        assertArrayEquals(new double[] {-102}, out.get(1), EPS);
    }

    @Test
    void preluBackwardWithAFullSlope() {
        Op op = Op.builder(0, OpKind.PReLUBackward)
                .inputs(f32(0, 3), f32(1, 3), f32(2, 3))
                .outputs(f32(3, 3), f32(4, 3)).build();
        List<double[]> out = OpRunner.run(op, new double[] {-2, 3, -0.5}, new double[] {0.1, 0.2, 0.3},
                new double[] {10, 10, 4});
        assertArrayEquals(new double[] {1, 10, 1.2}, out.get(0), EPS);
        assertArrayEquals(new double[] {-20, 0, -2}, out.get(1), EPS);
    }

    // ---- broadcasting helper ----------------------------------------------------------------

    @Test
    void rowIterationMatchesNaiveIndexingOnARank5Broadcast() {
        long[] out = {2, 3, 1, 4, 5};
        long[] a = {3, 1, 1, 5};
        long[] b = {2, 1, 1, 4, 1};
        double[] got = new double[120];
        BinaryKernels.forEachRow(out, (d, len, off, step) -> {
            for (int k = 0; k < len; k++) {
                // encode both input offsets in one number
                got[d + k] = (off[0] + k * step[0]) * 1000 + off[1] + k * step[1];
            }
        }, a, b);
        int i = 0;
        for (int n = 0; n < 2; n++) {
            for (int c = 0; c < 3; c++) {
                for (int h = 0; h < 4; h++) {
                    for (int w = 0; w < 5; w++, i++) {
                        int ia = c * 5 + w; // a = [3,1,1,5] aligned to [.,3,1,4,5]
                        int ib = n * 4 + h; // b = [2,1,1,4,1]
                        assertEquals(ia * 1000 + ib, got[i], "element " + i);
                    }
                }
            }
        }
        assertEquals(120, i);
    }

    @Test
    void rowIterationOfEmptyAndScalarOutputs() {
        int[] rows = {0};
        BinaryKernels.forEachRow(new long[] {2, 0, 3}, (d, len, off, step) -> rows[0]++, new long[] {2, 0, 3});
        assertEquals(0, rows[0]);
        BinaryKernels.forEachRow(new long[] {}, (d, len, off, step) -> {
            rows[0]++;
            assertEquals(1, len);
            assertEquals(0, off[0]);
        }, new long[] {});
        assertEquals(1, rows[0]);
    }

    // ---- every corpus op of the family, alone ------------------------------------------------

    private static final Set<OpKind> FAMILY = EnumSet.of(OpKind.Add, OpKind.Subtract, OpKind.Multiply, OpKind.Divide,
            OpKind.Maximum, OpKind.Minimum, OpKind.SquaredDifference, OpKind.Pow, OpKind.GreaterEqual, OpKind.Select,
            OpKind.BiasAdd, OpKind.BiasAddBackward, OpKind.PReLU, OpKind.PReLUBackward);

    /** Ops with more elements than this (inputs and outputs) are left to the corpus graph test. */
    private static final long MAX_ELEMENTS = 4_000_000;

    /**
     * Every op of this family in the corpus runs alone on the reference backend with random inputs
     * and produces finite outputs of the inferred size (Divide draws non-zero divisors).
     */
    @TestFactory
    Stream<DynamicTest> everyCorpusOpOfTheFamilyRunsAlone() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path f : Corpus.graphFiles()) {
            for (Op op : GraphJson.parse(f).ops()) {
                if (FAMILY.contains(op.kind()) && elements(op) <= MAX_ELEMENTS) {
                    tests.add(DynamicTest.dynamicTest(Corpus.name(f) + " " + op.describe(), () -> runAlone(op)));
                }
            }
        }
        assertFalse(tests.isEmpty());
        return tests.stream();
    }

    private static long elements(Op op) {
        long n = 0;
        for (LogicalTensor t : op.inputs()) {
            n += t.elementCount();
        }
        return n * 2;
    }

    private static void runAlone(Op op) {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        // Outputs declared with only unknown dims are left to inference (their declared rank may differ).
        // Edges inside a corpus graph may have an undef layout: alone, they are dense graph inputs.
        Op.Builder b = op.toBuilder().clearInputs().clearOutputs();
        for (LogicalTensor i : op.inputs()) {
            b.input(LogicalTensor.of(i.id(), i.dataType(), i.dims(), LayoutType.STRIDED, null, i.property()));
        }
        for (LogicalTensor o : op.outputs()) {
            boolean open = o.dims() == null || java.util.Arrays.stream(o.dims()).allMatch(d -> d == LogicalTensor.UNKNOWN_DIM);
            b.output(open ? LogicalTensor.unknownRank(o.id(), o.dataType()) : LogicalTensor.of(o.id(), o.dataType(), o.dims()));
        }
        g.add(b.build());
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, e, arena, 7);
            Map<Long, Tensor> out = cg.execute(new io.partita.graph.Stream(e), in);
            assertEquals(op.outputs().size(), out.size());
            for (LogicalTensor lt : g.ops().get(0).outputs()) {
                double[] v = out.get(lt.id()).toDoubleArray();
                assertEquals(lt.elementCount(), v.length);
                for (int i = 0; i < v.length; i++) {
                    assertTrue(Double.isFinite(v[i]), "output " + lt.id() + " element " + i + " is " + v[i]);
                }
            }
        }
    }
}
