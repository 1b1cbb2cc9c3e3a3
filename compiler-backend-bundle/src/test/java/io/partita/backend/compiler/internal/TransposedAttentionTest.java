package io.partita.backend.compiler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/**
 * Attention in JAX's transposed export (the corpus's JAX-MQA form): the first MatMul's output is
 * reshaped and transposed into scores, and the second MatMul contracts over the SoftMax's rows.
 * One partition of the graph compiler, compared with the reference for shapes with one row, rows
 * past one block, keys not a multiple of the vector width, transposed keys, fully masked rows,
 * and from several threads at once; views that do not line up are left to the other backends.
 */
class TransposedAttentionTest {
    private static final GraphRuntime RUNTIME = CorpusAttentionTest.RUNTIME;
    private static final GraphRuntime REFERENCE = GraphRuntime.referenceOnly();
    private static final long OUT = 12;
    private static final long MASK = 6;

    /** Sizes: batch, rows M, heads H, keys J, head dim D, value dim E. */
    record Dims(long b, long m, long h, long j, long d, long e) {
    }

    /**
     * X [B,M,D] x Y [B,D,H*J] (or Y^T [B,H*J,D] with transpose_b), reshape [B,M,H,J], transpose
     * [B,H,M,J], / 8 + mask [B,H,M,J], SoftMax, transpose back, reshape [B,M,H*J], V [B,E,M] x that.
     * {@code mixedBack} reshapes the probabilities without transposing back (another order).
     */
    static void build(Graph g, Dims s, boolean transposeB, boolean infAsZero, boolean mixedBack) {
        long n = s.h() * s.j();
        LogicalTensor y = transposeB ? f32(2, s.b(), n, s.d()) : f32(2, s.b(), s.d(), n);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(1, s.b(), s.m(), s.d()), y).attr("transpose_b", transposeB)
                .output(f32(3, s.b(), s.m(), n)).build());
        g.add(Op.builder(1, OpKind.StaticReshape).input(f32(3, s.b(), s.m(), n))
                .attr("shape", s.b(), s.m(), s.h(), s.j()).attr("special_zero", false)
                .output(f32(4, s.b(), s.m(), s.h(), s.j())).build());
        g.add(Op.builder(2, OpKind.StaticTranspose).input(f32(4, s.b(), s.m(), s.h(), s.j()))
                .attr("order", 0L, 2L, 1L, 3L).output(f32(5, s.b(), s.h(), s.m(), s.j())).build());
        g.add(Op.builder(3, OpKind.Divide).inputs(f32(5, s.b(), s.h(), s.m(), s.j()),
                f32(20, 1)).output(f32(21, s.b(), s.h(), s.m(), s.j())).build());
        g.add(Op.builder(4, OpKind.Add)
                .inputs(f32(21, s.b(), s.h(), s.m(), s.j()), f32(MASK, s.b(), s.h(), s.m(), s.j()))
                .output(f32(7, s.b(), s.h(), s.m(), s.j())).build());
        Op.Builder softmax = Op.builder(5, OpKind.SoftMax).input(f32(7, s.b(), s.h(), s.m(), s.j())).attr("axis", 3L)
                .output(f32(8, s.b(), s.h(), s.m(), s.j()));
        g.add((infAsZero ? softmax.attr("mode", "inf_as_zero") : softmax).build());
        long probs = 8;
        if (!mixedBack) {
            g.add(Op.builder(6, OpKind.StaticTranspose).input(f32(8, s.b(), s.h(), s.m(), s.j()))
                    .attr("order", 0L, 2L, 1L, 3L).output(f32(9, s.b(), s.m(), s.h(), s.j())).build());
            probs = 9;
        }
        long[] pd = mixedBack ? new long[] {s.b(), s.h(), s.m(), s.j()} : new long[] {s.b(), s.m(), s.h(), s.j()};
        g.add(Op.builder(7, OpKind.StaticReshape).input(f32(probs, pd)).attr("shape", s.b(), s.m(), n)
                .attr("special_zero", false).output(f32(10, s.b(), s.m(), n)).build());
        g.add(Op.builder(8, OpKind.MatMul).inputs(f32(11, s.b(), s.e(), s.m()), f32(10, s.b(), s.m(), n))
                .output(f32(OUT, s.b(), s.e(), n)).build());
    }

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    @ParameterizedTest
    @CsvSource({"1,1,1,1,1,1,false", "2,5,3,7,5,3,false", "2,5,3,7,5,3,true", "2,33,2,19,16,9,false",
        "1,70,2,40,8,5,true", "1,64,1,96,64,64,false"})
    void isOnePartitionMatchingTheReference(long b, long m, long h, long j, long d, long e, boolean transposeB) {
        Dims s = new Dims(b, m, h, j, d, e);
        Graph g = graph(RUNTIME, s, transposeB, false, false);
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals(CompilerBackend.ID, parts.get(0).backendId());
        assertEquals(CompilerBackend.TRANSPOSED_ATTENTION, parts.get(0).pattern());
        check(s, transposeB, false, false, 7 + m, null);
    }

    /** A row of -inf scores: zeros with inf_as_zero, NaN in every output it reaches otherwise (as the reference). */
    @ParameterizedTest
    @CsvSource({"true", "false"})
    void fullyMaskedRowsFollowTheSoftmaxMode(boolean infAsZero) {
        Dims s = new Dims(1, 6, 2, 9, 4, 3);
        float[] out = check(s, false, infAsZero, false, 3, mask -> {
            // batch 0, head 1, row 2: every key masked
            for (long k = 0; k < s.j(); k++) {
                mask.put(((1 * s.m() + 2) * s.j() + k), Float.NEGATIVE_INFINITY);
            }
        });
        boolean anyNaN = false;
        for (float v : out) {
            anyNaN |= Float.isNaN(v);
        }
        assertEquals(!infAsZero, anyNaN, "NaN in the output");
    }

    /** Probabilities reshaped back without the transpose are read in another order: not this loop's form. */
    @Test
    void viewsThatDoNotLineUpAreLeftToTheOtherBackends() {
        Dims s = new Dims(1, 4, 2, 4, 3, 2);
        Graph g = graph(RUNTIME, s, false, false, true);
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertFalse(parts.stream().anyMatch(p -> p.backendId().equals(CompilerBackend.ID)), parts.toString());
        check(s, false, false, true, 5, null);
    }

    /**
     * Without batch dims: X [M,D] x Y [D,H*J], reshape [M,H,J], transpose [H,M,J], SoftMax, back to
     * [M,H*J], then V x that with V [E,M] (claimed: the heads are splits of the columns) or V batched
     * [2,E,M] (the second MatMul adds a batch dim the first has not: left to the other backends).
     */
    @ParameterizedTest
    @CsvSource({"false", "true"})
    void unbatchedFormAndAnAddedBatchDim(boolean batchedValues) {
        long m = 9;
        long d = 5;
        long h = 3;
        long j = 7;
        long e = 4;
        long n = h * j;
        java.util.function.Function<GraphRuntime, Graph> build = rt -> {
            Graph g = rt.createGraph(EngineKind.CPU);
            g.add(Op.builder(0, OpKind.MatMul).inputs(f32(1, m, d), f32(2, d, n)).output(f32(3, m, n)).build());
            g.add(Op.builder(1, OpKind.StaticReshape).input(f32(3, m, n)).attr("shape", m, h, j)
                    .attr("special_zero", false).output(f32(4, m, h, j)).build());
            g.add(Op.builder(2, OpKind.StaticTranspose).input(f32(4, m, h, j)).attr("order", 1L, 0L, 2L)
                    .output(f32(5, h, m, j)).build());
            g.add(Op.builder(3, OpKind.SoftMax).input(f32(5, h, m, j)).attr("axis", 2L).output(f32(6, h, m, j)).build());
            g.add(Op.builder(4, OpKind.StaticTranspose).input(f32(6, h, m, j)).attr("order", 1L, 0L, 2L)
                    .output(f32(7, m, h, j)).build());
            g.add(Op.builder(5, OpKind.StaticReshape).input(f32(7, m, h, j)).attr("shape", m, n)
                    .attr("special_zero", false).output(f32(8, m, n)).build());
            LogicalTensor v = batchedValues ? f32(9, 2, e, m) : f32(9, e, m);
            LogicalTensor o = batchedValues ? f32(OUT, 2, e, n) : f32(OUT, e, n);
            g.add(Op.builder(6, OpKind.MatMul).inputs(v, f32(8, m, n)).output(o).build());
            g.finalizeGraph();
            return g;
        };
        Graph g = build.apply(RUNTIME);
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(!batchedValues, parts.stream().anyMatch(p -> p.backendId().equals(CompilerBackend.ID)),
                parts.toString());
        Engine en = Engine.cpu();
        Graph r = build.apply(REFERENCE);
        try (Arena arena = Arena.ofShared(); CompiledGraph rg = REFERENCE.compile(r, PartitionPolicy.DEBUG, en);
                CompiledGraph cg = RUNTIME.compile(g, PartitionPolicy.FUSION, en)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(REFERENCE, r, en, arena, 11);
            OutputComparison.Result res = OutputComparison.compare(rg.execute(new Stream(en), in).get(OUT),
                    cg.execute(new Stream(en), in).get(OUT));
            assertTrue(res.matches(), res.describe());
        }
    }

    /** One compiled partition (partitions, unlike a compiled graph, may be shared) executed from six threads. */
    @Test
    void oneCompiledPartitionFromManyThreads() throws Exception {
        Dims s = new Dims(2, 37, 2, 21, 8, 5);
        List<Partition> parts = graph(RUNTIME, s, false, false, false).partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), parts.toString());
        CompiledPartition cp = parts.get(0).compile(Engine.cpu());
        ExecutorService ex = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 18; t++) {
                long seed = 40 + t;
                fs.add(ex.submit(() -> {
                    Engine e = Engine.cpu();
                    Graph r = graph(REFERENCE, s, false, false, false);
                    try (Arena arena = Arena.ofShared();
                            CompiledGraph rg = REFERENCE.compile(r, PartitionPolicy.DEBUG, e)) {
                        Map<Long, Tensor> in = RandomInputs.forGraph(REFERENCE, r, e, arena, seed);
                        Tensor expected = rg.execute(new Stream(e), in).get(OUT);
                        Tensor actual = Tensor.allocate(cp.outputs().get(0), e, arena);
                        cp.execute(new Stream(e), cp.inputs().stream().map(x -> in.get(x.id())).toList(),
                                List.of(actual));
                        OutputComparison.Result res = OutputComparison.compare(expected, actual);
                        assertTrue(res.matches(), "seed " + seed + ": " + res.describe());
                    }
                }));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            ex.shutdownNow();
        }
    }

    private static Graph graph(GraphRuntime rt, Dims s, boolean transposeB, boolean infAsZero, boolean mixedBack) {
        Graph g = rt.createGraph(EngineKind.CPU);
        build(g, s, transposeB, infAsZero, mixedBack);
        g.finalizeGraph();
        return g;
    }

    /** Edits of the mask: flat index to value. */
    interface MaskEdit {
        void apply(Map<Long, Float> edits);
    }

    private static float[] check(Dims s, boolean transposeB, boolean infAsZero, boolean mixedBack, long seed,
            MaskEdit mask) {
        try (CompiledGraph cg = RUNTIME.compile(graph(RUNTIME, s, transposeB, infAsZero, mixedBack),
                PartitionPolicy.FUSION, Engine.cpu())) {
            return compare(cg, s, transposeB, infAsZero, mixedBack, seed, mask);
        }
    }

    private static float[] compare(CompiledGraph cg, Dims s, boolean transposeB, boolean infAsZero,
            boolean mixedBack, long seed, MaskEdit mask) {
        Engine e = Engine.cpu();
        Graph r = graph(REFERENCE, s, transposeB, infAsZero, mixedBack);
        try (Arena arena = Arena.ofShared(); CompiledGraph rg = REFERENCE.compile(r, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = new HashMap<>(RandomInputs.forGraph(REFERENCE, r, e, arena, seed));
            if (mask != null) {
                Map<Long, Float> edits = new HashMap<>();
                mask.apply(edits);
                Tensor m = in.get(MASK);
                float[] v = m.toFloatArray();
                edits.forEach((i, x) -> v[(int) (long) i] = x);
                m.copyFrom(v);
            }
            Tensor expected = rg.execute(new Stream(e), in).get(OUT);
            Tensor actual = cg.execute(new Stream(e), in).get(OUT);
            OutputComparison.Result res = OutputComparison.compare(expected, actual);
            assertTrue(res.matches(), s + ": " + res.describe());
            return actual.toFloatArray();
        }
    }
}
