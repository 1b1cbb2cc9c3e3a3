package io.partita.benchmarks;

import java.util.ServiceLoader;

import io.partita.cache.CacheManager;
import io.partita.spi.Backend;
import io.partita.spi.BackendFactory;

/** Backends of the class path by id, for benchmarks that set up a runtime of chosen backends, and the class path of child JVMs. */
public final class Backends {
    private Backends() {
    }

    /** The shaded benchmarks jar holding this class, for child JVMs; the JVM's class path when run from classes. */
    public static String classPath() {
        try {
            var src = Backends.class.getProtectionDomain().getCodeSource();
            if (src != null) {
                java.io.File f = new java.io.File(src.getLocation().toURI());
                if (f.isFile()) {
                    return f.getPath();
                }
            }
        } catch (java.net.URISyntaxException | SecurityException e) {
            // fall through
        }
        return System.getProperty("java.class.path");
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
