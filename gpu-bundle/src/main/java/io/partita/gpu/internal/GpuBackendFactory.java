package io.partita.gpu.internal;

import io.partita.cache.CacheManager;
import io.partita.spi.Backend;
import io.partita.spi.BackendFactory;

/** Plain class path registration ({@code META-INF/services}): the gpu engine over the runtime's caches. */
public final class GpuBackendFactory implements BackendFactory {

    @Override
    public Backend create(CacheManager caches) {
        return new GpuBackend(caches);
    }
}
