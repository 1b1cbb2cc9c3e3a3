package io.partita.cache.internal;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import io.partita.cache.ConstantBuffer;
import io.partita.cache.Lease;

/** A lease: gives back its slot count once. */
final class LeaseImpl implements Lease {
    private static final AtomicIntegerFieldUpdater<LeaseImpl> CLOSED =
            AtomicIntegerFieldUpdater.newUpdater(LeaseImpl.class, "closed");

    private final Entry entry;
    private final int slot;
    private volatile int closed;

    LeaseImpl(Entry entry, int slot) {
        this.entry = entry;
        this.slot = slot;
    }

    Entry entry() {
        return entry;
    }

    @Override
    public ConstantBuffer buffer() {
        if (closed != 0) {
            throw new IllegalStateException("lease on " + entry.key + " is closed");
        }
        return entry.await();
    }

    @Override
    public boolean isCached() {
        return entry.cached && !entry.isDead();
    }

    @Override
    public Lease retain() {
        return entry.cached ? entry.tryLease() : null;
    }

    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, 0, 1)) {
            entry.release(slot);
        }
    }

    @Override
    public String toString() {
        return "Lease[" + entry.key + (closed != 0 ? ", closed" : "") + "]";
    }
}
