package io.partita.backend.compiler.internal;

import io.partita.cache.CacheManager;
import io.partita.spi.Backend;
import io.partita.spi.BackendFactory;

/** Plain class path registration ({@code META-INF/services}): the graph compiler over the runtime's caches. */
public final class CompilerBackendFactory implements BackendFactory {

    @Override
    public Backend create(CacheManager caches) {
        return new CompilerBackend(caches);
    }
}
