package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.ServiceLoader;

import org.junit.jupiter.api.Test;

import io.partita.cache.CacheManager;

class WarmupTest {

    /**
     * Closing the backend (its bundle stopping) ends the warm-up before returning: a warm-up that
     * outlives its bundle loads classes through a class loader that is gone.
     */
    @Test
    void closingTheBackendEndsTheWarmup() {
        DnnlBackend backend = new DnnlBackend(ServiceLoader.load(CacheManager.class).findFirst().orElseThrow());
        backend.close();
        assertFalse(Warmup.running(), "the warm-up thread still runs after close");
    }

    /**
     * Every warm-up kernel runs: the warm-up thread swallows what a kernel throws (it must never
     * disturb the backend), so a descriptor it builds wrongly would otherwise go unnoticed and leave
     * that route cold.
     */
    @Test
    void everyWarmupKernelRuns() {
        try (Arena arena = Arena.ofConfined()) {
            List<Runnable> shallow = Warmup.shallowKernels(arena);
            for (int i = 0; i < shallow.size(); i++) {
                assertDoesNotThrow(shallow.get(i)::run, "shallow warm-up kernel " + i);
            }
            List<Runnable> kernels = Warmup.kernels(arena);
            for (int i = 0; i < kernels.size(); i++) {
                assertDoesNotThrow(kernels.get(i)::run, "warm-up kernel " + i);
            }
        }
    }
}
