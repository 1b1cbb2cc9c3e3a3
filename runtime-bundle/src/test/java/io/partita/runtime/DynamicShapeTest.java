package io.partita.runtime;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;
import static io.partita.testing.Graphs.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/** Seed 004 end to end: DYNAMIC_DIM at build, compile, inferOutputs and execute, with its consistency tables. */
class DynamicShapeTest {
    private final Engine cpu = Engine.cpu();

    /** MatMul [dyn,3,5] x [dyn,5,9] -> ReLU, as in the seed's example. */
    private Partition dynamicBatchPartition() {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        LogicalTensor a = f32(0, DYNAMIC_DIM, UNKNOWN_DIM, UNKNOWN_DIM);
        LogicalTensor b = f32(1, DYNAMIC_DIM, UNKNOWN_DIM, UNKNOWN_DIM);
        LogicalTensor c = LogicalTensor.unknownRank(2, io.partita.graph.DataType.F32);
        g.add(Op.builder(0, OpKind.MatMul).inputs(a, b).output(c).build());
        g.finalizeGraph();
        assertEquals(1, g.partitions(PartitionPolicy.FUSION).size());
        return g.partitions(PartitionPolicy.FUSION).get(0);
    }

    @Test
    void dynamicMemSizeIsTheSentinel() {
        assertEquals(LogicalTensor.DYNAMIC_SIZE, f32(0, DYNAMIC_DIM, 4).memSize());
        assertEquals(16, f32(0, 2, 2).memSize());
        assertThrows(IllegalStateException.class, () -> f32(0, UNKNOWN_DIM, 4).memSize());
    }

    @Test
    void compileOnceRunWithDifferentBatches() {
        Partition p = dynamicBatchPartition();
        CompiledPartition cp = p.compile(List.of(f32(0, DYNAMIC_DIM, 3, 5), f32(1, DYNAMIC_DIM, 5, 9)), List.of(), cpu);
        assertArrayEquals(new long[] {DYNAMIC_DIM, 3, 9}, cp.outputs().get(0).dims());
        for (int batch : new int[] {1, 4, 7}) {
            List<LogicalTensor> outs = cp.inferOutputs(List.of(f32(0, batch, 3, 5), f32(1, batch, 5, 9)));
            assertArrayEquals(new long[] {batch, 3, 9}, outs.get(0).dims());
            try (Arena arena = Arena.ofConfined()) {
                Tensor a = Tensor.allocate(f32(0, batch, 3, 5), cpu, arena);
                Tensor b = Tensor.allocate(f32(1, batch, 5, 9), cpu, arena);
                float[] av = new float[batch * 15];
                float[] bv = new float[batch * 45];
                for (int i = 0; i < av.length; i++) {
                    av[i] = (i % 7) - 3;
                }
                for (int i = 0; i < bv.length; i++) {
                    bv[i] = (i % 5) - 2;
                }
                a.copyFrom(av);
                b.copyFrom(bv);
                Tensor c = Tensor.allocate(outs.get(0), cpu, arena);
                cp.execute(new Stream(cpu), List.of(a, b), List.of(c));
                float[] expected = new float[batch * 27];
                for (int n = 0; n < batch; n++) {
                    for (int i = 0; i < 3; i++) {
                        for (int j = 0; j < 9; j++) {
                            float s = 0;
                            for (int k = 0; k < 5; k++) {
                                s += av[n * 15 + i * 5 + k] * bv[n * 45 + k * 9 + j];
                            }
                            expected[n * 27 + i * 9 + j] = s;
                        }
                    }
                }
                assertArrayEquals(expected, c.toFloatArray());
            }
        }
    }

    /**
     * The compiled partition remembers the last inference: executing at one shape, then another,
     * then the first again must check each output against its own shape, never the remembered one,
     * and a refused execution must not leave a wrong memo behind.
     */
    @Test
    void outputChecksFollowEachExecutionsShapeAcrossRepeatsAndChanges() {
        CompiledPartition cp = dynamicBatchPartition()
                .compile(List.of(f32(0, DYNAMIC_DIM, 3, 5), f32(1, DYNAMIC_DIM, 5, 9)), List.of(), cpu);
        Stream s = new Stream(cpu);
        try (Arena arena = Arena.ofConfined()) {
            java.util.function.IntFunction<Tensor[]> at = batch -> new Tensor[] {
                Tensor.allocate(f32(0, batch, 3, 5), cpu, arena), Tensor.allocate(f32(1, batch, 5, 9), cpu, arena),
                Tensor.allocate(f32(2, batch, 3, 9), cpu, arena)};
            for (int batch : new int[] {2, 2, 5, 5, 2, 1, 5}) {
                Tensor[] t = at.apply(batch);
                cp.execute(s, List.of(t[0], t[1]), List.of(t[2]));
                Tensor[] other = at.apply(batch == 5 ? 2 : 5);
                // inputs of this batch with the output of another: refused, naming both shapes
                InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                        () -> cp.execute(s, List.of(t[0], t[1]), List.of(other[2])));
                assertTrue(e.getMessage().contains("but the partition produces f32 [" + batch + ",3,9]"),
                        e.getMessage());
                // and the other batch's own tensors still run after the refusal
                cp.execute(s, List.of(other[0], other[1]), List.of(other[2]));
                assertArrayEquals(new long[] {batch, 3, 9},
                        cp.inferOutputs(List.of(f32(0, batch, 3, 5), f32(1, batch, 5, 9))).get(0).dims());
            }
        }
    }

    @Test
    void staticAtBuildButDynamicAtCompileIsAnError() {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0, 1, 1, 1, 1)).output(f32(1, 1, 1, 1, 1)).build());
        g.finalizeGraph();
        Partition p = g.partitions(PartitionPolicy.FUSION).get(0);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(f32(0, 1, 1, DYNAMIC_DIM, 1)), List.of(), cpu));
        assertTrue(e.getMessage().contains("dim 2 was built as 1 [1,1,1,1]; a dim known at graph build cannot become dynamic"),
                e.getMessage());
    }

    @Test
    void dynamicAtBuildButStaticAtCompileIsAnError() {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0, 1, DYNAMIC_DIM, 1, 1)).output(f32(1, 1, DYNAMIC_DIM, 1, 1)).build());
        g.finalizeGraph();
        Partition p = g.partitions(PartitionPolicy.FUSION).get(0);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(f32(0, 1, 1, 1, 1)), List.of(), cpu));
        assertTrue(e.getMessage().contains("dim 1 was built as DYNAMIC_DIM [1,dyn,1,1] and must stay dynamic"),
                e.getMessage());
    }

    /** Seed 004 §3.3: INT64_MIN at build is "known by compilation", so it cannot turn dynamic there. */
    @Test
    void unknownAtBuildButDynamicAtCompileIsAnError() {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0, UNKNOWN_DIM, 4)).output(f32(1, UNKNOWN_DIM, 4)).build());
        g.finalizeGraph();
        Partition p = g.partitions(PartitionPolicy.FUSION).get(0);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(f32(0, DYNAMIC_DIM, 4)), List.of(), cpu));
        assertTrue(e.getMessage().contains("compile input tensor 0 [dyn,4]: dim 0 was unknown at graph build [?,4]"
                + " and cannot become DYNAMIC_DIM at compilation"), e.getMessage());
        // the same dim given a value compiles
        assertArrayEquals(new long[] {3, 4}, p.compile(List.of(f32(0, 3, 4)), List.of(), cpu).outputs().get(0).dims());
    }

    @Test
    void unknownRankAtBuildButDynamicAtCompileIsAnError() {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.ReLU).input(LogicalTensor.unknownRank(0, io.partita.graph.DataType.F32))
                .output(LogicalTensor.unknownRank(1, io.partita.graph.DataType.F32)).build());
        g.finalizeGraph();
        Partition p = g.partitions(PartitionPolicy.FUSION).get(0);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(f32(0, 2, DYNAMIC_DIM)), List.of(), cpu));
        assertTrue(e.getMessage().contains("dim 1 was unknown at graph build [?rank]"), e.getMessage());
    }

    private Partition dynamicReluPartition() {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0, DYNAMIC_DIM, 3, 5)).output(f32(1, DYNAMIC_DIM, 3, 5)).build());
        g.finalizeGraph();
        return g.partitions(PartitionPolicy.FUSION).get(0);
    }

    private static LogicalTensor strided(long[] dims, long... strides) {
        return LogicalTensor.of(0, io.partita.graph.DataType.F32, dims, io.partita.graph.LayoutType.STRIDED, strides,
                io.partita.graph.PropertyType.UNDEF);
    }

    /** A dynamic stride used to let any other stride through: {@code [dyn,999,1]} compiled. */
    @Test
    void dynamicTensorWithNonDenseExplicitStridesIsAnError() {
        Partition p = dynamicReluPartition();
        long[] dims = {DYNAMIC_DIM, 3, 5};
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(strided(dims, DYNAMIC_DIM, 999, 1)), List.of(), cpu));
        assertEquals("compile input tensor 0 [dyn,3,5] has explicit strides [dyn,999,1]: the stride of dim 0 is dyn"
                + " where dense is 15; a tensor with dynamic dims must be dense: expected strides [15,5,1] or all"
                + " DYNAMIC_DIM", e.getMessage());
        InvalidArgumentException e1 = assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(strided(dims, 15, 999, 1)), List.of(), cpu));
        assertTrue(e1.getMessage().contains("the stride of dim 1 is 999 where dense is 5"), e1.getMessage());
        // placeholders only where the dense stride depends on a dynamic dim
        InvalidArgumentException e2 = assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(strided(dims, 15, DYNAMIC_DIM, 1)), List.of(), cpu));
        assertTrue(e2.getMessage().contains("the stride of dim 1 is dyn where dense is 5"), e2.getMessage());
        // column-major strides of a dynamic tensor
        long[] inner = {3, DYNAMIC_DIM};
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0, inner)).output(f32(1, inner)).build());
        g.finalizeGraph();
        Partition q = g.partitions(PartitionPolicy.FUSION).get(0);
        InvalidArgumentException e3 = assertThrows(InvalidArgumentException.class,
                () -> q.compile(List.of(strided(inner, 1, 3)), List.of(), cpu));
        assertTrue(e3.getMessage().contains("compile input tensor 0 [3,dyn] has explicit strides [1,3]: the stride of"
                + " dim 0 is 1 where dense is dyn"), e3.getMessage());
    }

    @Test
    void dynamicTensorWithAllDynamicOrDenseStridesCompilesAndRuns() {
        long[] dims = {DYNAMIC_DIM, 3, 5};
        long[] unitLast = {DYNAMIC_DIM, 3, 1};
        // dims, explicit strides: all DYNAMIC_DIM; dense; dense with a placeholder where it depends on
        // the dynamic dim; a unit dim's stride addresses nothing else, so any value there is dense
        long[][][] cases = {
            {dims, {DYNAMIC_DIM, DYNAMIC_DIM, DYNAMIC_DIM}},
            {dims, {15, 5, 1}},
            {{3, DYNAMIC_DIM}, {DYNAMIC_DIM, 1}},
            {unitLast, {3, 1, 7}},
        };
        for (long[][] c : cases) {
            long[] d = c[0];
            Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
            g.add(Op.builder(0, OpKind.ReLU).input(f32(0, d)).output(f32(1, d)).build());
            g.finalizeGraph();
            CompiledPartition cp = g.partitions(PartitionPolicy.FUSION).get(0)
                    .compile(List.of(strided(d, c[1])), List.of(), cpu);
            assertArrayEquals(LogicalTensor.denseStrides(d), cp.inputs().get(0).strides(),
                    "compiled strides for " + LogicalTensor.dimsToString(c[1]));
            long[] concrete = d.clone();
            for (int i = 0; i < concrete.length; i++) {
                concrete[i] = concrete[i] == DYNAMIC_DIM ? 2 : concrete[i];
            }
            try (Arena arena = Arena.ofConfined()) {
                Tensor a = Tensor.allocate(f32(0, concrete), cpu, arena);
                float[] av = new float[(int) a.logicalTensor().elementCount()];
                for (int i = 0; i < av.length; i++) {
                    av[i] = i % 2 == 0 ? i : -i;
                }
                a.copyFrom(av);
                Tensor out = Tensor.allocate(cp.inferOutputs(List.of(a.logicalTensor())).get(0), cpu, arena);
                cp.execute(new Stream(cpu), List.of(a), List.of(out));
                float[] expected = new float[av.length];
                for (int i = 0; i < av.length; i++) {
                    expected[i] = Math.max(av[i], 0);
                }
                assertArrayEquals(expected, out.toFloatArray());
            }
        }
    }

    @Test
    void executionShapesFollowTheSeedsConsistencyTable() {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0, 1, 1, DYNAMIC_DIM, 1)).output(f32(1, 1, 1, DYNAMIC_DIM, 1)).build());
        g.finalizeGraph();
        CompiledPartition cp = g.partitions(PartitionPolicy.FUSION).get(0)
                .compile(List.of(f32(0, 1, 1, DYNAMIC_DIM, 1)), List.of(), cpu);
        // cases 1 and 2: fine
        assertArrayEquals(new long[] {1, 1, 1, 1}, cp.inferOutputs(List.of(f32(0, 1, 1, 1, 1))).get(0).dims());
        assertArrayEquals(new long[] {1, 1, 10, 1}, cp.inferOutputs(List.of(f32(0, 1, 1, 10, 1))).get(0).dims());
        // case 3: a static dim changed
        InvalidArgumentException e3 = assertThrows(InvalidArgumentException.class,
                () -> cp.inferOutputs(List.of(f32(0, 1, 10, 10, 1))));
        assertTrue(e3.getMessage().contains("dim 1 is 10 but the partition was compiled for 1"), e3.getMessage());
        // case 4: still dynamic at execution
        InvalidArgumentException e4 = assertThrows(InvalidArgumentException.class,
                () -> cp.inferOutputs(List.of(f32(0, 1, 1, DYNAMIC_DIM, 1))));
        assertTrue(e4.getMessage().contains("dim 2 must be concrete at execution"), e4.getMessage());
    }

    @Test
    void aTensorOverADynamicDimCannotBeCreated() {
        try (Arena arena = Arena.ofConfined()) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> Tensor.allocate(f32(4, DYNAMIC_DIM, 3), cpu, arena));
            assertTrue(e.getMessage().contains("logical tensor 4 with dynamic dims [dyn,3]"), e.getMessage());
        }
    }
}
