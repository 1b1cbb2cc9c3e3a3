package io.partita.cache.internal;

/** JMX view of one kernel cache ({@code io.partita:type=KernelCache,name=primitives}); capacity settable. */
public interface KernelCacheMXBean {
    String getName();

    int getCapacity();

    /** Entries (0 or more): as {@link io.partita.cache.CacheManager#setKernelCacheCapacity}. */
    void setCapacity(int entries);

    int getEntries();

    long getHits();

    long getMisses();

    long getEvictions();
}
