package io.partita.cache;

import java.lang.foreign.MemorySegment;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The right to use a constant buffer: the buffer stays valid until every lease on it is closed,
 * even if the cache evicts or flushes it meanwhile. Close each lease once (try-with-resources).
 */
@ProviderType
public interface Lease extends AutoCloseable {

    ConstantBuffer buffer();

    /** The buffer's host memory (CPU buffers). */
    default MemorySegment segment() {
        return buffer().segment();
    }

    /** Whether the buffer lives in the cache (false for a miss that found no room, or once evicted). */
    boolean isCached();

    /**
     * Another lease on the same buffer, or null once the buffer has left the cache. Lets a backend
     * keep one long-lived lease as a direct handle and take a cheap lease per execution.
     */
    Lease retain();

    @Override
    void close();
}
