package io.partita.backend.dnnl.internal;

import io.partita.cache.CacheManager;
import io.partita.spi.Backend;
import io.partita.spi.BackendFactory;

/** Plain class path registration ({@code META-INF/services}): the backend over the runtime's caches. */
public final class DnnlBackendFactory implements BackendFactory {

    @Override
    public Backend create(CacheManager caches) {
        return new DnnlBackend(caches);
    }
}
