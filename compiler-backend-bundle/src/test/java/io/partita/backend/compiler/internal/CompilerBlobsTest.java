package io.partita.backend.compiler.internal;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static io.partita.backend.compiler.internal.SameResults.assertSameResults;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.cache.CacheManager;
import io.partita.cache.DeviceKind;
import io.partita.cache.PersistentCacheStats;
import io.partita.graph.CacheBlobException;
import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.runtime.StandaloneRuntime;
import io.partita.testkit.check.RandomInputs;

/**
 * The blob API end to end on the graph-compiler backend: a compiled gated MLP's blobs (its generated
 * classes, sealed) make the same compiled partition in a fresh runtime and backend (as another process
 * would) without generating code; damaged blobs and foreign ids are refused; and the persistent store
 * built on them stores on a compile from scratch and loads on the next process's miss.
 */
class CompilerBlobsTest {
    @TempDir
    Path tmp;

    /** A fresh cache manager and compiler backend: what a new process has. */
    private record Process(CacheManager caches, CompilerBackend backend, GraphRuntime runtime) {
        static Process fresh(Path store) {
            CacheManager caches = StandaloneRuntime.newCacheManager();
            if (store != null) {
                caches.setPersistentCacheDirectory(store);
                caches.setPersistentCacheCapacity(16);
                caches.setPersistentCacheEnabled(DeviceKind.CPU, true);
            }
            CompilerBackend b = new CompilerBackend(caches);
            return new Process(caches, b, StandaloneRuntime.of(caches, b));
        }

        Partition mlp(long rows) {
            Graph g = runtime.createGraph(EngineKind.CPU);
            DynamicMlpTest.build(g, 1, rows);
            g.finalizeGraph();
            List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
            assertEquals(1, parts.size(), parts.toString());
            assertEquals(CompilerBackend.ID, parts.get(0).backendId());
            return parts.get(0);
        }
    }

    @Test
    void blobsMakeTheSameCompiledPartitionInAFreshProcessWithoutGeneratingCode() {
        Process first = Process.fresh(null);
        CompiledPartition compiled = first.mlp(DYNAMIC_DIM).compile(Engine.cpu());
        assertFalse(compiled.fromBlobs());
        List<byte[]> blobs = compiled.cacheBlobs();
        assertTrue(blobs.size() >= 2, "at least one generated class and the seal: " + blobs.size());
        byte[] id = compiled.cacheBlobId();

        Process second = Process.fresh(null);
        Partition p = second.mlp(DYNAMIC_DIM);
        assertArrayEquals(id, p.cacheBlobId(p.inputs(), p.outputs(), Engine.cpu()), "same partition, same id");
        CompiledPartition fromBlobs = p.compileFromBlobs(p.inputs(), p.outputs(), Engine.cpu(), id, blobs);
        assertTrue(fromBlobs.fromBlobs());
        assertEquals(0, second.backend().codegenStats().generated(), second.backend().codegenStats().toString());
        assertEquals(blobs.size() - 1, second.backend().codegenStats().loaded());
        assertArrayEquals(id, fromBlobs.cacheBlobId());
        assertEquals(blobs.size(), fromBlobs.cacheBlobs().size(), "a partition made from blobs gives them again");
        for (long rows : new long[] {1, 37}) {
            assertSameResults(run(compiled, rows), run(fromBlobs, rows), "rows " + rows);
        }
    }

    @Test
    void damagedBlobsAndForeignIdsAreRefusedByReason() {
        Process first = Process.fresh(null);
        CompiledPartition compiled = first.mlp(DYNAMIC_DIM).compile(Engine.cpu());
        List<byte[]> blobs = compiled.cacheBlobs();
        byte[] id = compiled.cacheBlobId();
        byte[] staticId = first.mlp(5).compile(Engine.cpu()).cacheBlobId();
        Partition p = Process.fresh(null).mlp(DYNAMIC_DIM);
        Engine cpu = Engine.cpu();

        CacheBlobException x = assertThrows(CacheBlobException.class,
                () -> p.compileFromBlobs(p.inputs(), p.outputs(), cpu, staticId, blobs));
        assertEquals(CacheBlobException.Reason.ID_MISMATCH, x.reason(), x.getMessage());
        assertTrue(x.getMessage().contains("is not this partition's"), x.getMessage());

        List<byte[]> flipped = copy(blobs);
        flipped.get(0)[flipped.get(0).length / 2] ^= 1;
        List<byte[]> truncated = copy(blobs);
        truncated.set(0, java.util.Arrays.copyOf(truncated.get(0), truncated.get(0).length - 7));
        List<byte[]> withoutFirst = copy(blobs).subList(1, blobs.size());
        List<byte[]> withoutSeal = copy(blobs).subList(0, blobs.size() - 1);
        for (List<byte[]> bad : List.of(flipped, truncated, withoutFirst, withoutSeal, List.<byte[]>of())) {
            CacheBlobException d = assertThrows(CacheBlobException.class,
                    () -> p.compileFromBlobs(p.inputs(), p.outputs(), cpu, id, bad));
            assertEquals(CacheBlobException.Reason.DAMAGED, d.reason(), d.getMessage());
        }
        // the blobs themselves are fine
        assertTrue(p.compileFromBlobs(p.inputs(), p.outputs(), cpu, id, blobs).fromBlobs());
    }

    @Test
    void theStoreKeepsBlobsOfACompileFromScratchAndTheNextProcessLoadsThem() {
        Path dir = tmp.resolve("store");
        Process first = Process.fresh(dir);
        CompiledPartition a = first.mlp(DYNAMIC_DIM).compile(Engine.cpu());
        assertFalse(a.fromBlobs());
        PersistentCacheStats s1 = first.caches().persistentCache().stats();
        assertEquals(1, s1.stores(), s1.describe());
        assertEquals(1, s1.misses(), s1.describe());

        Process second = Process.fresh(dir);
        CompiledPartition b = second.mlp(DYNAMIC_DIM).compile(Engine.cpu());
        assertTrue(b.fromBlobs(), "loaded from the store");
        assertEquals(0, second.backend().codegenStats().generated());
        PersistentCacheStats s2 = second.caches().persistentCache().stats();
        assertEquals(1, s2.hits(), s2.describe());
        assertEquals(0, s2.stores(), s2.describe());
        assertSameResults(run(a, 9), run(b, 9));
    }

    /**
     * Six "processes" (fresh caches and backends) over one store compile the same partition at once,
     * each also from several threads: every compile succeeds and computes the same, one entry results
     * and nothing is rejected (stores race; the store keeps the first entry).
     */
    @Test
    void manyRuntimesOverOneStoreCompileTheSamePartitionAtOnce() throws Exception {
        Path dir = tmp.resolve("store");
        float[] expected = run(Process.fresh(null).mlp(DYNAMIC_DIM).compile(Engine.cpu()), 7);
        java.util.concurrent.ExecutorService ex = java.util.concurrent.Executors.newFixedThreadPool(12);
        try {
            List<Process> processes = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                processes.add(Process.fresh(dir));
            }
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(12);
            List<java.util.concurrent.Future<CompiledPartition>> fs = new ArrayList<>();
            for (int t = 0; t < 12; t++) {
                Process p = processes.get(t % 6);
                fs.add(ex.submit(() -> {
                    Partition part = p.mlp(DYNAMIC_DIM);
                    start.await();
                    return part.compile(Engine.cpu());
                }));
            }
            int fromBlobs = 0;
            for (java.util.concurrent.Future<CompiledPartition> f : fs) {
                CompiledPartition cp = f.get(120, java.util.concurrent.TimeUnit.SECONDS);
                fromBlobs += cp.fromBlobs() ? 1 : 0;
                assertSameResults(expected, run(cp, 7));
            }
            long entries = 0;
            long rejected = 0;
            for (Process p : processes) {
                PersistentCacheStats st = p.caches().persistentCache().stats();
                entries = st.entries();
                rejected += st.rejected();
            }
            assertEquals(1, entries, "one partition, one entry");
            assertEquals(0, rejected, "no process saw a half-written entry");
            assertTrue(fromBlobs <= 10, "at least one process compiled: " + fromBlobs);
            assertTrue(Process.fresh(dir).mlp(DYNAMIC_DIM).compile(Engine.cpu()).fromBlobs(), "a later process loads");
        } finally {
            ex.shutdownNow();
        }
    }

    /** An intact entry (the store's checksum passes) whose class the JVM refuses: removed, compiled, replaced. */
    @Test
    void anEntryTheBackendRefusesIsReplacedByAFreshCompile() {
        Path dir = tmp.resolve("store");
        Process first = Process.fresh(dir);
        CompiledPartition a = first.mlp(DYNAMIC_DIM).compile(Engine.cpu());
        byte[] id = a.cacheBlobId();
        List<byte[]> blobs = a.cacheBlobs();
        // a well-sealed list whose class bytes are no class: seal them as the runtime would
        Process forger = Process.fresh(null);
        byte[] notAClass = blobs.get(0).clone();
        int keyLength = java.nio.ByteBuffer.wrap(notAClass).getInt();
        java.util.Arrays.fill(notAClass, 4 + keyLength, notAClass.length, (byte) 7);
        CompiledPartition forged = fakeSealed(forger, id, notAClass);
        assertTrue(first.caches().persistentCache().remove(DeviceKind.CPU, id));
        assertTrue(first.caches().persistentCache().store(DeviceKind.CPU, id, forged.cacheBlobs()));

        Process second = Process.fresh(dir);
        CompiledPartition b = second.mlp(DYNAMIC_DIM).compile(Engine.cpu());
        assertFalse(b.fromBlobs(), "the refused entry is not used");
        assertTrue(second.backend().codegenStats().generated() >= 1);
        PersistentCacheStats s = second.caches().persistentCache().stats();
        assertEquals(1, s.rejects().get(PersistentCacheStats.Reject.REFUSED), s.describe());
        assertEquals(1, s.stores(), "the fresh compile replaced it: " + s.describe());
        assertSameResults(run(a, 4), run(b, 4));
        assertTrue(Process.fresh(dir).mlp(DYNAMIC_DIM).compile(Engine.cpu()).fromBlobs(), "the replacement loads");
    }

    /**
     * A compiled partition whose backend gives exactly these blobs, under the given id: what a forger
     * with write access to a (trusted) store could produce. Built by compiling through a backend whose
     * kernel reports the forged blob.
     */
    private static CompiledPartition fakeSealed(Process p, byte[] id, byte[] blob) {
        io.partita.spi.Backend forging = new io.partita.spi.ForwardingBackend(new CompilerBackend(p.caches())) {
            @Override
            public io.partita.spi.Kernel compile(io.partita.spi.CompileRequest request) {
                io.partita.spi.Kernel real = super.compile(request);
                return new io.partita.spi.Kernel() {
                    @Override
                    public void execute(Stream stream, List<Tensor> inputs, List<Tensor> outputs) {
                        real.execute(stream, inputs, outputs);
                    }

                    @Override
                    public List<byte[]> cacheBlobs() {
                        return List.of(blob);
                    }
                };
            }
        };
        GraphRuntime forger = StandaloneRuntime.of(p.caches(), forging);
        Graph g = forger.createGraph(EngineKind.CPU);
        DynamicMlpTest.build(g, 1, DYNAMIC_DIM);
        g.finalizeGraph();
        CompiledPartition c = g.partitions(PartitionPolicy.FUSION).get(0).compile(Engine.cpu());
        assertArrayEquals(id, c.cacheBlobId(), "the same backend id, version and identity: the same blob id");
        return c;
    }

    private static List<byte[]> copy(List<byte[]> blobs) {
        List<byte[]> c = new ArrayList<>();
        blobs.forEach(b -> c.add(b.clone()));
        return c;
    }

    /** The output for seeded inputs of one row count. */
    private static float[] run(CompiledPartition cp, long rows) {
        GraphRuntime ref = GraphRuntime.referenceOnly();
        Graph g = ref.createGraph(EngineKind.CPU);
        DynamicMlpTest.build(g, 1, rows);
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> in = RandomInputs.forGraph(ref, g, e, arena, 5);
            List<Tensor> ins = cp.inputs().stream().map(t -> in.get(t.id())).toList();
            Tensor out = Tensor.allocate(cp.inferOutputs(ins.stream().map(Tensor::logicalTensor).toList()).get(0), e,
                    arena);
            cp.execute(new Stream(e), ins, List.of(out));
            double[] d = out.toDoubleArray();
            float[] f = new float[d.length];
            for (int i = 0; i < d.length; i++) {
                f[i] = (float) d[i];
            }
            return f;
        }
    }
}
