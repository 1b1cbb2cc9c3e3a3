package io.partita.backend.dnnl.internal.exec;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed team of threads for one engine: the caller takes the first share of a parallel loop and
 * the workers the others.
 *
 * <p>Waiting: when the pool has no more threads than the JVM has processors, an idle worker spins
 * for the next loop, and the caller for the workers' shares, before parking, because inference
 * calls loops back to back and waking a parked thread costs microseconds. The spin is bounded
 * ({@value #SPIN_NANOS} ns) and adapts: a worker whose spin ended without a loop halves its next
 * one (down to a floor), and gets the full spin back once a spin catches a loop, so a pool used
 * now and then does not burn the cores between uses. A pool with more threads than processors
 * never spins: its threads park at once and are unparked when there is work (a share of a loop
 * for a worker, the last share done for the caller), so spinning threads can never keep the ones
 * with work from running.
 *
 * <p>Thread counts above the processor count are allowed, not capped: the count is the
 * operator's explicit setting (and {@link Runtime#availableProcessors()} may understate what a
 * container can use). Such a pool makes progress but is slower than one thread per core, since
 * every loop wakes every thread.
 *
 * <p>One parallel loop runs at a time; concurrent callers (several threads executing compiled
 * partitions) take turns, and a loop started from inside a loop runs on the caller alone.
 */
public final class WorkerPool implements AutoCloseable {
    static final long SPIN_NANOS = 200_000;
    /** The shortest spin an idle worker falls back to; waking from park costs about this much. */
    private static final long MIN_SPIN_NANOS = SPIN_NANOS / 16;

    private final int threads;
    private final boolean spin;
    private final Thread[] workers;
    private final Object turn = new Object();
    private final ThreadLocal<Boolean> inLoop = ThreadLocal.withInitial(() -> false);

    private volatile Loop current;
    private long nextId = 1;
    private volatile boolean closed;

    /** A loop body over the range [from, to) of task indices. */
    @FunctionalInterface
    public interface RangeBody {
        void run(int from, int to);
    }

    private static final class Loop {
        final long id;
        final RangeBody body;
        final int tasks;
        final int parts;
        final Thread caller;
        final AtomicInteger remaining;
        volatile Throwable failure;

        Loop(long id, RangeBody body, int tasks, int parts, Thread caller) {
            this.id = id;
            this.body = body;
            this.tasks = tasks;
            this.parts = parts;
            this.caller = caller;
            this.remaining = new AtomicInteger(parts);
        }

        void runPart(int part) {
            int from = (int) ((long) tasks * part / parts);
            int to = (int) ((long) tasks * (part + 1) / parts);
            try {
                if (from < to) {
                    body.run(from, to);
                }
            } catch (Throwable t) {
                failure = t;
            } finally {
                // The caller may be parked waiting for the last share: only that one wakes it.
                if (remaining.decrementAndGet() == 0 && Thread.currentThread() != caller) {
                    LockSupport.unpark(caller);
                }
            }
        }
    }

    public WorkerPool(int threads, String name) {
        this(threads, name, Runtime.getRuntime().availableProcessors());
    }

    /** A pool that spins only if {@code threads <= processors}; tests pass the processor count. */
    WorkerPool(int threads, String name, int processors) {
        if (threads < 1) {
            throw new IllegalArgumentException("a worker pool needs at least 1 thread, got " + threads);
        }
        this.threads = threads;
        this.spin = threads <= processors;
        this.workers = new Thread[threads - 1];
        for (int i = 0; i < workers.length; i++) {
            int part = i + 1;
            Thread t = new Thread(() -> work(part), name + "-" + part);
            t.setDaemon(true);
            workers[i] = t;
            t.start();
        }
    }

    public int threads() {
        return threads;
    }

    /** Whether this pool's threads spin before parking (no more threads than processors). */
    boolean spins() {
        return spin;
    }

    /**
     * Runs body over [0, tasks) split into one contiguous range per thread (fewer when there are
     * fewer tasks), and returns when all ranges are done. Rethrows the first failure.
     */
    public void parallelFor(int tasks, RangeBody body) {
        if (tasks <= 0) {
            return;
        }
        int parts = Math.min(threads, tasks);
        if (parts == 1 || inLoop.get() || closed) {
            body.run(0, tasks);
            return;
        }
        synchronized (turn) {
            Loop loop = new Loop(nextId++, body, tasks, parts, Thread.currentThread());
            current = loop;
            for (int i = 0; i < parts - 1; i++) {
                LockSupport.unpark(workers[i]);
            }
            inLoop.set(true);
            try {
                loop.runPart(0);
            } finally {
                inLoop.set(false);
            }
            awaitShares(loop);
            current = null;
            Throwable t = loop.failure;
            if (t instanceof RuntimeException r) {
                throw r;
            }
            if (t instanceof Error e) {
                throw e;
            }
            if (t != null) {
                throw new IllegalStateException(t);
            }
        }
    }

    /** Waits until every worker's share of the loop is done; the last one unparks the caller. */
    private void awaitShares(Loop loop) {
        if (spin) {
            long until = System.nanoTime() + SPIN_NANOS;
            while (loop.remaining.get() != 0 && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
        // park returns at once while the interrupt flag is set: clear it for the wait (the workers
        // are running the caller's body and cannot be abandoned) and restore it afterwards.
        boolean interrupted = false;
        while (loop.remaining.get() != 0) {
            LockSupport.park(this);
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void work(int part) {
        long seen = 0;
        long spinNanos = spin ? SPIN_NANOS : 0;
        inLoop.set(true);
        while (!closed) {
            Loop loop = current;
            if (loop != null && loop.id != seen) {
                seen = loop.id; // each loop is run at most once per worker
                if (part < loop.parts) {
                    loop.runPart(part);
                }
                continue;
            }
            if (spinNanos > 0) {
                long until = System.nanoTime() + spinNanos;
                while (!hasNew(seen) && !closed && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                spinNanos = hasNew(seen) ? SPIN_NANOS : Math.max(MIN_SPIN_NANOS, spinNanos / 2);
            }
            // No timeout: parallelFor and close unpark, and an unpark that comes before this park
            // makes it return at once, so a wake-up cannot be lost.
            if (!hasNew(seen) && !closed) {
                LockSupport.park(this);
            }
        }
    }

    private boolean hasNew(long seen) {
        Loop l = current;
        return l != null && l.id != seen;
    }

    /** Stops the workers after the loop in progress (if any); later loops run on their caller alone. */
    @Override
    public void close() {
        synchronized (turn) {
            closed = true;
        }
        for (Thread t : workers) {
            LockSupport.unpark(t);
        }
    }
}
