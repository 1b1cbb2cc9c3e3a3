package io.partita.testkit.check;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.MemoryLimitException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PropertyType;
import io.partita.graph.Tensor;

/** Seeded inputs: checked against the memory limit before allocation, written straight into memory. */
class RandomInputsTest {
    private static final Engine CPU = Engine.cpu();

    private static Graph add(GraphRuntime rt, LogicalTensor a, LogicalTensor b, LogicalTensor out) {
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.Add).inputs(a, b).output(out).build());
        return g.finalizeGraph();
    }

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    @Test
    void anInputLargerThanTheLimitIsRefusedBeforeAnythingIsAllocated() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        rt.setMemoryLimit(1L << 30);
        long n = 100_000;
        Graph g = add(rt, f32(0, 1, 1, 1), f32(1, n, n, n), f32(2, n, n, n));
        try (Arena arena = Arena.ofConfined()) {
            MemoryLimitException e = assertThrows(MemoryLimitException.class,
                    () -> RandomInputs.forGraph(rt, g, CPU, arena, 1));
            assertEquals("graph input tensor 1 f32[100000,100000,100000] needs 3.6 PiB; the memory limit is 1.0 GiB"
                    + " (set it with the partita.memory.limit property or GraphRuntime.setMemoryLimit)", e.getMessage());
        }
    }

    @Test
    void inputsThatFitAloneButNotTogetherAreRefusedNamingTheLargest() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        rt.setMemoryLimit(6L << 20);
        Graph g = add(rt, f32(0, 1024, 1024), f32(1, 1024, 1024), f32(2, 1024, 1024));
        try (Arena arena = Arena.ofConfined()) {
            MemoryLimitException e = assertThrows(MemoryLimitException.class,
                    () -> RandomInputs.forGraph(rt, g, CPU, arena, 1));
            assertEquals(8L << 20, e.bytes());
            assertTrue(e.getMessage().startsWith("the graph inputs need 8.0 MiB together (the largest is graph input"
                    + " tensor 0 f32[1024,1024] with 4.0 MiB); the memory limit is 6.0 MiB"), e.getMessage());
            rt.setMemoryLimit(8L << 20);
            assertEquals(2, RandomInputs.forGraph(rt, g, CPU, arena, 1).size());
        }
    }

    /** The values are drawn in logical order, so a strided input holds the same values as a dense one. */
    @Test
    void stridedAndDenseInputsGetTheSameLogicalValues() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        long[] dims = {3, 4, 5};
        LogicalTensor columnMajor = LogicalTensor.of(0, DataType.F32, dims, LayoutType.STRIDED, new long[] {1, 3, 12},
                PropertyType.UNDEF);
        Graph dense = add(rt, f32(0, dims), f32(1, dims), f32(2, dims));
        Graph strided = add(rt, columnMajor, f32(1, dims), f32(2, dims));
        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> d = RandomInputs.forGraph(rt, dense, CPU, arena, 7);
            Map<Long, Tensor> s = RandomInputs.forGraph(rt, strided, CPU, arena, 7);
            double[] expected = d.get(0L).toDoubleArray();
            assertArrayEquals(expected, s.get(0L).toDoubleArray());
            // really strided: element [0,1,0] lies 3 floats in, not 5
            assertEquals(expected[5], s.get(0L).data().getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, 3));
            assertTrue(java.util.Arrays.stream(expected).allMatch(v -> v >= -1 && v < 1)
                    && java.util.Arrays.stream(expected).distinct().count() == expected.length, "seeded values in [-1, 1)");
        }
    }

    @Test
    void gatherIndicesAreDrawnWithinTheGatheredAxis() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.PartitaGather).inputs(f32(0, 2, 7), LogicalTensor.of(1, DataType.S64, 50))
                .output(f32(2, 2, 50)).attr("axis", -1L).build());
        g.finalizeGraph();
        try (Arena arena = Arena.ofConfined()) {
            double[] idx = RandomInputs.forGraph(rt, g, CPU, arena, 3).get(1L).toDoubleArray();
            boolean sawNonZero = false;
            for (double v : idx) {
                assertTrue(v >= 0 && v < 7 && v == Math.rint(v), "index " + v);
                sawNonZero |= v != 0;
            }
            assertTrue(sawNonZero);
        }
    }

    @Test
    void topKsKKnownOnlyAtExecutionIsHalfTheAxis() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.PartitaTopK).inputs(f32(0, 3, 9), LogicalTensor.of(1, DataType.S64, 1))
                .outputs(LogicalTensor.of(2, DataType.F32, 3, LogicalTensor.DYNAMIC_DIM),
                        LogicalTensor.of(3, DataType.S64, 3, LogicalTensor.DYNAMIC_DIM))
                .attr("axis", 1L).build());
        g.finalizeGraph();
        try (Arena arena = Arena.ofConfined()) {
            assertArrayEquals(new double[] {4}, RandomInputs.forGraph(rt, g, CPU, arena, 3).get(1L).toDoubleArray());
        }
    }

    @Test
    void sliceParametersWithNoDeclaredOutputTakeWholeAxesAndGivenInputsAreKept() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        LogicalTensor[] params = new LogicalTensor[4];
        for (int i = 0; i < 4; i++) {
            params[i] = LogicalTensor.of(1 + i, DataType.S64, 2);
        }
        g.add(Op.builder(0, OpKind.PartitaSlice).inputs(f32(0, 3, 5), params[0], params[1], params[2], params[3])
                .output(LogicalTensor.of(9, DataType.F32, LogicalTensor.DYNAMIC_DIM, LogicalTensor.DYNAMIC_DIM))
                .build());
        g.finalizeGraph();
        try (Arena arena = Arena.ofConfined()) {
            Tensor steps = Tensor.allocate(params[3], CPU, arena);
            steps.copyFrom(new double[] {2, 3});
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, CPU, arena, 3, Map.of(4L, steps));
            assertArrayEquals(new double[] {0, 0}, in.get(1L).toDoubleArray(), "starts");
            assertArrayEquals(new double[] {Integer.MAX_VALUE, Integer.MAX_VALUE}, in.get(2L).toDoubleArray(), "ends");
            assertArrayEquals(new double[] {0, 1}, in.get(3L).toDoubleArray(), "axes");
            assertSame(steps, in.get(4L), "a given input is used as it is");
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L), List.copyOf(in.keySet()));
        }
    }

    @Test
    void expandShapeAndCumSumAxisKnownOnlyAtExecutionGetValuesThatAlwaysFit() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.PartitaExpand).inputs(f32(0, 3, 1), LogicalTensor.of(1, DataType.S64, 3))
                .output(LogicalTensor.unknownRank(2, DataType.F32)).build());
        g.add(Op.builder(1, OpKind.PartitaCumSum).inputs(f32(3, 2, 5), LogicalTensor.of(4, DataType.S32, 1))
                .output(f32(5, 2, 5)).build());
        g.finalizeGraph();
        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, CPU, arena, 3);
            assertArrayEquals(new double[] {1, 3, 1}, in.get(1L).toDoubleArray(), "the source's dims, a 1 in front");
            assertArrayEquals(new double[] {1}, in.get(4L).toDoubleArray(), "the last axis");
        }
    }

    @Test
    void resizeScalesAreTheDeclaredRatiosOverItsAxesAndReduceAxesFallBackToTheFirstOnes() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.PartitaResize).inputs(f32(0, 1, 1, 4, 5), LogicalTensor.of(1, DataType.F32, 2))
                .output(f32(2, 1, 1, 8, 15)).attr("axes", new long[] {3, 2}).attr("mode", "nearest")
                .attr("dst_dims", new long[] {1, 1, 8, 15}).build());
        g.add(Op.builder(1, OpKind.PartitaReduce).inputs(f32(3, 2, 3, 4), LogicalTensor.of(4, DataType.S64, 1))
                .output(LogicalTensor.unknownRank(5, DataType.F32)).attr("mode", "sum").attr("keep_dims", true)
                .build());
        g.finalizeGraph();
        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, CPU, arena, 3);
            assertArrayEquals(new double[] {3, 2}, in.get(1L).toDoubleArray(), "scales of axes 3 and 2");
            assertArrayEquals(new double[] {0}, in.get(4L).toDoubleArray(), "one axis: the first");
        }
    }

    @Test
    void splitSqueezeUnsqueezeAndTileParametersWithNoDeclaredOutputFitTheSource() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.PartitaSplit).inputs(f32(0, 7, 2), LogicalTensor.of(1, DataType.S64, 3))
                .output(LogicalTensor.unknownRank(2, DataType.F32)).attr("axis", 0L).attr("index", 0L).build());
        g.add(Op.builder(1, OpKind.PartitaSqueeze).inputs(f32(3, 2, 1, 4, 1), LogicalTensor.of(4, DataType.S64, 2))
                .output(LogicalTensor.unknownRank(5, DataType.F32)).build());
        g.add(Op.builder(2, OpKind.PartitaUnsqueeze).inputs(f32(6, 3), LogicalTensor.of(7, DataType.S64, 2))
                .output(LogicalTensor.unknownRank(8, DataType.F32)).build());
        g.add(Op.builder(3, OpKind.PartitaTile).inputs(f32(9, 3, 2), LogicalTensor.of(10, DataType.S64, 2))
                .output(LogicalTensor.unknownRank(11, DataType.F32)).build());
        g.finalizeGraph();
        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, CPU, arena, 3);
            assertArrayEquals(new double[] {3, 2, 2}, in.get(1L).toDoubleArray(), "7 split in 3");
            assertArrayEquals(new double[] {1, 3}, in.get(4L).toDoubleArray(), "the size-1 axes");
            assertArrayEquals(new double[] {0, 1}, in.get(7L).toDoubleArray(), "new leading axes");
            assertArrayEquals(new double[] {1, 1}, in.get(10L).toDoubleArray(), "no repetition");
        }
    }

    @Test
    void reshapeShapesAndUnpoolParametersWithNoDeclaredOutputFitTheSource() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.DynamicReshape).inputs(f32(0, 2, 3, 4), LogicalTensor.of(1, DataType.S64, 2))
                .output(LogicalTensor.unknownRank(2, DataType.F32)).attr("special_zero", false).build());
        g.add(Op.builder(1, OpKind.DynamicReshape).inputs(f32(3, 2, 3), LogicalTensor.of(4, DataType.S64, 4))
                .output(LogicalTensor.unknownRank(5, DataType.F32)).attr("special_zero", false).build());
        g.add(Op.builder(2, OpKind.PartitaMaxUnpool).inputs(f32(6, 1, 2, 2, 2), LogicalTensor.of(7, DataType.S64, 1, 2,
                2, 2), LogicalTensor.of(8, DataType.S64, 4)).output(LogicalTensor.unknownRank(9, DataType.F32))
                .attr("kernel", new long[] {2, 2}).attr("strides", new long[] {2, 2}).build());
        g.finalizeGraph();
        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, CPU, arena, 3);
            assertArrayEquals(new double[] {6, 4}, in.get(1L).toDoubleArray(), "leading dims merged");
            assertArrayEquals(new double[] {1, 1, 2, 3}, in.get(4L).toDoubleArray(), "ones in front");
            assertArrayEquals(new double[] {1, 2, 4, 4}, in.get(8L).toDoubleArray(), "the default unpooled dims");
            for (double v : in.get(7L).toDoubleArray()) {
                assertTrue(v >= 0 && v < 32 && v == Math.rint(v), "flat index " + v + " into 1x2x4x4");
            }
        }
    }

    @Test
    void rangeBoundsKnownOnlyAtExecutionGiveZeroToSeven() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.PartitaRange).inputs(LogicalTensor.of(1, DataType.S32), LogicalTensor.of(2,
                DataType.S32), LogicalTensor.of(3, DataType.S32)).output(LogicalTensor.unknownRank(4, DataType.S32))
                .build());
        g.finalizeGraph();
        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, CPU, arena, 3);
            assertArrayEquals(new double[] {0}, in.get(1L).toDoubleArray(), "start");
            assertArrayEquals(new double[] {8}, in.get(2L).toDoubleArray(), "limit");
            assertArrayEquals(new double[] {1}, in.get(3L).toDoubleArray(), "delta");
        }
    }
}
