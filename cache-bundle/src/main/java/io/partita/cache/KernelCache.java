package io.partita.cache;

import java.util.function.Function;
import java.util.function.Predicate;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A generic LRU cache with a capacity in entries, for primitives, compiled partitions and device
 * programs. One producer per key: concurrent callers of {@link #getOrCreate} for the same key wait
 * for it; a failed creation is not cached. All operations are O(1) (the factory runs outside locks).
 */
@ProviderType
public interface KernelCache<K, V> {
    int DEFAULT_CAPACITY = 1024;

    String name();

    /**
     * The cached value, or the factory's value (cached).
     *
     * @throws KernelCreationException when the factory failed (for this caller or the one it waited for),
     *     when the caller was interrupted while waiting for another caller's factory (its interrupt
     *     status stays set), or when a factory asks for its own key (re-entrant creation)
     */
    V getOrCreate(K key, Function<? super K, ? extends V> factory);

    /** The cached value, or null; counts as a hit or miss. */
    V getIfPresent(K key);

    /**
     * Removes the key's value; a value still being created is not cached when it is done (its
     * askers get it, and the eviction listeners are told).
     */
    boolean remove(K key);

    /** Removes every entry whose key matches (e.g. all keys of a backend that went away). */
    int removeIf(Predicate<? super K> filter);

    int capacity();

    /**
     * A snapshot of the keys whose values are created and cached (not those still being created),
     * for management views; a key may leave the cache right after.
     */
    java.util.List<K> keys();

    /** Sets the capacity; lowering it evicts only the least recently used excess. */
    void setCapacity(int entries);

    int size();

    KernelCacheStats stats();

    /** Listens to entries leaving the cache (evicted or removed). */
    Registration addEvictionListener(KernelEvictionListener<? super K, ? super V> listener);

    /** Told when an entry leaves the cache, outside the cache's locks. */
    @FunctionalInterface
    interface KernelEvictionListener<K, V> {
        void evicted(K key, V value);
    }

    /** Undoes a registration. */
    @FunctionalInterface
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }
}
