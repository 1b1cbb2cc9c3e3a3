package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;

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
}
