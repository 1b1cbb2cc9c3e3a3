package io.partita.backend.dnnl.internal.exec;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed team of threads for one engine: the caller takes the first share of a parallel loop and
 * the workers the others. Workers spin briefly for the next loop before parking, because
 * inference calls loops back to back and waking a parked thread costs microseconds.
 *
 * <p>One parallel loop runs at a time; concurrent callers (several threads executing compiled
 * partitions) take turns, and a loop started from inside a loop runs on the caller alone.
 */
public final class WorkerPool implements AutoCloseable {
    private static final long SPIN_NANOS = 200_000;

    private final int threads;
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
        final AtomicInteger remaining;
        volatile Throwable failure;

        Loop(long id, RangeBody body, int tasks, int parts) {
            this.id = id;
            this.body = body;
            this.tasks = tasks;
            this.parts = parts;
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
                remaining.decrementAndGet();
            }
        }
    }

    public WorkerPool(int threads, String name) {
        if (threads < 1) {
            throw new IllegalArgumentException("a worker pool needs at least 1 thread, got " + threads);
        }
        this.threads = threads;
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
            Loop loop = new Loop(nextId++, body, tasks, parts);
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
            while (loop.remaining.get() != 0) {
                Thread.onSpinWait();
            }
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

    private void work(int part) {
        long seen = 0;
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
            long spinUntil = System.nanoTime() + SPIN_NANOS;
            while (!hasNew(seen) && !closed && System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            }
            if (!hasNew(seen) && !closed) {
                LockSupport.parkNanos(this, 1_000_000);
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
