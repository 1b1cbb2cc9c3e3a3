package io.partita.cache;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The constant tensor cache of one device: processed constant tensors (reordered weights, folded
 * scales) shared by all backends, keyed by backend id and backend key. Thread-safe.
 *
 * <p>{@link #getOrAdd} on a hit returns a lease on the cached buffer, waiting if another thread is
 * still computing it. On a miss with room the caller becomes the single producer: it computes the
 * buffer, caches it, and threads asking meanwhile wait for it. A failed producer completes the
 * waiters with its error and removes the entry, so the next caller retries. On a miss without
 * room the caller computes a private buffer, freed when its lease closes.
 */
@ProviderType
public interface ConstantTensorCache {
    /** Capacity of an unlimited cache. */
    long UNLIMITED = Long.MAX_VALUE;

    Device device();

    /** Bytes the cache may hold; {@link #UNLIMITED} by default, 0 when disabled. */
    long capacity();

    CachePolicy policy();

    /** Bytes held, from the declared sizes of cached and in-production tensors; never waits. */
    long size();

    /**
     * The buffer for a key, from the cache or produced now.
     *
     * @param byteSize the size the produced buffer will have (it is checked)
     * @param cost the cost of producing the buffer again (e.g. nanoseconds or bytes read), used by
     *     the {@link CachePolicy#COST} policy; the measured production time counts if larger
     * @param listener told when the cached buffer leaves the cache; may be null
     * @throws ConstantProductionException when the producer (this caller's or the one it waited
     *     for) failed, when the caller was interrupted while waiting for another caller's producer
     *     (its interrupt status stays set), or when a producer asks for its own key (re-entrant)
     */
    Lease getOrAdd(CacheKey key, long byteSize, long cost, BufferProducer producer, EvictionListener listener);

    default Lease getOrAdd(CacheKey key, long byteSize, BufferProducer producer) {
        return getOrAdd(key, byteSize, 0, producer, null);
    }

    /** Removes the key's tensor if cached (its leases stay valid). @return whether it was cached */
    boolean removeIfExist(CacheKey key);

    /** Removes every tensor of a backend (its bundle went away). @return how many */
    int removeBackend(String backendId);

    /** Bytes of the tensors of one backend held now (e.g. 0 once its bundle went away). */
    long sizeBytes(String backendId);

    CacheStats stats();
}
