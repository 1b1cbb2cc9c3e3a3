package io.partita.cache.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

import io.partita.cache.CacheKey;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.ConstantProductionException;
import io.partita.cache.EvictionListener;

/**
 * One constant tensor: its buffer (once produced), the cache's hold on it and the count of open
 * leases. Lease counts live in per-thread-slot counters on separate cache lines, so threads taking
 * leases on the same hot tensor do not contend; a lease gives back to the slot it took from, so
 * every slot counts only open leases and a zero sum (read after the entry is dead) is exact.
 */
final class Entry {
    /** Counters per slot; a power of two, at least twice the cores. */
    static final int SLOTS = Math.max(8, Integer.highestOneBit(Runtime.getRuntime().availableProcessors() * 2 - 1) << 1);
    /** Longs between two counters: 128 bytes, so two counters never share a cache line. */
    private static final int STRIDE = 16;

    final CacheKey key;
    final long size;
    final EvictionListener listener;
    final long seq;
    /** Recompute cost per byte (COST policy); final once produced. */
    volatile double costPerByte;

    /** Counters at (slot + 1) * STRIDE: the array header and whatever follows stay off their cache lines. */
    private final AtomicLongArray leases = new AtomicLongArray((SLOTS + 2) * STRIDE);
    private final CountDownLatch produced = new CountDownLatch(1);
    private volatile ConstantBuffer buffer;
    private volatile Throwable failure;
    /** The thread producing a cached entry, until it is done: the one asker that must not wait. */
    volatile Thread producer;
    /** Set when the cache lets go of the entry; no lease can be taken afterwards. */
    private volatile boolean dead;
    private final AtomicBoolean freed = new AtomicBoolean();
    /** Whether the entry is (still) in the cache, as opposed to a private buffer of a miss without room. */
    final boolean cached;

    // LRU bookkeeping, guarded by the cache's lock (touched is written without it, benignly).
    Entry prev;
    Entry next;
    long listedAt;
    volatile long touched;

    Entry(CacheKey key, long size, double costPerByte, EvictionListener listener, long seq, boolean cached) {
        this.key = key;
        this.size = size;
        this.costPerByte = costPerByte;
        this.listener = listener;
        this.seq = seq;
        this.cached = cached;
    }

    static int slot() {
        return (int) ((Thread.currentThread().threadId() & (SLOTS - 1)) + 1) * STRIDE;
    }

    /** A lease, or null if the entry is dead. */
    LeaseImpl tryLease() {
        int slot = slot();
        leases.getAndIncrement(slot);
        if (dead) {
            release(slot);
            return null;
        }
        ConstantBuffer b = buffer;
        return new LeaseImpl(this, slot, b);
    }

    void release(int slot) {
        leases.getAndDecrement(slot);
        if (dead) {
            maybeFree();
        }
    }

    /** The cache lets go (under its lock, together with removing the entry): no new lease from now on. */
    void markDead() {
        dead = true;
    }

    /** The cache has let go: once no lease is open the buffer is freed. */
    void kill() {
        dead = true;
        maybeFree();
    }

    boolean isDead() {
        return dead;
    }

    private long openLeases() {
        long n = 0;
        for (int i = 1; i <= SLOTS; i++) {
            n += leases.get(i * STRIDE);
        }
        return n;
    }

    private void maybeFree() {
        ConstantBuffer b = buffer;
        if ((b != null || failure != null) && openLeases() == 0 && freed.compareAndSet(false, true) && b != null) {
            b.free();
        }
    }

    void complete(ConstantBuffer b) {
        buffer = b;
        producer = null;
        produced.countDown();
        if (dead) {
            maybeFree();
        }
    }

    void fail(Throwable t) {
        failure = t;
        producer = null;
        produced.countDown();
    }

    boolean isReady() {
        return produced.getCount() == 0;
    }

    /** Waits for the producer (interruptibly); rethrows its failure. */
    ConstantBuffer await() {
        if (produced.getCount() != 0) {
            Thread p = producer;
            if (p == Thread.currentThread()) {
                // Waiting for ourselves would never end.
                throw new ConstantProductionException("constant tensor " + key + ": re-entrant request: its own producer"
                        + " (on thread " + p.getName() + ") asked for it", null);
            }
            try {
                produced.await();
            } catch (InterruptedException e) {
                // A hung producer must not hold its waiters hostage; the producer itself goes on.
                Thread.currentThread().interrupt();
                throw new ConstantProductionException("interrupted while waiting for constant tensor " + key
                        + (p != null ? " (being computed on thread " + p.getName() + ")" : ""), e);
            }
        }
        Throwable t = failure;
        if (t != null) {
            throw new ConstantProductionException("computing constant tensor " + key + " failed: " + t, t);
        }
        return buffer;
    }

    boolean isFreed() {
        return freed.get();
    }

    @Override
    public String toString() {
        return "Entry[" + key + ", " + size + " bytes" + (dead ? ", dead" : "") + "]";
    }
}
