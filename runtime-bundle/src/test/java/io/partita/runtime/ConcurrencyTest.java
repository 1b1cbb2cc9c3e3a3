package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.partita.graph.BackendUnavailableException;
import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testing.Graphs;
import io.partita.testing.TestBackend;

/** Compiled partitions run from many threads at once; backends come and go while graphs are partitioned. */
class ConcurrencyTest {

    @Test
    @Timeout(60)
    void oneCompiledPartitionExecutedByManyThreadsGivesEachThreadItsOwnResult() throws Exception {
        Graph g = Graphs.twoLayers(StandaloneRuntime.of(), 8, 16, 8).finalizeGraph();
        Partition p = g.partitions(PartitionPolicy.FUSION).get(0); // MatMul 8x16 . 16x8
        CompiledPartition cp = p.compile(Engine.cpu());
        int threads = 8;
        int rounds = 40;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            results.add(pool.submit(() -> {
                start.await();
                Engine e = Engine.cpu();
                int checked = 0;
                try (Arena arena = Arena.ofConfined()) {
                    Tensor a = Tensor.allocate(cp.inputs().get(0), e, arena);
                    Tensor b = Tensor.allocate(cp.inputs().get(1), e, arena);
                    Tensor c = Tensor.allocate(cp.outputs().get(0), e, arena);
                    for (int r = 0; r < rounds; r++) {
                        float[] av = new float[8 * 16];
                        float[] bv = new float[16 * 8];
                        for (int i = 0; i < av.length; i++) {
                            av[i] = (i * 31 + seed * 7 + r) % 11 - 5;
                            bv[i] = (i * 17 + seed * 3 + r) % 13 - 6;
                        }
                        a.copyFrom(av);
                        b.copyFrom(bv);
                        cp.execute(new Stream(e), List.of(a, b), List.of(c));
                        float[] expected = new float[64];
                        for (int i = 0; i < 8; i++) {
                            for (int j = 0; j < 8; j++) {
                                float s = 0;
                                for (int k = 0; k < 16; k++) {
                                    s += av[i * 16 + k] * bv[k * 8 + j];
                                }
                                expected[i * 8 + j] = s;
                            }
                        }
                        assertArrayEquals(expected, c.toFloatArray());
                        checked++;
                    }
                }
                return checked;
            }));
        }
        start.countDown();
        int total = 0;
        for (Future<Integer> f : results) {
            total += f.get(50, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertEquals(threads * rounds, total);
    }

    @Test
    @Timeout(60)
    void partitioningStaysConsistentWhileABackendComesAndGoes() throws Exception {
        RuntimeCore rt = StandaloneRuntime.of();
        TestBackend fuse = TestBackend.matmulRelu("fuse", 10);
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        Thread swapper = new Thread(() -> {
            while (!stop.get()) {
                rt.addBackend(fuse, 10);
                Thread.onSpinWait();
                rt.removeBackend(fuse);
            }
        });
        swapper.start();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<int[]>> futures = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            futures.add(pool.submit(() -> {
                int fused = 0;
                int unavailable = 0;
                for (int i = 0; i < 300; i++) {
                    Graph g = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph();
                    List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
                    // Either snapshot is fine, never a mix that loses or duplicates ops.
                    int ops = parts.stream().mapToInt(p -> p.ops().size()).sum();
                    if (ops != 4 || !(parts.size() == 2 || parts.size() == 4)) {
                        failures.add(new AssertionError("bad partitioning " + parts));
                    }
                    if (parts.size() == 2) {
                        fused++;
                        try {
                            parts.get(0).compile(Engine.cpu());
                        } catch (BackendUnavailableException e) {
                            unavailable++; // the backend left between partitioning and compiling: documented
                        }
                    }
                }
                return new int[] {fused, unavailable};
            }));
        }
        for (Future<int[]> f : futures) {
            f.get(50, TimeUnit.SECONDS);
        }
        stop.set(true);
        swapper.join(10_000);
        pool.shutdown();
        assertTrue(failures.isEmpty(), () -> failures.peek().toString());
    }
}
