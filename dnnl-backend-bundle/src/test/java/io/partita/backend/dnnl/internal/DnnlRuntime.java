package io.partita.backend.dnnl.internal;

import java.util.Map;

import io.partita.cache.internal.CacheManagerImpl;
import io.partita.runtime.RuntimeCore;

/** A runtime with the DNNL-style backend (and the reference) over caches of its own, for tests. */
record DnnlRuntime(CacheManagerImpl caches, DnnlBackend backend, RuntimeCore runtime) implements AutoCloseable {

    static DnnlRuntime create() {
        CacheManagerImpl caches = new CacheManagerImpl(Map.of());
        DnnlBackend backend = new DnnlBackend(caches);
        RuntimeCore runtime = new RuntimeCore(caches);
        runtime.addBackend(backend, backend.defaultRank());
        return new DnnlRuntime(caches, backend, runtime);
    }

    @Override
    public void close() {
        backend.close();
    }
}
