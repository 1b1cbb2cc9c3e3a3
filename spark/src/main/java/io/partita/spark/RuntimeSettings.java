package io.partita.spark;

import java.io.Serializable;
import java.util.Set;
import java.util.TreeSet;

/**
 * What decides which runtime an executor scores with: the backends kept, the thread count of each
 * CPU engine's pool and the persistent kernel cache. Executors keep one runtime per distinct value
 * (a record, so equal settings share it).
 *
 * @param backends backend ids to keep (empty: every backend on the class path)
 * @param threads threads per engine pool, i.e. per task: concurrent tasks of an executor take turns on
 *     a pool of more than one thread, so this pairs with {@code spark.task.cpus}
 * @param persistentCacheDir the persistent kernel cache directory, or empty to leave the runtime's
 *     environment ({@code PARTITA_PERSISTENT_CACHE_*}, e.g. from {@code spark.executorEnv}) in charge
 * @param persistentCacheMegabytes its capacity (used with a directory)
 */
public record RuntimeSettings(Set<String> backends, int threads, String persistentCacheDir, long persistentCacheMegabytes)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    public RuntimeSettings {
        backends = Set.copyOf(new TreeSet<>(backends));
        persistentCacheDir = persistentCacheDir == null ? "" : persistentCacheDir;
    }
}
