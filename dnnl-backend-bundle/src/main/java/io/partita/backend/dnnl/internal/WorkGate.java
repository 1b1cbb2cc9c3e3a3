package io.partita.backend.dnnl.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

/**
 * Lets background work (the {@link Warmup}) give way to real executions: each execution marks the
 * gate, and the background thread waits while the latest mark is more recent than the busy window.
 * Marking is one opaque write of the clock (no fence on the execution path), and nothing once the
 * gate is closed.
 */
final class WorkGate {
    private static final VarHandle LAST;

    static {
        try {
            LAST = MethodHandles.lookup().findVarHandle(WorkGate.class, "last", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long busyNanos;
    private final long sleepMillis;
    private volatile boolean closed;
    /** {@link System#nanoTime} of the latest mark. */
    @SuppressWarnings("unused") // through LAST
    private long last;

    /** A gate that holds back for {@code busyNanos} after a mark, checking every {@code sleepMillis}. */
    WorkGate(long busyNanos, long sleepMillis) {
        if (busyNanos <= 0 || sleepMillis <= 0) {
            throw new IllegalArgumentException("busy window and sleep must be positive, got " + busyNanos + " ns and "
                    + sleepMillis + " ms");
        }
        this.busyNanos = busyNanos;
        this.sleepMillis = sleepMillis;
        this.last = System.nanoTime() - 2 * busyNanos;
    }

    /** A real execution is starting. */
    void mark() {
        if (!closed) {
            LAST.setOpaque(this, System.nanoTime());
        }
    }

    /**
     * Waits until no mark came within the busy window, or {@code stop} says so.
     *
     * @return false when stopped (or interrupted, with the flag set again), true when idle
     */
    boolean awaitIdle(BooleanSupplier stop) {
        while (!stop.getAsBoolean()) {
            if (System.nanoTime() - (long) LAST.getOpaque(this) >= busyNanos) {
                return true;
            }
            try {
                Thread.sleep(sleepMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** Marks are no longer needed (the background work is over): {@link #mark} does nothing. */
    void close() {
        closed = true;
    }
}
