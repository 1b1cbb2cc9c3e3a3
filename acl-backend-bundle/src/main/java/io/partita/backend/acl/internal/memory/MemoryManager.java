package io.partita.backend.acl.internal.memory;

import java.util.ArrayList;
import java.util.List;

/**
 * Hands out pools laid out by one operator's {@link BlobPlan}. Thread-safe: every concurrent run
 * reserves its own pool, so no two runs share scratch memory.
 */
public interface MemoryManager {

    BlobPlan plan();

    /** A pool for the caller alone until {@link #unreservePool}. */
    PoolHandle reservePool();

    /** Gives the pool back; a handle can be unreserved once. */
    void unreservePool(PoolHandle handle);

    default List<PoolHandle> reservePools(int count) {
        List<PoolHandle> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(reservePool());
        }
        return out;
    }

    default void unreservePools(List<PoolHandle> handles) {
        handles.forEach(this::unreservePool);
    }

    /** Frees every pool (reserved ones once they come back); the manager's owner is going away. */
    void clear();

    /** Pools created so far: with the cached manager it stops growing in steady state. */
    long poolsCreated();

    static void requireNotReleased(PoolHandle handle) {
        if (!handle.release()) {
            throw new IllegalStateException(handle.pool() + " unreserved twice through the same handle");
        }
    }
}
