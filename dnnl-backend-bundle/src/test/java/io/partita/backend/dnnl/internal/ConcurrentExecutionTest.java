package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.partita.cache.CacheStats;
import io.partita.cache.Device;
import io.partita.cache.internal.CacheManagerImpl;
import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.runtime.RuntimeCore;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/**
 * One compiled partition executed by many threads at once (more threads than cores, all sharing
 * the backend's worker pool): every result must equal the reference's for that thread's input,
 * and each constant must be prepared exactly once — the cache's miss count says how many times.
 */
class ConcurrentExecutionTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();

    private static final int THREADS = 6;
    private static final int ROUNDS = 40;

    private DnnlRuntime dnnl;
    private CacheManagerImpl caches;
    private RuntimeCore runtime;
    private final Engine engine = Engine.cpu();

    @BeforeEach
    void setUp() {
        dnnl = DnnlRuntime.create();
        caches = dnnl.caches();
        runtime = dnnl.runtime();
    }

    @AfterEach
    void tearDown() {
        dnnl.close();
    }

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static LogicalTensor constant(long id, long... dims) {
        return f32(id, dims).withProperty(PropertyType.CONSTANT);
    }

    static void matmulBiasRelu(Graph g) {
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 67, 130), constant(1, 130, 97)).output(f32(2, 67, 97)).build());
        g.add(Op.builder(1, OpKind.BiasAdd).inputs(f32(2, 67, 97), constant(3, 97)).output(f32(4, 67, 97)).build());
        g.add(Op.builder(2, OpKind.ReLU).input(f32(4, 67, 97)).output(f32(5, 67, 97)).build());
    }

    static void convBias(Graph g) {
        g.add(Op.builder(0, OpKind.Convolution).inputs(f32(0, 1, 24, 19, 19), constant(1, 40, 24, 3, 3), constant(2, 40))
                .output(f32(3, 1, 40, 19, 19)).attr("strides", new long[] {1, 1}).attr("dilations", new long[] {1, 1})
                .attr("pads_begin", new long[] {1, 1}).attr("pads_end", new long[] {1, 1})
                .attr("data_format", "NCX").attr("weights_format", "OIX").build());
    }

    /** Conv + own bias + BatchNormInference (all constant: folded) + ReLU. */
    static void convBatchNormRelu(Graph g) {
        convBias(g);
        g.add(Op.builder(1, OpKind.BatchNormInference).inputs(f32(3, 1, 40, 19, 19), constant(4, 40), constant(5, 40),
                constant(6, 40), constant(7, 40)).output(f32(8, 1, 40, 19, 19)).attr("epsilon", 1e-5f)
                .attr("data_format", "NCX").build());
        g.add(Op.builder(2, OpKind.ReLU).input(f32(8, 1, 40, 19, 19)).output(f32(9, 1, 40, 19, 19)).build());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void manyThreadsShareOneFoldedConvolutionPartition() throws Exception {
        hammer(ConcurrentExecutionTest::convBatchNormRelu);
    }

    /**
     * The weights with a BatchNorm folded in are one cache entry made from six constant inputs: new
     * memory for any of them (each RandomInputs call) makes a new entry; the same buffers hit.
     */
    @Test
    void otherBatchNormConstantsGetTheirOwnFoldedEntry() {
        Graph g = graph(ConcurrentExecutionTest::convBatchNormRelu);
        Partition p = single(g);
        CompiledPartition cp = p.compile(p.inputs(), p.outputs(), engine);
        try (Arena arena = Arena.ofShared()) {
            Map<Long, Tensor> first = RandomInputs.forGraph(SCHEMAS, g, engine, arena, 1);
            check(g, p, cp, first, arena);
            check(g, p, cp, first, arena);
            // only the BatchNorm variance changes (other memory, other values): the fold must be redone
            Map<Long, Tensor> second = new java.util.HashMap<>(first);
            second.put(7L, RandomInputs.forGraph(SCHEMAS, g, engine, arena, 2).get(7L));
            check(g, p, cp, second, arena);
            check(g, p, cp, second, arena);
        }
        CacheStats s = stats();
        assertEquals(2, s.misses(), s.describe());
        assertEquals(2, s.hits(), s.describe());
        assertEquals(2, s.entries(), s.describe());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void manyThreadsShareOneMatMulPartition() throws Exception {
        hammer(ConcurrentExecutionTest::matmulBiasRelu);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void manyThreadsShareOneConvolutionPartition() throws Exception {
        hammer(ConcurrentExecutionTest::convBias);
    }

    /** One compiled partition used with two sets of weights: two cache entries, each result from its own weights. */
    @Test
    void otherWeightsGetTheirOwnCacheEntry() {
        Graph g = graph(ConcurrentExecutionTest::matmulBiasRelu);
        Partition p = single(g);
        CompiledPartition cp = p.compile(p.inputs(), p.outputs(), engine);
        try (Arena arena = Arena.ofShared()) {
            for (long seed : new long[] {1, 2, 1, 2}) {
                Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, engine, arena, seed);
                // Each call allocates new buffers: the cache key holds the data handle, not the values,
                // so repeated seeds still make new entries; the second check on the same buffers hits.
                check(g, p, cp, in, arena);
                check(g, p, cp, in, arena);
            }
        }
        CacheStats s = stats();
        // 4 distinct weight buffers (one per RandomInputs call), each prepared once and reused once
        assertEquals(4, s.misses(), s.describe());
        assertEquals(4, s.hits(), s.describe());
        assertEquals(4, s.entries(), s.describe());
    }

    /**
     * Weights in an arena that is closed, then new weights in a new arena (the allocator often
     * hands out the same address again): each round must use its own weights, and the entries of
     * released memory leave the cache.
     */
    @Test
    void weightsInReleasedMemoryAreNeverReused() {
        Graph g = graph(ConcurrentExecutionTest::matmulBiasRelu);
        Partition p = single(g);
        CompiledPartition cp = p.compile(p.inputs(), p.outputs(), engine);
        java.util.Set<Long> addresses = new java.util.HashSet<>();
        int rounds = 12;
        for (int round = 0; round < rounds; round++) {
            try (Arena arena = Arena.ofShared()) {
                Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, engine, arena, 40 + round);
                addresses.add(in.get(1L).data().address());
                check(g, p, cp, in, arena);
            }
        }
        CacheStats s = stats();
        assertEquals(rounds, s.misses(), "one preparation per round: " + s.describe());
        // the packed weights of the last round stay; earlier rounds' were dropped on the next miss
        assertEquals(1, s.entries(), "entries of released memory are dropped: " + s.describe() + ", weights at "
                + addresses.size() + " distinct addresses");
    }

    private void hammer(Consumer<Graph> build) throws Exception {
        Graph g = graph(build);
        Partition p = single(g);
        CompiledPartition cp = p.compile(p.inputs(), p.outputs(), engine);
        try (Arena arena = Arena.ofShared()) {
            Map<Long, Tensor> shared = RandomInputs.forGraph(SCHEMAS, g, engine, arena, 7);
            // Each thread: the shared constant inputs, its own activation input, its expected output.
            List<List<Tensor>> inputs = new ArrayList<>();
            List<double[]> expected = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Map<Long, Tensor> own = RandomInputs.forGraph(SCHEMAS, g, engine, arena, 100 + t);
                List<Tensor> in = new ArrayList<>();
                for (LogicalTensor lt : p.inputs()) {
                    in.add(lt.property() == PropertyType.CONSTANT ? shared.get(lt.id()) : own.get(lt.id()));
                }
                inputs.add(in);
                expected.add(reference(g, p, in, arena));
            }
            CyclicBarrier start = new CyclicBarrier(THREADS);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int me = t;
                    done.add(pool.submit(() -> {
                        Tensor out = Tensor.allocate(cp.outputs().get(0), engine, arena);
                        start.await();
                        for (int r = 0; r < ROUNDS; r++) {
                            out.copyFrom(new double[(int) out.logicalTensor().elementCount()]);
                            cp.execute(new Stream(engine), inputs.get(me), List.of(out));
                            OutputComparison.Result res = OutputComparison.compare(expected.get(me), out.toDoubleArray(),
                                    1e-5, 1e-4);
                            assertTrue(res.matches(), "thread " + me + " round " + r + ": " + res.describe());
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(100, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
        }
        CacheStats s = stats();
        assertEquals(1, s.misses(), "the packed weights are prepared exactly once: " + s.describe());
        assertEquals(0, s.uncachedMisses(), s.describe());
        assertEquals((long) THREADS * ROUNDS - 1, s.hits(), "every other execution reuses them: " + s.describe());
        assertEquals(1, s.entries(), s.describe());
    }

    private CacheStats stats() {
        return caches.constantTensorCache(Device.CPU).stats();
    }

    private Graph graph(Consumer<Graph> build) {
        Graph g = runtime.createGraph(EngineKind.CPU);
        build.accept(g);
        g.finalizeGraph();
        return g;
    }

    private static Partition single(Graph g) {
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals("dnnl", parts.get(0).backendId());
        return parts.get(0);
    }

    /** The output the reference backend computes for these partition inputs. */
    private double[] reference(Graph g, Partition p, List<Tensor> in, Arena arena) {
        GraphRuntime ref = GraphRuntime.referenceOnly();
        Graph r = ref.createGraph(EngineKind.CPU);
        for (Op op : g.ops()) {
            r.add(op);
        }
        r.finalizeGraph();
        try (var cg = ref.compile(r, PartitionPolicy.DEBUG, engine)) {
            Map<Long, Tensor> byId = new java.util.HashMap<>();
            for (int i = 0; i < in.size(); i++) {
                byId.put(p.inputs().get(i).id(), in.get(i));
            }
            return cg.execute(new Stream(engine), byId).get(p.outputs().get(0).id()).toDoubleArray();
        }
    }

    private void check(Graph g, Partition p, CompiledPartition cp, Map<Long, Tensor> byId, Arena arena) {
        List<Tensor> in = p.inputs().stream().map(lt -> byId.get(lt.id())).toList();
        Tensor out = Tensor.allocate(cp.outputs().get(0), engine, arena);
        cp.execute(new Stream(engine), in, List.of(out));
        OutputComparison.Result res = OutputComparison.compare(reference(g, p, in, arena), out.toDoubleArray(), 1e-5, 1e-4);
        assertTrue(res.matches(), res.describe());
    }
}
