package io.partita.cache;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told when a cached constant tensor leaves the cache (evicted, flushed, removed), so a backend
 * that keeps a direct handle to it stops using the handle. Called once, outside the cache's locks.
 */
@ConsumerType
@FunctionalInterface
public interface EvictionListener {
    void evicted(CacheKey key);
}
