package io.partita.cache;

import java.util.Arrays;

/** What a constant tensor cache does when a new tensor does not fit. */
public enum CachePolicy {
    /** Keep what is cached; the new tensor is computed but not cached (the design's behaviour, default). */
    NO_EVICT("no_evict"),
    /** Evict the least recently used tensors to make room. */
    LRU("lru"),
    /**
     * Keep the tensors that are most expensive to recompute per byte: evict cheaper ones to make room
     * for a more expensive one, never the other way round.
     */
    COST("cost");

    private final String spelling;

    CachePolicy(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }

    public static CachePolicy fromSpelling(String text) {
        for (CachePolicy p : values()) {
            if (p.spelling.equals(text)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown cache policy '" + text + "': expected one of "
                + Arrays.stream(values()).map(CachePolicy::spelling).toList());
    }

    @Override
    public String toString() {
        return spelling;
    }
}
