package io.partita.spi;

import org.osgi.annotation.versioning.ConsumerType;

import io.partita.cache.CacheManager;

/**
 * Creates a backend on a plain class path, where no service registry injects what it needs.
 * Register it in {@code META-INF/services/io.partita.spi.BackendFactory}; in OSGi the backend's
 * own component is used instead. A backend with no dependencies may register itself as
 * {@code io.partita.spi.Backend} (public no-argument constructor) instead.
 */
@ConsumerType
public interface BackendFactory {

    /**
     * Creates the backend for one runtime.
     *
     * @param caches that runtime's caches: the backend keeps its constants and primitives there
     */
    Backend create(CacheManager caches);
}
