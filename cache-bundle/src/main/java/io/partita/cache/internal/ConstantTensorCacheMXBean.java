package io.partita.cache.internal;

/**
 * JMX view of one constant tensor cache ({@code io.partita:type=ConstantTensorCache,device=cpu.0}):
 * statistics, capacity and policy, the last two settable as through {@link io.partita.cache.CacheManager}.
 */
public interface ConstantTensorCacheMXBean {
    String getDevice();

    /** no_evict, lru or cost. */
    String getPolicy();

    void setPolicy(String policy);

    /** Megabytes, -1 when unlimited. */
    long getCapacityMegabytes();

    /** Megabytes (a smaller capacity flushes the cache, 0 disables it); -1 sets unlimited. */
    void setCapacityMegabytes(long megabytes);

    long getSizeBytes();

    long getEntries();

    long getHits();

    long getMisses();

    long getUncachedMisses();

    long getEvictions();

    /** Hits over lookups since start, 0 before the first lookup. */
    double getHitRate();
}
