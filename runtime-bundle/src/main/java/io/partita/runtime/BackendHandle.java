package io.partita.runtime;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.partita.graph.BackendInfo;
import io.partita.spi.Backend;

/**
 * The runtime's record of one registered backend, from its registration until it goes away (a
 * rank change keeps the handle, so partitions compiled before it stay tied to it). When the backend
 * goes the handle is marked gone: compilations and executions already running finish, new ones
 * of its partitions fail with {@link io.partita.graph.BackendUnavailableException}, and once the
 * last running one has left, the handle's drop action runs (its cached constants and compiled
 * partitions are removed then, so none a late execution added survives).
 */
public final class BackendHandle {
    private final Backend backend;
    private volatile int rank;
    private volatile boolean gone;
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicBoolean dropped = new AtomicBoolean();
    private final LongAdder compilations = new LongAdder();
    private final LongAdder executions = new LongAdder();
    /** Op kinds of the claims accepted from this backend, and how many ops of each. */
    private final java.util.concurrent.ConcurrentHashMap<String, LongAdder> claimedOps =
            new java.util.concurrent.ConcurrentHashMap<>();
    private volatile Runnable drop = () -> {
    };

    public BackendHandle(Backend backend, int rank) {
        this.backend = backend;
        this.rank = rank;
    }

    void compiled() {
        compilations.increment();
    }

    /** A claim of this backend was accepted for these ops. */
    void claimed(List<io.partita.graph.Op> ops) {
        for (io.partita.graph.Op op : ops) {
            claimedOps.computeIfAbsent(op.kind().name(), k -> new LongAdder()).increment();
        }
    }

    /**
     * Op kinds this backend has claimed since it registered, with the number of ops of each. Backends
     * claim by pattern, so what they take is known from what they took, not from a declared list.
     */
    public java.util.SortedMap<String, Long> claimedOpKinds() {
        java.util.TreeMap<String, Long> out = new java.util.TreeMap<>();
        claimedOps.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    void executed() {
        executions.increment();
    }

    /** Partitions compiled by the backend through this handle. */
    public long compilations() {
        return compilations.sum();
    }

    /** Partition executions started through this handle. */
    public long executions() {
        return executions.sum();
    }

    /** Compilations and executions using the backend now. */
    public int running() {
        return running.get();
    }

    void setRank(int rank) {
        this.rank = rank;
    }

    /**
     * Called before a compilation or execution uses the backend: false when it is gone (nothing
     * runs then); after true, {@link #leave} must follow.
     */
    boolean enter() {
        running.incrementAndGet();
        if (gone) {
            leave();
            return false;
        }
        return true;
    }

    void leave() {
        if (running.decrementAndGet() == 0 && gone) {
            drained();
        }
    }

    /** Marks the backend gone; {@code drop} runs once nothing uses it any more (now, or when the last user leaves). */
    void markGone(Runnable drop) {
        this.drop = drop;
        gone = true;
        if (running.get() == 0) {
            drained();
        }
    }

    private void drained() {
        if (dropped.compareAndSet(false, true)) {
            drop.run();
        }
    }

    public Backend backend() {
        return backend;
    }

    public String id() {
        return backend.id();
    }

    public int rank() {
        return rank;
    }

    public boolean isGone() {
        return gone;
    }

    public BackendInfo info() {
        return new BackendInfo(backend.id(), backend.version(), rank, backend.engineKinds(),
                gone ? BackendInfo.State.GONE : BackendInfo.State.ACTIVE, backend.description());
    }

    @Override
    public String toString() {
        return backend.id() + "@" + rank + (gone ? " (gone)" : "");
    }
}
