package io.partita.backend.compiler.internal;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
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
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/**
 * A gated MLP with SiLU and a gate bias, rows dynamic ([B,S,K] with B and S dynamic): compiled
 * once, run for row counts of 1, odd, around the tile's rows, past one row block; constant weights packed once into the
 * unified constant cache; one compiled partition from several threads with different shapes.
 */
class DynamicMlpTest {
    private static final GraphRuntime RUNTIME = CorpusAttentionTest.RUNTIME;
    private static final GraphRuntime REFERENCE = GraphRuntime.referenceOnly();
    private static final long K = 40;
    private static final long N = 70;
    private static final long OUT = 33;

    static void build(Graph g, long b, long s) {
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, b, s, K), constant(1, K, N)).output(f32(10, b, s, N)).build());
        g.add(Op.builder(1, OpKind.Add).inputs(f32(10, b, s, N), constant(2, N)).output(f32(11, b, s, N)).build());
        g.add(Op.builder(2, OpKind.Sigmoid).input(f32(11, b, s, N)).output(f32(12, b, s, N)).build());
        g.add(Op.builder(3, OpKind.Multiply).inputs(f32(11, b, s, N), f32(12, b, s, N)).output(f32(13, b, s, N)).build());
        g.add(Op.builder(4, OpKind.MatMul).inputs(f32(0, b, s, K), constant(3, N, K)).attr("transpose_b", true)
                .output(f32(14, b, s, N)).build());
        g.add(Op.builder(5, OpKind.Multiply).inputs(f32(13, b, s, N), f32(14, b, s, N)).output(f32(15, b, s, N)).build());
        g.add(Op.builder(6, OpKind.MatMul).inputs(f32(15, b, s, N), constant(4, N, OUT)).output(f32(16, b, s, OUT))
                .build());
    }

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static LogicalTensor constant(long id, long... dims) {
        return f32(id, dims).withProperty(PropertyType.CONSTANT);
    }

    static CompiledPartition compileDynamic() {
        Graph g = RUNTIME.createGraph(EngineKind.CPU);
        build(g, DYNAMIC_DIM, DYNAMIC_DIM);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals(CompilerBackend.ID, parts.get(0).backendId());
        assertEquals(CompilerBackend.GATED_MLP, parts.get(0).pattern());
        return parts.get(0).compile(Engine.cpu());
    }

    @Test
    void compiledOnceRunsEveryRowCountWithWeightsPackedOnce() {
        CompiledPartition cp = compileDynamic();
        ConstantTensorCache cache = CorpusAttentionTest.CACHES.constantTensorCache(Device.of("cpu", 0));
        // Row counts around the wide tile's 14 rows and the 140-row block: 14, 15, 141 (two blocks of
        // 71), 280 (two full blocks), 291 (three of 97).
        long[][] shapes = {{1, 1}, {1, 3}, {2, 17}, {1, 32}, {3, 33}, {1, 70}, {1, 14}, {1, 15}, {1, 141}, {2, 140},
            {3, 97}};
        Engine e = Engine.cpu();
        try (Arena weights = Arena.ofShared()) {
            Map<Long, Tensor> constants = null;
            long seed = 1;
            long missesAfterFirst = -1;
            for (long[] shape : shapes) {
                constants = check(cp, shape[0], shape[1], seed++, constants, weights);
                if (missesAfterFirst < 0) {
                    missesAfterFirst = cache.stats().misses();
                }
            }
            assertTrue(missesAfterFirst >= 3, "three weights packed on the first run");
            assertEquals(missesAfterFirst, cache.stats().misses(),
                    "the same constant weights are packed once, whatever the row count");
        }
    }

    @Test
    void oneCompiledPartitionFromManyThreadsWithDifferentShapes() throws Exception {
        CompiledPartition cp = compileDynamic();
        ExecutorService ex = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 24; t++) {
                long b = 1 + t % 3;
                long s = 1 + 7L * t;
                long seed = 100 + t;
                fs.add(ex.submit(() -> {
                    try (Arena a = Arena.ofShared()) {
                        check(cp, b, s, seed, null, a);
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

    /**
     * Runs one shape on the dynamic partition and on the reference compiled for it.
     *
     * @param constants weights to reuse (same memory: the cache must hit), or null for fresh ones
     * @return the weights used
     */
    private static Map<Long, Tensor> check(CompiledPartition cp, long b, long s, long seed, Map<Long, Tensor> constants,
            Arena weights) {
        Graph r = REFERENCE.createGraph(EngineKind.CPU);
        build(r, b, s);
        r.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofShared(); CompiledGraph rg = REFERENCE.compile(r, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = new java.util.HashMap<>(RandomInputs.forGraph(REFERENCE, r, e, arena, seed));
            Map<Long, Tensor> w = constants;
            if (w == null) {
                w = new java.util.HashMap<>();
                for (long id : new long[] {1, 2, 3, 4}) {
                    Tensor t = in.get(id);
                    Tensor copy = Tensor.allocate(t.logicalTensor(), e, weights);
                    copy.data().copyFrom(t.data());
                    w.put(id, copy);
                }
            }
            in.putAll(w);
            Tensor expected = rg.execute(new Stream(e), in).get(16L);
            List<Tensor> ins = cp.inputs().stream().map(t -> in.get(t.id())).toList();
            LogicalTensor outLt = cp.inferOutputs(ins.stream().map(Tensor::logicalTensor).toList()).get(0);
            Tensor actual = Tensor.allocate(outLt, e, arena);
            cp.execute(new Stream(e), ins, List.of(actual));
            OutputComparison.Result res = OutputComparison.compare(expected, actual);
            assertTrue(res.matches(), "B=" + b + " S=" + s + ": " + res.describe());
            return w;
        }
    }
}
