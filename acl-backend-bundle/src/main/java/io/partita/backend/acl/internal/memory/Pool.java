package io.partita.backend.acl.internal.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One pool: native memory laid out by a {@link BlobPlan}, in its own shared arena. Closing it
 * closes the arena, so every segment sliced from it fails on access ({@link IllegalStateException})
 * instead of reading memory handed to someone else.
 */
public final class Pool {
    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private final Arena arena;
    private final MemorySegment memory;
    private final BlobPlan plan;
    /** Counts the allocation and the free; null for none. */
    private final PoolBudget stats;

    Pool(BlobPlan plan) {
        this(plan, null);
    }

    Pool(BlobPlan plan, PoolBudget stats) {
        this.plan = plan;
        this.stats = stats;
        long t0 = System.nanoTime();
        this.arena = Arena.ofShared();
        this.memory = arena.allocate(Math.max(1, plan.poolBytes()), BlobLifetimeManager.ALIGNMENT);
        if (stats != null) {
            stats.spent(System.nanoTime() - t0);
            stats.allocated(plan.poolBytes());
        }
    }

    public long id() {
        return id;
    }

    public long byteSize() {
        return plan.poolBytes();
    }

    public BlobPlan plan() {
        return plan;
    }

    /** The memory of an auxiliary tensor: its blob, cut to the tensor's size. */
    MemorySegment segment(String tensor) {
        return memory.asSlice(plan.offsetOf(tensor), plan.bytesOf(tensor));
    }

    public boolean isAlive() {
        return memory.scope().isAlive();
    }

    void close() {
        long t0 = System.nanoTime();
        arena.close();
        if (stats != null) {
            stats.spent(System.nanoTime() - t0);
            stats.freed(plan.poolBytes());
        }
    }

    @Override
    public String toString() {
        return "pool " + id + " (" + plan.poolBytes() + " bytes, " + plan.blobCount() + " blobs)";
    }
}
