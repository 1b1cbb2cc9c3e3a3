package io.partita.backend.acl.internal.memory;

import java.lang.foreign.MemorySegment;

/**
 * A reservation of one pool, for one holder. Once unreserved the handle refuses to give out
 * memory, so a holder that kept it cannot reach a pool now reserved by someone else; a pool that
 * was freed also fails at the segment level (its arena is closed).
 */
public final class PoolHandle {
    private final Pool pool;
    /** True when the pool is not kept after this reservation (over the cap, or its manager was cleared). */
    private final boolean transientPool;
    private volatile boolean released;

    PoolHandle(Pool pool, boolean transientPool) {
        this.pool = pool;
        this.transientPool = transientPool;
    }

    /** The memory of an auxiliary tensor of the plan. */
    public MemorySegment segment(String tensor) {
        if (released) {
            throw new IllegalStateException("auxiliary tensor " + tensor + " requested through a released reservation of "
                    + pool + ": reserve a pool before each run");
        }
        return pool.segment(tensor);
    }

    public Pool pool() {
        return pool;
    }

    boolean isTransient() {
        return transientPool;
    }

    /** Marks the handle released; false if it already was (a second unreserve). */
    synchronized boolean release() {
        if (released) {
            return false;
        }
        released = true;
        return true;
    }

    public boolean isReleased() {
        return released;
    }
}
