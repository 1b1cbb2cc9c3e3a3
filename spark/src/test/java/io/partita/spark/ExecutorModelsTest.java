package io.partita.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** The executor-wide model holder without Spark: tasks are plain threads here. */
class ExecutorModelsTest {
    private static final Path LINEAR = Path.of(System.getProperty("partita.corpus", "../testdata/corpus"))
            .resolve("onnx-pytorch/test_Linear/model.onnx");

    private static ModelSettings settings(long seed) {
        // the seed only tells these settings apart from other tests' (an ONNX model has no synthetic constants)
        return new ModelSettings("cpu", 16, seed, new RuntimeSettings(Set.of(), 1, "", 0));
    }

    @Test
    void concurrentTasksCompileOnceAndShareTheModel() throws Exception {
        ModelBytes bytes = ModelBytes.of(LINEAR.toString(), Files.readAllBytes(LINEAR));
        ModelSettings s = settings(101);
        int tasks = 8;
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger fetches = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(tasks);
        long before = ExecutorModels.loads();
        try {
            List<Future<ExecutorModels.Acquired>> got = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                got.add(pool.submit(() -> {
                    go.await();
                    return ExecutorModels.acquire(bytes.digest(), s, () -> {
                        fetches.incrementAndGet();
                        return bytes;
                    });
                }));
            }
            go.countDown();
            List<ExecutorModels.Acquired> results = new ArrayList<>();
            for (Future<ExecutorModels.Acquired> f : got) {
                results.add(f.get());
            }
            assertEquals(1, ExecutorModels.loads() - before, "one compile for eight tasks");
            assertEquals(1, fetches.get(), "the model bytes are fetched by the compiling task only");
            assertEquals(1, results.stream().filter(ExecutorModels.Acquired::compiledHere).count());
            for (ExecutorModels.Acquired a : results) {
                assertSame(results.get(0).model(), a.model());
            }
        } finally {
            pool.shutdownNow();
        }
        // other settings are another compiled model; the same ones are not compiled again
        assertTrue(!ExecutorModels.acquire(bytes.digest(), s, () -> bytes).compiledHere());
        assertTrue(ExecutorModels.acquire(bytes.digest(), settings(102), () -> bytes).compiledHere());
    }

    @Test
    void concurrentTasksGetContextsOfTheirOwnFromOneCompile() throws Exception {
        ModelBytes bytes = ModelBytes.of(LINEAR.toString(), Files.readAllBytes(LINEAR));
        LoadedModel m = ExecutorModels.acquire(bytes.digest(), settings(103), () -> bytes).model();
        LoadedModel.Context a = m.acquire();
        LoadedModel.Context b = m.acquire();
        assertTrue(a != b, "two tasks at once never share a compiled graph's buffers");
        m.release(a);
        assertSame(a, m.acquire(), "a released context is reused");
        assertEquals(2, m.contexts());
    }

    @Test
    void aFailedCompileIsReportedAndTriedAgainByTheNextTask() {
        ModelBytes broken = ModelBytes.of("broken.onnx", new byte[] {8, 1, 18, 3, 'a', 'b'});
        ModelSettings s = settings(104);
        RuntimeException first = assertThrows(RuntimeException.class, () -> ExecutorModels.acquire(broken.digest(), s, () -> broken));
        assertTrue(first.getMessage().contains("broken.onnx"), first.getMessage());
        long before = ExecutorModels.loads();
        assertThrows(RuntimeException.class, () -> ExecutorModels.acquire(broken.digest(), s, () -> broken));
        assertEquals(before, ExecutorModels.loads());
    }

    @Test
    void aNewRuntimeOnTheSameCacheDirectoryStartsFromTheStoredKernels(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        // the gated MLP with a dynamic batch is the graph compiler's: generated classes, kept by the store
        Path file = Path.of(System.getProperty("partita.examples", "../examples")).resolve("gated_mlp_dynamic.json");
        ModelBytes bytes = ModelBytes.of(file.toString(), Files.readAllBytes(file));
        String store = dir.resolve("kernels").toString();
        // two thread counts are two runtimes with in-memory caches of their own, as two executors have
        LoadedModel first = ExecutorModels.acquire(bytes.digest(),
                new ModelSettings("cpu", 32, 0, new RuntimeSettings(Set.of(), 1, store, 64)), () -> bytes).model();
        LoadedModel second = ExecutorModels.acquire(bytes.digest(),
                new ModelSettings("cpu", 32, 0, new RuntimeSettings(Set.of(), 2, store, 64)), () -> bytes).model();
        assertEquals(0, first.partitionsFromStore(), "an empty store: compiled from scratch, blobs stored");
        assertTrue(second.partitionsFromStore() >= 1, "the second runtime loads the stored kernels: " + second.partitionsFromStore()
                + " of " + second.partitions());
        assertEquals(ModelSignature.DYNAMIC, second.signature().batch());
        assertEquals(32, second.rowsPerExecution());
    }

    @Test
    void unknownBackendsAndEnginesAreNamed() {
        IllegalArgumentException engine = assertThrows(IllegalArgumentException.class, () -> ModelSettings.parseEngine("tpu"));
        assertEquals("engine 'tpu' is not an engine; expected cpu, gpu or gpu:N", engine.getMessage());
        RuntimeException backend = assertThrows(RuntimeException.class,
                () -> ExecutorModels.runtime(new RuntimeSettings(Set.of("cudnn"), 1, "", 0)));
        assertTrue(backend.getMessage().startsWith("backend 'cudnn' is not on the class path; found ["), backend.getMessage());
    }
}
