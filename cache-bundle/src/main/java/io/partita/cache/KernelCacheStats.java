package io.partita.cache;

/** A snapshot of a kernel cache. */
public record KernelCacheStats(String name, int capacity, int entries, long hits, long misses, long evictions) {

    public String describe() {
        return String.format("%-20s capacity %d, %d entries, hits %d, misses %d, evictions %d", name, capacity, entries,
                hits, misses, evictions);
    }
}
