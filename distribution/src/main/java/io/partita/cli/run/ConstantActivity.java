package io.partita.cli.run;

import java.util.Locale;

import io.partita.cache.CacheManager;
import io.partita.cache.CacheStats;
import io.partita.cache.Device;
import io.partita.graph.Engine;

/**
 * What the constant tensor cache of an engine did between two moments: how many processed
 * constants (reordered weights...) backends produced, their bytes, and how many lookups hit. It
 * shows that the first iteration pays for preparing constants and later ones do not.
 */
record ConstantActivity(long produced, long uncached, long hits, long bytes) {

    static ConstantActivity of(CacheManager caches, Engine engine) {
        CacheStats s = caches.constantTensorCache(Device.of(engine.kind().spelling(), engine.index())).stats();
        return new ConstantActivity(s.misses(), s.uncachedMisses(), s.hits(), s.sizeBytes());
    }

    ConstantActivity since(ConstantActivity earlier) {
        return new ConstantActivity(produced - earlier.produced, uncached - earlier.uncached, hits - earlier.hits,
                bytes - earlier.bytes);
    }

    /** A suffix for a timing line; empty when no backend used the cache. */
    String describe() {
        if (produced == 0 && hits == 0) {
            return "";
        }
        StringBuilder b = new StringBuilder(" (constants: ");
        if (produced > 0) {
            b.append(String.format(Locale.ROOT, "%d prepared, %+.1f MB cached", produced, bytes / 1048576.0));
            if (uncached > 0) {
                b.append(", ").append(uncached).append(" not cached (cache full)");
            }
            b.append(", ");
        }
        return b.append(hits).append(" reused)").toString();
    }
}
