package io.partita.cache;

/**
 * A consistent snapshot of one constant tensor cache.
 *
 * @param capacityBytes {@link ConstantTensorCache#UNLIMITED} when unlimited
 * @param hits lookups that found the tensor (possibly still being computed)
 * @param misses lookups that did not
 * @param uncachedMisses misses computed without caching because the cache was full (or disabled)
 * @param evictions tensors that left the cache to make room, by a flush or a removal
 */
public record CacheStats(Device device, CachePolicy policy, long capacityBytes, long sizeBytes, long entries, long hits,
        long misses, long uncachedMisses, long evictions) {

    public String describe() {
        return String.format("%-6s %-8s capacity %s, %s in %d entries, hits %d, misses %d (uncached %d), evictions %d",
                device, policy, capacityBytes == ConstantTensorCache.UNLIMITED ? "unlimited" : mb(capacityBytes),
                mb(sizeBytes), entries, hits, misses, uncachedMisses, evictions);
    }

    private static String mb(long bytes) {
        return bytes >= 1 << 20 ? String.format("%.1f MB", bytes / 1048576.0) : String.format("%.1f KB", bytes / 1024.0);
    }
}
