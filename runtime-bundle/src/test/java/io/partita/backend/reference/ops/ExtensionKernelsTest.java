package io.partita.backend.reference.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.backend.reference.RefOps;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitaException;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.testing.OpRunner;

/**
 * The Partita extension ops that select and index (PartitaArgMax/ArgMin, PartitaReduce,
 * PartitaGather, PartitaGatherElements): hand-computed values through the whole public path, odd
 * sizes, negative axes and indices, and the refusals of bad attributes and indices.
 */
class ExtensionKernelsTest {
    private static final double[] R23 = {1, -2, 3, -4, 5, -6};

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    private static LogicalTensor s64(long id, long... dims) {
        return LogicalTensor.of(id, DataType.S64, dims);
    }

    private static void near(double[] expected, double[] actual) {
        assertEquals(expected.length, actual.length, "element count");
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 2e-6 * Math.max(1, Math.abs(expected[i])), "element " + i);
        }
    }

    // ---------------------------------------------------------------- ArgMax / ArgMin

    private static double[] arg(OpKind kind, long[] src, long axis, boolean keep, boolean last, long[] out,
            double[] x) {
        Op op = Op.builder(0, kind).input(f32(0, src)).output(s64(1, out)).attr("axis", axis).attr("keep_dims", keep)
                .attr("select_last_index", last).build();
        return OpRunner.run(op, x).get(0);
    }

    @Test
    void argMaxAndArgMinAlongEachAxis() {
        assertArrayEquals(new double[] {2, 1}, arg(OpKind.PartitaArgMax, new long[] {2, 3}, 1, true, false,
                new long[] {2, 1}, R23));
        assertArrayEquals(new double[] {0, 1, 0}, arg(OpKind.PartitaArgMax, new long[] {2, 3}, 0, false, false,
                new long[] {3}, R23));
        assertArrayEquals(new double[] {1, 2}, arg(OpKind.PartitaArgMin, new long[] {2, 3}, -1, false, false,
                new long[] {2}, R23));
        // odd 3-D [3, 1, 2] over axis 0 and the middle axis of size 1
        double[] x = {4, 1, 9, 1, 0, 7};
        assertArrayEquals(new double[] {1, 2}, arg(OpKind.PartitaArgMax, new long[] {3, 1, 2}, 0, false, false,
                new long[] {1, 2}, x));
        assertArrayEquals(new double[] {2, 0}, arg(OpKind.PartitaArgMin, new long[] {3, 1, 2}, 0, true, false,
                new long[] {1, 1, 2}, x));
        assertArrayEquals(new double[] {0, 0, 0, 0, 0, 0}, arg(OpKind.PartitaArgMax, new long[] {3, 1, 2}, -2, true,
                false, new long[] {3, 1, 2}, x));
    }

    @Test
    void tiesGiveTheFirstIndexOrTheLastWithSelectLastIndex() {
        double[] x = {2, 5, 5, 1, 1, 0};
        assertArrayEquals(new double[] {1, 0}, arg(OpKind.PartitaArgMax, new long[] {2, 3}, 1, false, false,
                new long[] {2}, x));
        assertArrayEquals(new double[] {2, 1}, arg(OpKind.PartitaArgMax, new long[] {2, 3}, 1, false, true,
                new long[] {2}, x));
        assertArrayEquals(new double[] {2, 2}, arg(OpKind.PartitaArgMin, new long[] {2, 3}, 1, false, true,
                new long[] {2}, new double[] {0, 1, 0, 3, 3, 3}));
    }

    @Test
    void argMaxRefusesAnAxisOutOfRangeAndAScalar() {
        Op bad = Op.builder(0, OpKind.PartitaArgMax).input(f32(0, 2, 3)).output(s64(1, 2)).attr("axis", 2L).build();
        PartitaException e = assertThrows(PartitaException.class, () -> OpRunner.run(bad, R23));
        assertTrue(e.getMessage().contains("PartitaArgMax") && e.getMessage().contains("axis 2 is out of range"),
                e.getMessage());
        Op scalar = Op.builder(0, OpKind.PartitaArgMin).input(f32(0)).output(s64(1)).build();
        e = assertThrows(PartitaException.class, () -> OpRunner.run(scalar, new double[] {1}));
        assertTrue(e.getMessage().contains("expected rank >= 1"), e.getMessage());
    }

    // ---------------------------------------------------------------- PartitaReduce

    private static double[] reduce(String mode, long[] src, long[] axes, boolean keep, long[] out, double[] x) {
        double[] a = new double[axes.length];
        for (int i = 0; i < a.length; i++) {
            a[i] = axes[i];
        }
        Op op = Op.builder(0, OpKind.PartitaReduce).inputs(f32(0, src), s64(1, axes.length)).output(f32(2, out))
                .attr("mode", mode).attr("keep_dims", keep).build();
        return runDynamic(op, out, x, a);
    }

    /**
     * Runs a one-op graph whose output dims are known only at execution (they depend on input
     * values) through a compiled graph, checking the dims it computed.
     */
    private static double[] runDynamic(Op op, long[] expectedDims, double[]... inputs) {
        assertArrayEquals(expectedDims, op.output(0).dims(), "declared output dims");
        return runDynamicAll(op, inputs).get(0);
    }

    /** Every output of a one-op graph run through a compiled graph (output dims known only at execution). */
    private static List<double[]> runDynamicAll(Op op, double[]... inputs) {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(op);
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> ins = new HashMap<>();
            for (int i = 0; i < op.inputs().size(); i++) {
                Tensor t = Tensor.allocate(op.input(i), e, arena);
                t.copyFrom(inputs[i]);
                ins.put(op.input(i).id(), t);
            }
            Map<Long, Tensor> outs = cg.execute(new Stream(e), ins);
            List<double[]> r = new ArrayList<>();
            for (LogicalTensor lt : op.outputs()) {
                Tensor t = outs.get(lt.id());
                assertArrayEquals(lt.dims(), t.logicalTensor().dims(), "dims of output " + lt.id());
                r.add(t.toDoubleArray());
            }
            return r;
        }
    }

    @Test
    void everyReductionModeOverTheLastAxis() {
        long[] src = {2, 3};
        long[] out = {2, 1};
        long[] axes = {-1};
        near(new double[] {2, -5}, reduce("sum", src, axes, true, out, R23));
        near(new double[] {2 / 3.0, -5 / 3.0}, reduce("mean", src, axes, true, out, R23));
        near(new double[] {3, 5}, reduce("max", src, axes, true, out, R23));
        near(new double[] {-2, -6}, reduce("min", src, axes, true, out, R23));
        near(new double[] {-6, 120}, reduce("prod", src, axes, true, out, R23));
        near(new double[] {6, 15}, reduce("l1", src, axes, true, out, R23));
        near(new double[] {Math.sqrt(14), Math.sqrt(77)}, reduce("l2", src, axes, true, out, R23));
        near(new double[] {14, 77}, reduce("sum_square", src, axes, true, out, R23));
        double[] pos = {1, 2, 3, 4, 5, 6};
        near(new double[] {Math.log(6), Math.log(15)}, reduce("log_sum", src, axes, true, out, pos));
        near(new double[] {Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3)),
            Math.log(Math.exp(4) + Math.exp(5) + Math.exp(6))}, reduce("log_sum_exp", src, axes, true, out, pos));
    }

    @Test
    void logSumExpOfLargeValuesDoesNotOverflow() {
        double[] x = {1000, 1000, 1000};
        near(new double[] {1000 + Math.log(3)}, reduce("log_sum_exp", new long[] {3}, new long[] {0}, false,
                new long[] {}, x));
    }

    @Test
    void reduceOverSeveralAxesAnOddTensorAndEmptyAxes() {
        // src [3, 1, 2] holds 1..6
        double[] x = {1, 2, 3, 4, 5, 6};
        near(new double[] {9, 12}, reduce("sum", new long[] {3, 1, 2}, new long[] {0, 1}, false, new long[] {2}, x));
        near(new double[] {5, 25, 61}, reduce("sum_square", new long[] {3, 1, 2}, new long[] {2, -2}, true,
                new long[] {3, 1, 1}, x));
        // empty axes reduce every axis
        near(new double[] {21}, reduce("sum", new long[] {3, 1, 2}, new long[0], false, new long[] {}, x));
    }

    @Test
    void reduceRefusesAxesOutOfRangeOrRepeatedAtExecution() {
        PartitaException e = assertThrows(PartitaException.class,
                () -> reduce("sum", new long[] {2, 3}, new long[] {2}, true, new long[] {2, 1}, R23));
        assertTrue(e.getMessage().contains("PartitaReduce") && e.getMessage().contains("axis 2"), e.getMessage());
        e = assertThrows(PartitaException.class,
                () -> reduce("sum", new long[] {2, 3}, new long[] {1, -1}, true, new long[] {2, 1}, R23));
        assertTrue(e.getMessage().contains("twice"), e.getMessage());
    }

    @Test
    void reduceRefusesAnUnknownMode() {
        Op op = Op.builder(0, OpKind.PartitaReduce).inputs(f32(0, 2, 3), s64(1, 1)).output(f32(2, 2, 1))
                .attr("mode", "median").build();
        PartitaException e = assertThrows(PartitaException.class, () -> runDynamic(op, new long[] {2, 1}, R23,
                new double[] {1}));
        assertTrue(e.getMessage().contains("median"), e.getMessage());
    }

    // ---------------------------------------------------------------- Gather / GatherElements

    @Test
    void gatherAlongAxisZeroAndOneWithNegativeIndices() {
        Op g0 = Op.builder(0, OpKind.PartitaGather).inputs(f32(0, 3, 2), s64(1, 2, 2)).output(f32(2, 2, 2, 2))
                .build();
        near(new double[] {1, -2, 3, -4, 3, -4, 5, -6},
                OpRunner.run(g0, R23, new double[] {0, 1, -2, 2}).get(0));
        Op g1 = Op.builder(0, OpKind.PartitaGather).inputs(f32(0, 2, 3), s64(1, 1)).output(f32(2, 2, 1))
                .attr("axis", -1L).build();
        near(new double[] {3, -6}, OpRunner.run(g1, R23, new double[] {-1}).get(0));
        // a scalar index removes the axis
        Op g2 = Op.builder(0, OpKind.PartitaGather).inputs(f32(0, 2, 3), s64(1)).output(f32(2, 3)).build();
        near(new double[] {-4, 5, -6}, OpRunner.run(g2, R23, new double[] {1}).get(0));
    }

    @Test
    void gatherRefusesAnIndexOutOfRange() {
        Op g = Op.builder(0, OpKind.PartitaGather).inputs(f32(0, 3, 2), s64(1, 1)).output(f32(2, 1, 2)).build();
        PartitaException e = assertThrows(PartitaException.class, () -> OpRunner.run(g, R23, new double[] {3}));
        assertTrue(e.getMessage().contains("PartitaGather") && e.getMessage().contains("index 3 is out of range"),
                e.getMessage());
        assertThrows(PartitaException.class, () -> OpRunner.run(g, R23, new double[] {-4}));
    }

    @Test
    void gatherElementsPicksAlongTheAxis() {
        // src [2, 3]; indices [2, 2] along axis 1
        Op op = Op.builder(0, OpKind.PartitaGatherElements).inputs(f32(0, 2, 3), s64(1, 2, 2)).output(f32(2, 2, 2))
                .attr("axis", 1L).build();
        near(new double[] {3, 1, -4, -6}, OpRunner.run(op, R23, new double[] {2, 0, 0, -1}).get(0));
        Op ax0 = Op.builder(0, OpKind.PartitaGatherElements).inputs(f32(0, 2, 3), s64(1, 1, 3)).output(f32(2, 1, 3))
                .build();
        near(new double[] {-4, -2, -6}, OpRunner.run(ax0, R23, new double[] {1, 0, 1}).get(0));
        Op rank = Op.builder(0, OpKind.PartitaGatherElements).inputs(f32(0, 2, 3), s64(1, 3)).output(f32(2, 3))
                .build();
        PartitaException e = assertThrows(PartitaException.class,
                () -> OpRunner.run(rank, R23, new double[] {0, 0, 0}));
        assertTrue(e.getMessage().contains("same rank"), e.getMessage());
    }

    // ---------------------------------------------------------------- PartitaCompare

    private static double[] compare(String mode, double[] a, long[] ad, double[] b, long[] bd, long[] out) {
        Op op = Op.builder(0, OpKind.PartitaCompare).inputs(f32(0, ad), f32(1, bd))
                .output(LogicalTensor.of(2, DataType.BOOLEAN, out)).attr("mode", mode).build();
        return OpRunner.run(op, a, b).get(0);
    }

    @Test
    void everyComparisonWithBroadcastingAndNaN() {
        double[] a = {1, 2, 3, Double.NaN, 5, -6};
        long[] ad = {2, 3};
        double[] b = {2, 2, 2};
        long[] bd = {3};
        assertArrayEquals(new double[] {1, 0, 0, 0, 0, 1}, compare("less", a, ad, b, bd, ad));
        assertArrayEquals(new double[] {1, 1, 0, 0, 0, 1}, compare("less_equal", a, ad, b, bd, ad));
        assertArrayEquals(new double[] {0, 0, 1, 0, 1, 0}, compare("greater", a, ad, b, bd, ad));
        assertArrayEquals(new double[] {0, 1, 1, 0, 1, 0}, compare("greater_equal", a, ad, b, bd, ad));
        assertArrayEquals(new double[] {0, 1, 0, 0, 0, 0}, compare("equal", a, ad, b, bd, ad));
        // [2, 1] against [3]: an outer comparison
        assertArrayEquals(new double[] {1, 1, 1, 0, 0, 1}, compare("less", new double[] {0, 2}, new long[] {2, 1},
                new double[] {1, 2, 3}, new long[] {3}, new long[] {2, 3}));
    }

    @Test
    void compareRefusesAnUnknownModeAndShapesThatDoNotBroadcast() {
        PartitaException e = assertThrows(PartitaException.class, () -> compare("unequal", new double[] {1},
                new long[] {1}, new double[] {1}, new long[] {1}, new long[] {1}));
        assertTrue(e.getMessage().contains("unequal"), e.getMessage());
        e = assertThrows(PartitaException.class, () -> compare("less", new double[] {1, 2}, new long[] {2},
                new double[] {1, 2, 3}, new long[] {3}, new long[] {3}));
        assertTrue(e.getMessage().contains("PartitaCompare"), e.getMessage());
    }

    // ---------------------------------------------------------------- Slice / Split / Pad / Tile / Expand

    private static double[] d(long... v) {
        double[] r = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            r[i] = v[i];
        }
        return r;
    }

    private static double[] slice(long[] src, double[] x, long[] starts, long[] ends, long[] axes, long[] steps,
            long[] out) {
        int n = starts.length;
        Op op = Op.builder(0, OpKind.PartitaSlice).inputs(f32(0, src), s64(1, n), s64(2, n), s64(3, n), s64(4, n))
                .output(f32(5, out)).build();
        return runDynamic(op, out, x, d(starts), d(ends), d(axes), d(steps));
    }

    @Test
    void sliceWithNegativeIndicesStepsAndClamping() {
        // [2, 3]: row 1, columns 2 down to 0 by -1
        near(new double[] {-6, 5, -4}, slice(new long[] {2, 3}, R23, new long[] {1, -1}, new long[] {2, -10},
                new long[] {0, 1}, new long[] {1, -1}, new long[] {1, 3}));
        // negative axis, step 2, end beyond the dim
        near(new double[] {1, 3, -4, -6}, slice(new long[] {2, 3}, R23, new long[] {0}, new long[] {100},
                new long[] {-1}, new long[] {2}, new long[] {2, 2}));
        // start beyond the end: empty
        near(new double[0], slice(new long[] {2, 3}, R23, new long[] {5}, new long[] {1}, new long[] {1},
                new long[] {1}, new long[] {2, 0}));
        // negative step from a start beyond the dim clamps to the last element
        near(new double[] {3, -2, 1}, slice(new long[] {3}, new double[] {1, -2, 3}, new long[] {100},
                new long[] {-100}, new long[] {0}, new long[] {-1}, new long[] {3}));
    }

    @Test
    void sliceRefusesStepZeroAndRepeatedAxes() {
        PartitaException e = assertThrows(PartitaException.class, () -> slice(new long[] {2, 3}, R23,
                new long[] {0}, new long[] {1}, new long[] {0}, new long[] {0}, new long[] {1, 3}));
        assertTrue(e.getMessage().contains("PartitaSlice") && e.getMessage().contains("non-zero"), e.getMessage());
        e = assertThrows(PartitaException.class, () -> slice(new long[] {2, 3}, R23, new long[] {0, 0},
                new long[] {1, 1}, new long[] {1, -1}, new long[] {1, 1}, new long[] {2, 1}));
        assertTrue(e.getMessage().contains("repeated"), e.getMessage());
    }

    @Test
    void splitBySizesAndIntoNumOutputsPartsTheLastSmaller() {
        double[] x = {1, 2, 3, 4, 5, 6, 7};
        Op p1 = Op.builder(0, OpKind.PartitaSplit).inputs(f32(0, 7), s64(1, 2)).output(f32(2, 4))
                .attr("index", 1L).build();
        near(new double[] {4, 5, 6, 7}, runDynamic(p1, new long[] {4}, x, d(3, 4)));
        Op last = Op.builder(0, OpKind.PartitaSplit).input(f32(0, 7)).output(f32(1, 1)).attr("index", 2L)
                .attr("num_outputs", 3L).build();
        near(new double[] {7}, OpRunner.run(last, x).get(0));
        // axis -1 of [2, 3]: the middle column
        Op mid = Op.builder(0, OpKind.PartitaSplit).input(f32(0, 2, 3)).output(f32(1, 2, 1)).attr("axis", -1L)
                .attr("index", 1L).attr("num_outputs", 3L).build();
        near(new double[] {-2, 5}, OpRunner.run(mid, R23).get(0));
        PartitaException e = assertThrows(PartitaException.class, () -> runDynamic(p1, new long[] {4}, x, d(3, 3)));
        assertTrue(e.getMessage().contains("sums to 6"), e.getMessage());
    }

    private static double[] pad(String mode, long[] src, double[] x, long[] pads, double value, long[] out) {
        Op op = Op.builder(0, OpKind.PartitaPad).inputs(f32(0, src), s64(1, pads.length), f32(2))
                .output(f32(3, out)).attr("mode", mode).build();
        return runDynamic(op, out, x, d(pads), new double[] {value});
    }

    @Test
    void padInEveryModeWithCropping() {
        double[] x = {1, 2, 3};
        near(new double[] {9, 9, 1, 2, 3, 9}, pad("constant", new long[] {3}, x, new long[] {2, 1}, 9, new long[] {6}));
        near(new double[] {3, 2, 1, 2, 3, 2, 1}, pad("reflect", new long[] {3}, x, new long[] {2, 2}, 0,
                new long[] {7}));
        near(new double[] {1, 1, 1, 2, 3, 3}, pad("edge", new long[] {3}, x, new long[] {2, 1}, 0, new long[] {6}));
        near(new double[] {2, 3, 1, 2, 3, 1, 2, 3, 1}, pad("wrap", new long[] {3}, x, new long[] {2, 4}, 0,
                new long[] {9}));
        // [2, 3]: crop one column on the left, one zero row below
        near(new double[] {-2, 3, 5, -6, 0, 0}, pad("constant", new long[] {2, 3}, R23, new long[] {0, -1, 1, 0}, 0,
                new long[] {3, 2}));
        // axes input: pad only axis -1
        Op op = Op.builder(0, OpKind.PartitaPad).inputs(f32(0, 2, 3), s64(1, 2), f32(2), s64(3, 1))
                .output(f32(4, 2, 4)).attr("mode", "edge").build();
        near(new double[] {1, -2, 3, 3, -4, 5, -6, -6}, runDynamic(op, new long[] {2, 4}, R23, d(0, 1),
                new double[] {0}, d(-1)));
    }

    @Test
    void padRefusesTheWrongPadCountAndCroppingBelowZero() {
        PartitaException e = assertThrows(PartitaException.class, () -> pad("constant", new long[] {3},
                new double[] {1, 2, 3}, new long[] {1, 1, 1, 1}, 0, new long[] {5}));
        assertTrue(e.getMessage().contains("PartitaPad") && e.getMessage().contains("expected 2"), e.getMessage());
        e = assertThrows(PartitaException.class, () -> pad("constant", new long[] {3}, new double[] {1, 2, 3},
                new long[] {-2, -2}, 0, new long[] {0}));
        assertTrue(e.getMessage().contains("below 0"), e.getMessage());
    }

    @Test
    void tileAndExpand() {
        Op tile = Op.builder(0, OpKind.PartitaTile).inputs(f32(0, 2, 3), s64(1, 2)).output(f32(2, 4, 3)).build();
        near(new double[] {1, -2, 3, -4, 5, -6, 1, -2, 3, -4, 5, -6}, runDynamic(tile, new long[] {4, 3}, R23, d(2, 1)));
        Op tile0 = Op.builder(0, OpKind.PartitaTile).inputs(f32(0, 3), s64(1, 1)).output(f32(2, 0)).build();
        near(new double[0], runDynamic(tile0, new long[] {0}, new double[] {1, 2, 3}, d(0)));
        // [3, 1] expanded to [2, 3, 2]
        Op ex = Op.builder(0, OpKind.PartitaExpand).inputs(f32(0, 3, 1), s64(1, 3)).output(f32(2, 2, 3, 2)).build();
        near(new double[] {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}, runDynamic(ex, new long[] {2, 3, 2},
                new double[] {1, 2, 3}, d(2, 1, 2)));
        // a shape of 1s keeps the larger src dims
        Op keep = Op.builder(0, OpKind.PartitaExpand).inputs(f32(0, 2, 3), s64(1, 1)).output(f32(2, 2, 3)).build();
        near(R23, runDynamic(keep, new long[] {2, 3}, R23, d(1)));
        PartitaException e = assertThrows(PartitaException.class,
                () -> runDynamic(keep, new long[] {2, 3}, R23, d(2)));
        assertTrue(e.getMessage().contains("PartitaExpand") && e.getMessage().contains("does not broadcast"),
                e.getMessage());
    }

    // ---------------------------------------------------------------- Resize / Copy

    private static Op.Builder resizeOp(long[] src, long[] out, boolean sizes, String mode, String coord) {
        Op.Builder b = Op.builder(0, OpKind.PartitaResize).input(f32(0, src));
        if (sizes) {
            b.input(s64(1, src.length));
        }
        return b.output(f32(5, out)).attr("mode", mode).attr("coordinate_transformation_mode", coord);
    }

    private static double[] resizeBySizes(Op.Builder b, long[] out, double[] x, long... sizes) {
        return runDynamic(b.build(), out, x, d(sizes));
    }

    @Test
    void resizeLinearHalfPixelAndAlignCornersAndBilinear() {
        near(new double[] {1, 1.25, 1.75, 2}, resizeBySizes(resizeOp(new long[] {2}, new long[] {4}, true, "linear",
                "half_pixel"), new long[] {4}, new double[] {1, 2}, 4));
        near(new double[] {1, 1.5, 2}, resizeBySizes(resizeOp(new long[] {2}, new long[] {3}, true, "linear",
                "align_corners"), new long[] {3}, new double[] {1, 2}, 3));
        near(new double[] {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}, resizeBySizes(resizeOp(new long[] {2, 2},
                new long[] {3, 3}, true, "linear", "align_corners"), new long[] {3, 3}, new double[] {1, 2, 3, 4}, 3,
                3));
    }

    @Test
    void resizeNearestInEveryRoundingMode() {
        double[] x = {1, 2, 3, 4};
        String[] modes = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
        double[][] expected = {{1, 3}, {2, 4}, {1, 3}, {2, 4}};
        for (int i = 0; i < modes.length; i++) {
            near(expected[i], resizeBySizes(resizeOp(new long[] {4}, new long[] {2}, true, "nearest", "half_pixel")
                    .attr("nearest_mode", modes[i]), new long[] {2}, x, 2));
        }
        // scales attribute, asymmetric floor: each element repeated (Upsample)
        Op up = resizeOp(new long[] {2}, new long[] {6}, false, "nearest", "asymmetric").attr("nearest_mode", "floor")
                .attr("scales", new float[] {3}).build();
        near(new double[] {1, 1, 1, 2, 2, 2}, OpRunner.run(up, new double[] {1, 2}).get(0));
    }

    @Test
    void resizeCubicWithAndWithoutExcludeOutside() {
        double[] x = {1, 2, 3, 4};
        Op cubic = resizeOp(new long[] {4}, new long[] {8}, false, "cubic", "asymmetric")
                .attr("scales", new float[] {2}).build();
        double[] y = OpRunner.run(cubic, x).get(0);
        near(new double[] {1, 2, 3, 4}, new double[] {y[0], y[2], y[4], y[6]});
        assertEquals(1.40625, y[1], 1e-6);
        Op excl = resizeOp(new long[] {4}, new long[] {8}, false, "cubic", "asymmetric")
                .attr("scales", new float[] {2}).attr("exclude_outside", true).build();
        assertEquals(1.5 / 1.09375, OpRunner.run(excl, x).get(0)[1], 1e-6);
    }

    @Test
    void resizeLinearAntialiasWidensTheFilterWhenDownsampling() {
        near(new double[] {1.625, 3.375}, resizeBySizes(resizeOp(new long[] {4}, new long[] {2}, true, "linear",
                "half_pixel").attr("antialias", true), new long[] {2}, new double[] {1, 2, 3, 4}, 2));
    }

    @Test
    void resizeTfCropAndResizeExtrapolatesOutsideTheRoi() {
        Op op = Op.builder(0, OpKind.PartitaResize).inputs(f32(0, 3), s64(1, 1), f32(2, 2)).output(f32(3, 3))
                .attr("mode", "linear").attr("coordinate_transformation_mode", "tf_crop_and_resize")
                .attr("extrapolation_value", 9f).build();
        near(new double[] {2, 3, 9}, runDynamic(op, new long[] {3}, new double[] {1, 2, 3}, d(3),
                new double[] {0.5, 1.5}));
    }

    @Test
    void resizeKeepAspectRatioPolicies() {
        double[] x = {1, 2, 3, 4, 5, 6, 7, 8};
        assertEquals(8, resizeBySizes(resizeOp(new long[] {2, 4}, new long[] {2, 4}, true, "nearest", "asymmetric")
                .attr("keep_aspect_ratio_policy", "not_larger"), new long[] {2, 4}, x, 4, 4).length);
        assertEquals(32, resizeBySizes(resizeOp(new long[] {2, 4}, new long[] {4, 8}, true, "nearest", "asymmetric")
                .attr("keep_aspect_ratio_policy", "not_smaller"), new long[] {4, 8}, x, 4, 4).length);
    }

    @Test
    void resizeRefusesBothOrNeitherSizeSourceAndAStrayRoi() {
        Op both = resizeOp(new long[] {2}, new long[] {4}, true, "linear", "half_pixel")
                .attr("scales", new float[] {2}).build();
        PartitaException e = assertThrows(PartitaException.class, () -> runDynamic(both, new long[] {4},
                new double[] {1, 2}, d(4)));
        assertTrue(e.getMessage().contains("PartitaResize") && e.getMessage().contains("exactly one"), e.getMessage());
        Op roi = Op.builder(0, OpKind.PartitaResize).inputs(f32(0, 3), s64(1, 1), f32(2, 2)).output(f32(3, 3))
                .attr("mode", "linear").build();
        e = assertThrows(PartitaException.class, () -> runDynamic(roi, new long[] {3}, new double[] {1, 2, 3}, d(3),
                new double[] {0, 1}));
        assertTrue(e.getMessage().contains("roi"), e.getMessage());
        e = assertThrows(PartitaException.class, () -> resizeBySizes(resizeOp(new long[] {2}, new long[] {4}, true,
                "nearest", "half_pixel").attr("antialias", true), new long[] {4}, new double[] {1, 2}, 4));
        assertTrue(e.getMessage().contains("antialias"), e.getMessage());
    }

    @Test
    void resizeWithScalesAsAnInputChecksTheDeclaredDims() {
        Op op = Op.builder(0, OpKind.PartitaResize).inputs(f32(0, 2), f32(1, 1)).output(f32(2, 5))
                .attr("mode", "nearest").attr("coordinate_transformation_mode", "asymmetric")
                .attr("nearest_mode", "floor").attr("dst_dims", new long[] {5}).build();
        near(new double[] {1, 1, 1, 2, 2}, runDynamic(op, new long[] {5}, new double[] {1, 2}, new double[] {2.5}));
        PartitaException e = assertThrows(PartitaException.class, () -> runDynamic(op, new long[] {5},
                new double[] {1, 2}, new double[] {2}));
        assertTrue(e.getMessage().contains("PartitaResize") && e.getMessage().contains("declares"), e.getMessage());
        Op noDims = Op.builder(0, OpKind.PartitaResize).inputs(f32(0, 2), f32(1, 1)).output(f32(2, 4))
                .attr("mode", "nearest").build();
        e = assertThrows(PartitaException.class, () -> runDynamic(noDims, new long[] {4}, new double[] {1, 2},
                new double[] {2}));
        assertTrue(e.getMessage().contains("dst_dims"), e.getMessage());
    }

    @Test
    void copyKeepsIntegerValuesExactly() {
        Op op = Op.builder(0, OpKind.PartitaCopy).input(s64(0, 3)).output(s64(1, 3)).build();
        assertArrayEquals(new double[] {-5, 0, 1L << 40}, OpRunner.run(op, new double[] {-5, 0, 1L << 40}).get(0));
    }

    // ---------------------------------------------------------------- TopK / Squeeze / Unsqueeze

    @Test
    void topKLargestAndSmallestWithTiesInIndexOrder() {
        // [2, 4] along the last axis, k = 2
        double[] x = {3, 1, 3, 2, -1, -5, 0, -5};
        Op largest = Op.builder(0, OpKind.PartitaTopK).inputs(f32(0, 2, 4), s64(1, 1))
                .outputs(f32(2, 2, 2), s64(3, 2, 2)).build();
        List<double[]> r = runDynamicAll(largest, x, d(2));
        near(new double[] {3, 3, 0, -1}, r.get(0));
        assertArrayEquals(new double[] {0, 2, 2, 0}, r.get(1));
        Op smallest = Op.builder(0, OpKind.PartitaTopK).inputs(f32(0, 2, 4), s64(1, 1))
                .outputs(f32(2, 1, 4), s64(3, 1, 4)).attr("axis", 0L).attr("largest", false).build();
        List<double[]> s = runDynamicAll(smallest, x, d(1));
        near(new double[] {-1, -5, 0, -5}, s.get(0));
        assertArrayEquals(new double[] {1, 1, 1, 1}, s.get(1));
        PartitaException e = assertThrows(PartitaException.class, () -> runDynamicAll(largest, x, d(5)));
        assertTrue(e.getMessage().contains("PartitaTopK") && e.getMessage().contains("k 5"), e.getMessage());
    }

    @Test
    void squeezeAndUnsqueezeWithAxesAtExecution() {
        Op sq = Op.builder(0, OpKind.PartitaSqueeze).inputs(f32(0, 2, 1, 3, 1), s64(1, 2)).output(f32(2, 2, 3))
                .build();
        near(R23, runDynamic(sq, new long[] {2, 3}, R23, d(-1, 1)));
        Op un = Op.builder(0, OpKind.PartitaUnsqueeze).inputs(f32(0, 2, 3), s64(1, 2)).output(f32(2, 1, 2, 3, 1))
                .build();
        near(R23, runDynamic(un, new long[] {1, 2, 3, 1}, R23, d(0, -1)));
        PartitaException e = assertThrows(PartitaException.class, () -> runDynamic(sq, new long[] {2, 3}, R23,
                d(0, 1)));
        assertTrue(e.getMessage().contains("PartitaSqueeze") && e.getMessage().contains("is not 1"), e.getMessage());
    }

    // ---------------------------------------------------------------- LRN / CumSum / Floor / Ceil

    @Test
    void lrnAcrossChannelsWithAnEvenAndAnOddWindow() {
        // [1, 3, 1]: channels 1, 2, 3; size 2 takes channels c and c + 1; size 3 takes c - 1 .. c + 1
        Op even = Op.builder(0, OpKind.PartitaLRN).input(f32(0, 1, 3, 1)).output(f32(1, 1, 3, 1)).attr("size", 2L)
                .attr("alpha", 2f).attr("beta", 1f).attr("bias", 1f).build();
        near(new double[] {1 / (1 + 5.0), 2 / (1 + 13.0), 3 / (1 + 9.0)},
                OpRunner.run(even, new double[] {1, 2, 3}).get(0));
        Op odd = Op.builder(0, OpKind.PartitaLRN).input(f32(0, 1, 3, 1)).output(f32(1, 1, 3, 1)).attr("size", 3L)
                .attr("alpha", 3f).attr("beta", 0.5f).attr("bias", 2f).build();
        near(new double[] {1 / Math.sqrt(2 + 5), 2 / Math.sqrt(2 + 14), 3 / Math.sqrt(2 + 13)},
                OpRunner.run(odd, new double[] {1, 2, 3}).get(0));
        Op bad = Op.builder(0, OpKind.PartitaLRN).input(f32(0, 1, 3, 1)).output(f32(1, 1, 3, 1)).attr("size", 0L)
                .build();
        PartitaException e = assertThrows(PartitaException.class, () -> OpRunner.run(bad, new double[] {1, 2, 3}));
        assertTrue(e.getMessage().contains("PartitaLRN") && e.getMessage().contains("size 0"), e.getMessage());
    }

    @Test
    void cumSumForwardReverseExclusiveAndNegativeAxis() {
        Op op = Op.builder(0, OpKind.PartitaCumSum).inputs(f32(0, 2, 3), s64(1)).output(f32(2, 2, 3)).build();
        near(new double[] {1, -1, 2, -4, 1, -5}, OpRunner.run(op, R23, new double[] {1}).get(0));
        near(new double[] {1, -2, 3, -3, 3, -3}, OpRunner.run(op, R23, new double[] {-2}).get(0));
        Op rev = Op.builder(0, OpKind.PartitaCumSum).inputs(f32(0, 2, 3), s64(1)).output(f32(2, 2, 3))
                .attr("exclusive", true).attr("reverse", true).build();
        near(new double[] {1, 3, 0, -1, -6, 0}, OpRunner.run(rev, R23, new double[] {1}).get(0));
        PartitaException e = assertThrows(PartitaException.class, () -> OpRunner.run(op, R23, new double[] {2}));
        assertTrue(e.getMessage().contains("PartitaCumSum") && e.getMessage().contains("axis 2"), e.getMessage());
    }

    @Test
    void floorAndCeil() {
        double[] x = {-1.5, -0.5, 0, 0.5, 2, 2.25};
        Op fl = Op.builder(0, OpKind.PartitaFloor).input(f32(0, 6)).output(f32(1, 6)).build();
        near(new double[] {-2, -1, 0, 0, 2, 2}, OpRunner.run(fl, x).get(0));
        Op ce = Op.builder(0, OpKind.PartitaCeil).input(f32(0, 6)).output(f32(1, 6)).build();
        near(new double[] {-1, -0.0, 0, 1, 2, 3}, OpRunner.run(ce, x).get(0));
    }

    // ---------------------------------------------------------------- integer Maximum / Minimum / Select

    @Test
    void integerMaximumMinimumAndSelectWithBroadcasting() {
        LogicalTensor a = LogicalTensor.of(0, DataType.S32, 2, 2);
        LogicalTensor b = LogicalTensor.of(1, DataType.S32, 2);
        Op max = Op.builder(0, OpKind.PartitaMaximum).inputs(a, b).output(LogicalTensor.of(2, DataType.S32, 2, 2))
                .build();
        assertArrayEquals(new double[] {5, 7, 5, 9}, OpRunner.run(max, new double[] {-3, 7, 5, 9},
                new double[] {5, -1}).get(0));
        Op min = Op.builder(0, OpKind.PartitaMinimum).inputs(a, b).output(LogicalTensor.of(2, DataType.S32, 2, 2))
                .build();
        assertArrayEquals(new double[] {-3, -1, 5, -1}, OpRunner.run(min, new double[] {-3, 7, 5, 9},
                new double[] {5, -1}).get(0));
        Op sel = Op.builder(0, OpKind.PartitaSelect).inputs(LogicalTensor.of(0, DataType.BOOLEAN, 2),
                LogicalTensor.of(1, DataType.S64, 2, 2), LogicalTensor.of(2, DataType.S64, 1))
                .output(LogicalTensor.of(3, DataType.S64, 2, 2)).build();
        assertArrayEquals(new double[] {1L << 40, 0, 3, 0}, OpRunner.run(sel, new double[] {1, 0},
                new double[] {1L << 40, 2, 3, 4}, new double[] {0}).get(0));
    }

    @Test
    void booleanReduceMaxIsAnyAndOtherModesAreRefused() {
        Op any = Op.builder(0, OpKind.PartitaReduce).inputs(LogicalTensor.of(0, DataType.BOOLEAN, 2, 2), s64(1, 1))
                .output(LogicalTensor.of(2, DataType.BOOLEAN, 2, 1)).attr("mode", "max").build();
        assertArrayEquals(new double[] {1, 0}, runDynamic(any, new long[] {2, 1}, new double[] {0, 1, 0, 0}, d(1)));
        Op sum = Op.builder(0, OpKind.PartitaReduce).inputs(LogicalTensor.of(0, DataType.BOOLEAN, 2, 2), s64(1, 1))
                .output(LogicalTensor.of(2, DataType.BOOLEAN, 2, 1)).attr("mode", "sum").build();
        PartitaException e = assertThrows(PartitaException.class, () -> runDynamic(sum, new long[] {2, 1},
                new double[] {0, 1, 0, 0}, d(1)));
        assertTrue(e.getMessage().contains("boolean"), e.getMessage());
    }

    @Test
    void everyExtensionKindHasASchemaAKernelAndIsMarkedAsExtension() {
        for (OpKind k : new OpKind[] {OpKind.PartitaArgMax, OpKind.PartitaArgMin, OpKind.PartitaReduce,
            OpKind.PartitaGather, OpKind.PartitaGatherElements, OpKind.PartitaCompare, OpKind.PartitaSlice,
            OpKind.PartitaSplit, OpKind.PartitaPad, OpKind.PartitaTile, OpKind.PartitaExpand, OpKind.PartitaResize,
            OpKind.PartitaCopy, OpKind.PartitaTopK, OpKind.PartitaSqueeze, OpKind.PartitaUnsqueeze, OpKind.PartitaLRN,
            OpKind.PartitaCumSum, OpKind.PartitaFloor, OpKind.PartitaCeil, OpKind.PartitaMaximum, OpKind.PartitaMinimum,
            OpKind.PartitaSelect}) {
            assertNotNull(OpSchemas.find(k), "schema of " + k);
            assertNotNull(RefOps.find(k), "kernel of " + k);
            assertTrue(k.isPartitaExtension(), k.name());
        }
    }

    // ---------------------------------------------------------------- PartitaCast

    private static double[] cast(DataType from, DataType to, double... x) {
        Op op = Op.builder(0, OpKind.PartitaCast).input(LogicalTensor.of(0, from, x.length))
                .output(LogicalTensor.of(1, to, x.length)).build();
        return OpRunner.run(op, x).get(0);
    }

    @Test
    void castTruncatesFloatsToIntegersThenSaturates() {
        assertArrayEquals(new double[] {2, -2, 0, 32767, -32768, 0},
                cast(DataType.F64, DataType.S16, 2.7, -2.7, -0.5, 1e9, -1e9, Double.NaN));
        assertArrayEquals(new double[] {0, 65535, 3}, cast(DataType.F32, DataType.U16, -3.9, 1e6, 3.99));
        assertArrayEquals(new double[] {0x1p63, 0x1p64}, cast(DataType.F64, DataType.U64, 0x1p63, 1e300));
    }

    @Test
    void castBetweenFloatsRoundsToNearestAndKeepsSpecials() {
        double[] y = cast(DataType.F64, DataType.F32, 0.1, Double.POSITIVE_INFINITY, Double.NaN);
        assertEquals((double) 0.1f, y[0]);
        assertEquals(Double.POSITIVE_INFINITY, y[1]);
        assertTrue(Double.isNaN(y[2]));
        assertArrayEquals(new double[] {65535, 7}, cast(DataType.U16, DataType.F64, 65535, 7));
        assertArrayEquals(new double[] {1, 0, 1}, cast(DataType.F64, DataType.BOOLEAN, -0.25, 0, Double.NaN));
    }
}
