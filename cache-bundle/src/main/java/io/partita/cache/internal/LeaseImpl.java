package io.partita.cache.internal;

import io.partita.cache.ConstantBuffer;
import io.partita.cache.Lease;

/**
 * A lease: gives back its slot count once. Like the buffer it guards, a lease is used and closed by
 * one thread at a time (the design's contract), so closing needs no atomic flag.
 */
final class LeaseImpl implements Lease {
    private final Entry entry;
    private final int slot;
    /** The produced buffer when known at lease time (the hot path), else fetched once ready. */
    private ConstantBuffer buffer;
    private boolean closed;

    LeaseImpl(Entry entry, int slot, ConstantBuffer buffer) {
        this.entry = entry;
        this.slot = slot;
        this.buffer = buffer;
    }

    Entry entry() {
        return entry;
    }

    @Override
    public ConstantBuffer buffer() {
        if (closed) {
            throw new IllegalStateException("lease on " + entry.key + " is closed");
        }
        ConstantBuffer b = buffer;
        if (b == null) {
            b = entry.await();
            buffer = b;
        }
        return b;
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
        if (!closed) {
            closed = true;
            entry.release(slot);
        }
    }

    @Override
    public String toString() {
        return "Lease[" + entry.key + (closed ? ", closed" : "") + "]";
    }
}
