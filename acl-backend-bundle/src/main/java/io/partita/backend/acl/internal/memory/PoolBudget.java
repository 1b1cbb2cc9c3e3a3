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
}
