package io.partita.runtime;

import java.util.ServiceLoader;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.spi.Backend;

/** Plain class path mode: backends found with {@link ServiceLoader}, ranked by their default rank. */
public final class StandaloneRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneRuntime.class);

    private StandaloneRuntime() {
    }

    public static RuntimeCore discover() {
        RuntimeCore core = new RuntimeCore();
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        for (ServiceLoader.Provider<Backend> p : ServiceLoader.load(Backend.class,
                cl != null ? cl : StandaloneRuntime.class.getClassLoader()).stream().toList()) {
            try {
                Backend b = p.get();
                core.addBackend(b, b.defaultRank());
            } catch (java.util.ServiceConfigurationError | RuntimeException e) {
                LOG.warn("skipping backend {}: {}", p.type().getName(), e.toString());
            }
        }
        return core;
    }

    public static RuntimeCore referenceOnly() {
        return new RuntimeCore();
    }

    /** A runtime with exactly these backends (plus the reference), at their default ranks. */
    public static RuntimeCore of(Backend... backends) {
        RuntimeCore core = new RuntimeCore();
        for (Backend b : backends) {
            core.addBackend(b, b.defaultRank());
        }
        return core;
    }
}
