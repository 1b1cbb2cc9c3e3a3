package io.partita.backend.acl.internal;

import io.partita.cache.CacheManager;
import io.partita.spi.Backend;
import io.partita.spi.BackendFactory;

/** Plain class path registration ({@code META-INF/services}): the ACL-style backend over the runtime's caches. */
public final class AclBackendFactory implements BackendFactory {

    @Override
    public Backend create(CacheManager caches) {
        return new AclBackend(caches);
    }
}
