package io.partita.gpu.internal.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.partita.cache.CaptureMemo;
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
import io.partita.gpu.internal.GpuBackend;
import io.partita.runtime.StandaloneRuntime;

/**
 * A compiled partition of the gpu engine records device buffers and pre-bound kernel objects per
 * capture set and replays them: results match the unmemoized path, a buffer change records again,
 * the memo keeps no host memory alive, eviction releases the OpenCL objects, and concurrent calls
 * with different buffers each get an entry of their own.
 */
class GpuKernelMemoTest {
    private static final GpuBackend BACKEND = new GpuBackend(StandaloneRuntime.newCacheManager());
    /** The kernels the backend compiled, last one last. */
    private static final List<GpuKernel> COMPILED = new java.util.concurrent.CopyOnWriteArrayList<>();
    private static final GraphRuntime RT = StandaloneRuntime.of(new io.partita.spi.Backend() {
        @Override
        public String id() {
            return BACKEND.id();
        }

        @Override
        public java.util.Set<EngineKind> engineKinds() {
            return BACKEND.engineKinds();
        }

        @Override
        public int defaultRank() {
            return BACKEND.defaultRank();
        }

        @Override
        public List<io.partita.spi.Claim> claim(io.partita.spi.GraphView graph, PartitionPolicy policy) {
            return BACKEND.claim(graph, policy);
        }

        @Override
        public io.partita.spi.Kernel compile(io.partita.spi.CompileRequest request) {
            GpuKernel k = (GpuKernel) BACKEND.compile(request);
            COMPILED.add(k);
            return k;
        }
    });
    private static final Engine GPU0 = new Engine(EngineKind.GPU, 0);
    private static final Arena WEIGHTS = Arena.ofShared();

    @AfterEach
    void memoOn() {
        CaptureMemo.setEnabled(true);
    }

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    /**
     * x [rows,7] @ w [7,3] (constant) -> ReLU -> SoftMax: one partition of two kernels. Each test
     * takes its own row count, so that it gets a kernel of its own (the runtime caches compiled
     * partitions of equal graphs).
     */
    private static CompiledPartition compile(long rows) {
        Graph g = RT.createGraph(EngineKind.GPU);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, rows, 7), f32(1, 7, 3).withProperty(PropertyType.CONSTANT))
                .output(f32(2, rows, 3)).build());
        g.add(Op.builder(1, OpKind.ReLU).input(f32(2, rows, 3)).output(f32(3, rows, 3)).build());
        g.add(Op.builder(2, OpKind.SoftMax).input(f32(3, rows, 3)).output(f32(4, rows, 3)).attr("axis", -1L).build());
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size());
        return parts.get(0).compile(GPU0);
    }

    private static Tensor tensor(LogicalTensor lt, Arena arena, float seed) {
        Tensor t = Tensor.allocate(lt, GPU0, arena);
        float[] v = new float[(int) lt.elementCount()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) Math.sin(seed + i * 0.37);
        }
        t.copyFrom(v);
        return t;
    }

    private static Tensor weights(CompiledPartition cp) {
        return tensor(cp.inputs().get(1), WEIGHTS, 9);
    }

    /** The output of the unmemoized path for these inputs. */
    private static float[] unmemoized(CompiledPartition cp, Tensor x, Tensor w) {
        boolean was = CaptureMemo.enabled();
        CaptureMemo.setEnabled(false);
        try (Arena a = Arena.ofConfined()) {
            Tensor out = Tensor.allocate(cp.outputs().get(0), GPU0, a);
            cp.execute(new Stream(GPU0), List.of(x, w), List.of(out));
            return out.toFloatArray();
        } finally {
            CaptureMemo.setEnabled(was);
        }
    }

    private static float[] run(CompiledPartition cp, Stream s, Tensor x, Tensor w, Tensor out) {
        cp.execute(s, List.of(x, w), List.of(out));
        return out.toFloatArray();
    }

    @Test
    void replaysMatchTheUnmemoizedPathAndABufferChangeRecordsAgain() {
        CompiledPartition cp = compile(5);
        Tensor w = weights(cp);
        try (Arena arena = Arena.ofShared()) {
            Tensor x = tensor(cp.inputs().get(0), arena, 1);
            Tensor out = Tensor.allocate(cp.outputs().get(0), GPU0, arena);
            Stream s = new Stream(GPU0);
            long rec = GpuKernel.recordedCalls();
            long rep = GpuKernel.replayedCalls();
            float[] want = unmemoized(cp, x, w);
            assertArrayEquals(want, run(cp, s, x, w, out), 1e-6f);
            assertArrayEquals(want, run(cp, s, x, w, out), 1e-6f);
            assertEquals(1, GpuKernel.recordedCalls() - rec);
            assertEquals(1, GpuKernel.replayedCalls() - rep);

            x.copyFrom(new float[(int) x.logicalTensor().elementCount()]); // new contents in the same buffer: replayed, new result
            assertArrayEquals(unmemoized(cp, x, w), run(cp, s, x, w, out), 1e-6f);
            assertEquals(2, GpuKernel.replayedCalls() - rep);

            Tensor y = tensor(cp.inputs().get(0), arena, 2); // another buffer: recorded
            assertArrayEquals(unmemoized(cp, y, w), run(cp, s, y, w, out), 1e-6f);
            Tensor out2 = Tensor.allocate(cp.outputs().get(0), GPU0, arena); // another output buffer too
            assertArrayEquals(unmemoized(cp, y, w), run(cp, s, y, w, out2), 1e-6f);
            assertEquals(3, GpuKernel.recordedCalls() - rec);

            Tensor w2 = tensor(cp.inputs().get(1), arena, 3); // other weights: another device copy, recorded
            assertArrayEquals(unmemoized(cp, x, w2), run(cp, s, x, w2, out), 1e-6f);
            assertEquals(4, GpuKernel.recordedCalls() - rec);
            assertArrayEquals(unmemoized(cp, x, w), run(cp, s, x, w, out), 1e-6f); // the first one again
            assertEquals(4, GpuKernel.recordedCalls() - rec);
        }
    }

    @Test
    void theMemoKeepsNoHostMemoryAlive() throws InterruptedException {
        CompiledPartition cp = compile(6);
        GpuKernel kernel = COMPILED.get(COMPILED.size() - 1);
        Tensor w = weights(cp);
        runInAutoArena(cp, w);
        assertEquals(1, kernel.memo().size());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (kernel.memo().size() > 0 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(0, kernel.memo().size(), "the recording goes with the host memory it captured");
        assertEquals(1, kernel.memo().releasedCount());
    }

    private static void runInAutoArena(CompiledPartition cp, Tensor w) {
        Arena auto = Arena.ofAuto();
        Tensor x = tensor(cp.inputs().get(0), auto, 4);
        Tensor out = Tensor.allocate(cp.outputs().get(0), GPU0, auto);
        assertArrayEquals(unmemoized(cp, x, w), run(cp, new Stream(GPU0), x, w, out), 1e-6f);
    }

    @Test
    void evictionReleasesTheRecordings() {
        CompiledPartition cp = compile(7);
        GpuKernel kernel = COMPILED.get(COMPILED.size() - 1);
        Tensor w = weights(cp);
        int capacity = CaptureMemo.defaultCapacity();
        try (Arena arena = Arena.ofShared()) {
            Stream s = new Stream(GPU0);
            for (int i = 0; i < capacity + 3; i++) {
                Tensor x = tensor(cp.inputs().get(0), arena, 10 + i);
                Tensor out = Tensor.allocate(cp.outputs().get(0), GPU0, arena);
                assertArrayEquals(unmemoized(cp, x, w), run(cp, s, x, w, out), 1e-6f);
                assertTrue(kernel.memo().size() <= capacity, "at most the capacity stays recorded");
            }
            assertEquals(capacity, kernel.memo().size());
            assertEquals(3, kernel.memo().releasedCount(), "evicted recordings released");
        }
    }

    @Test
    void concurrentExecutesWithDifferentBuffersGetEntriesOfTheirOwn() throws Exception {
        CompiledPartition cp = compile(8);
        Tensor w = weights(cp);
        int threads = 4;
        Stream shared = new Stream(GPU0);
        try (Arena arena = Arena.ofShared()) {
            List<Tensor> xs = new ArrayList<>();
            List<float[]> want = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                xs.add(tensor(cp.inputs().get(0), arena, 20 + t));
                want.add(unmemoized(cp, xs.get(t), w));
            }
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<String>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    results.add(pool.submit(() -> {
                        Tensor out = Tensor.allocate(cp.outputs().get(0), GPU0, arena);
                        for (int i = 0; i < 40; i++) {
                            // the same buffers from every thread on odd calls: entries in use are not shared
                            Tensor x = i % 2 == 0 ? xs.get(id) : xs.get(0);
                            float[] expect = i % 2 == 0 ? want.get(id) : want.get(0);
                            Tensor o = i % 2 == 0 ? out : Tensor.allocate(cp.outputs().get(0), GPU0, arena);
                            float[] got = run(cp, i % 3 == 0 ? shared : new Stream(GPU0), x, w, o);
                            for (int k = 0; k < got.length; k++) {
                                if (Math.abs(got[k] - expect[k]) > 1e-6f) {
                                    return "thread " + id + " call " + i + " element " + k + ": " + got[k] + " != "
                                            + expect[k];
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<String> f : results) {
                    String problem = f.get();
                    assertTrue(problem == null, problem);
                }
            } finally {
                pool.shutdown();
            }
        }
    }
}
