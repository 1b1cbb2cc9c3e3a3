package io.partita.backend.acl.internal.memory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of pools kept by all memory managers of one backend, against a cap. A pool that would
 * exceed the cap is still created for the run that needs it but freed right after (never waited
 * for, so a low cap costs allocations, not deadlocks).
 */
public final class PoolBudget {
    private final AtomicLong pooled = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    /** Native pool memory of all managers (kept or used once): allocations, bytes, live bytes and their peak. */
    private final AtomicLong allocations = new AtomicLong();
    private final AtomicLong allocatedBytes = new AtomicLong();
    private final java.util.concurrent.atomic.LongAdder poolNanos = new java.util.concurrent.atomic.LongAdder();
    private final AtomicLong live = new AtomicLong();
    private final AtomicLong peakLive = new AtomicLong();
    private volatile long capBytes;

    public PoolBudget(long capBytes) {
        setCapBytes(capBytes);
    }

    public void setCapBytes(long capBytes) {
        if (capBytes < 0) {
            throw new IllegalArgumentException("pool cap must be >= 0 bytes, got " + capBytes);
        }
        this.capBytes = capBytes;
    }

    public long capBytes() {
        return capBytes;
    }

    /** Counts a pool about to be kept; false when it would exceed the cap. */
    boolean tryRetain(long bytes) {
        while (true) {
            long now = pooled.get();
            if (now + bytes > capBytes) {
                return false;
            }
            if (pooled.compareAndSet(now, now + bytes)) {
                peak.accumulateAndGet(now + bytes, Math::max);
                return true;
            }
        }
    }

    void release(long bytes) {
        long left = pooled.addAndGet(-bytes);
        if (left < 0) {
            throw new IllegalStateException("pooled bytes fell below zero (" + left + "): a pool was released twice");
        }
    }

    /** Bytes in kept pools now (free and reserved). */
    public long pooledBytes() {
        return pooled.get();
    }

    public long peakPooledBytes() {
        return peak.get();
    }

    /** Counts time spent allocating or freeing a pool's native memory (arena, allocation, close). */
    void spent(long nanos) {
        poolNanos.add(nanos);
    }

    /**
     * Nanoseconds spent allocating and freeing pools so far, by every thread: all that a memory
     * manager which keeps its pools can save over one that allocates per run.
     */
    public long poolNanos() {
        return poolNanos.sum();
    }

    /** Counts a pool's native memory being allocated (by either memory manager). */
    void allocated(long bytes) {
        allocations.incrementAndGet();
        allocatedBytes.addAndGet(bytes);
        peakLive.accumulateAndGet(live.addAndGet(bytes), Math::max);
    }

    /** Counts a pool's native memory being freed. */
    void freed(long bytes) {
        live.addAndGet(-bytes);
    }

    /** Pools allocated so far, kept or used once: with cached managers it stops growing in steady state. */
    public long poolAllocations() {
        return allocations.get();
    }

    /** Native bytes of all pools allocated so far. */
    public long poolBytesAllocated() {
        return allocatedBytes.get();
    }

    /** Native bytes of the pools alive now (kept, reserved or used once). */
    public long livePoolBytes() {
        return live.get();
    }

    /** Most native pool bytes alive at once: kept pools plus those of runs in flight. */
    public long peakLivePoolBytes() {
        return peakLive.get();
    }
}
