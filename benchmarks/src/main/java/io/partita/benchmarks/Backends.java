package io.partita.benchmarks;

import java.util.ServiceLoader;

import io.partita.cache.CacheManager;
import io.partita.spi.Backend;
import io.partita.spi.BackendFactory;

/** One backend of the class path by id, for benchmarks that set up a runtime of chosen backends. */
public final class Backends {
    private Backends() {
    }

    /** A new instance of backend {@code id} over these caches; the other factories' backends are closed at once. */
    public static Backend byId(String id, CacheManager caches) {
        for (BackendFactory f : ServiceLoader.load(BackendFactory.class)) {
            Backend b = f.create(caches);
            if (b.id().equals(id)) {
                return b;
            }
            b.close();
        }
        throw new IllegalStateException("backend " + id + " is not on the class path");
    }
}
