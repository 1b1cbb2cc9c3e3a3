package io.partita.runtime.threads;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.partita.spi.CpuTeam;

/**
 * A fixed team of threads for one engine: the caller takes the first share of a parallel loop and
 * the workers the others, and whoever is done first takes over the rest of a slower share (a
 * static split alone made every loop wait for the thread the machine happened to slow down).
 *
 * <p>Waiting: when the team has no more threads than the JVM has processors, an idle worker spins
 * for the next loop, and the caller for the workers' shares, before parking, because inference
 * calls loops back to back and waking a parked thread costs microseconds. The spin is bounded
 * ({@value #SPIN_NANOS} ns) and adapts: a worker whose spin ended without a loop halves its next
 * one (down to a floor), and gets the full spin back once a spin catches a loop, so a team used
 * now and then does not burn the cores between uses. A team with more threads than processors
 * never spins: its threads park at once and are unparked when there is work (a share of a loop
 * for a worker, the last share done for the caller), so spinning threads can never keep the ones
 * with work from running.
 *
 * <p>Thread counts above the processor count are allowed, not capped: the count is the
 * operator's explicit setting (and {@link Runtime#availableProcessors()} may understate what a
 * container can use). Such a team makes progress but is slower than one thread per core, since
 * every loop wakes every thread.
 *
 * <p>One parallel loop runs at a time; concurrent callers (several threads executing compiled
 * partitions) take turns, and a loop started from inside a loop runs on the caller alone.
 */
public final class WorkerTeam implements CpuTeam, AutoCloseable {
    static final long SPIN_NANOS = 200_000;
    /** Chunks a share is claimed in: small enough to even out, large enough that each call amortises. */
    static final int CHUNKS_PER_PART = 8;
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

    private static final class Loop {
        final long id;
        final RangeBody body;
        final int tasks;
        final int parts;
        final Thread caller;
        /** Tasks an owner claims from the front of its range at a time. */
        final int chunk;
        /** Per part: the unclaimed rest of its range, {@code next << 32 | end}. */
        final AtomicLongArray ranges;
        /** Tasks not yet run: the loop is done at 0, whoever ran them. */
        final AtomicInteger pending;
        /** The first failure (later ones are dropped: the caller rethrows the first). */
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        Loop(long id, RangeBody body, int tasks, int parts, int minChunk, Thread caller) {
            this.id = id;
            this.body = body;
            this.tasks = tasks;
            this.parts = parts;
            this.caller = caller;
            this.chunk = Math.max(Math.max(1, minChunk), tasks / (parts * CHUNKS_PER_PART));
            this.ranges = new AtomicLongArray(parts);
            for (int p = 0; p < parts; p++) {
                ranges.set(p, pack((int) ((long) tasks * p / parts), (int) ((long) tasks * (p + 1) / parts)));
            }
            this.pending = new AtomicInteger(tasks);
        }

        static long pack(int next, int end) {
            return (long) next << 32 | (end & 0xffffffffL);
        }

        /**
         * Runs part's own range front to back in chunks, then takes the back half of another part's
         * unclaimed rest until none is left: a part whose thread is late or slowed down (another
         * process on the core) is finished by the others instead of being waited for.
         */
        void runPart(int part) {
            for (;;) {
                long v = ranges.get(part);
                int next = (int) (v >>> 32);
                int end = (int) v;
                if (next >= end) {
                    break;
                }
                int take = Math.min(chunk, end - next);
                if (ranges.compareAndSet(part, v, pack(next + take, end))) {
                    run(next, next + take);
                }
            }
            for (boolean more = true; more;) {
                more = false;
                for (int q = 0; q < parts; q++) {
                    long v = ranges.get(q);
                    int next = (int) (v >>> 32);
                    int end = (int) v;
                    if (q == part || next >= end) {
                        continue;
                    }
                    more = true;
                    int take = Math.max(1, (end - next) / 2);
                    if (ranges.compareAndSet(q, v, pack(next, end - take))) {
                        run(end - take, end);
                    }
                }
            }
        }

        private void run(int from, int to) {
            try {
                if (failure.get() == null) {
                    body.run(from, to);
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            } finally {
                // The caller may be parked waiting for the last tasks: only that one wakes it.
                if (pending.addAndGet(from - to) == 0 && Thread.currentThread() != caller) {
                    LockSupport.unpark(caller);
                }
            }
        }
    }

    public WorkerTeam(int threads, String name) {
        this(threads, name, Runtime.getRuntime().availableProcessors());
    }

    /** A team that spins only if {@code threads <= processors}; tests pass the processor count. */
    WorkerTeam(int threads, String name, int processors) {
        if (threads < 1) {
            throw new IllegalArgumentException("a thread team needs at least 1 thread, got " + threads);
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

    @Override
    public int threads() {
        return threads;
    }

    /** Whether this team's threads spin before parking (no more threads than processors). */
    boolean spins() {
        return spin;
    }

    /**
     * Runs body over [0, tasks), claiming at least {@code minChunk} tasks at a time
     * (a share's size: one call per share unless it is taken over), for bodies whose calls are
     * expensive to split (each re-reads a large operand).
     */
    @Override
    public void parallelFor(int tasks, int minChunk, RangeBody body) {
        if (tasks <= 0) {
            return;
        }
        int parts = Math.min(threads, tasks);
        if (parts == 1 || inLoop.get() || closed) {
            body.run(0, tasks);
            return;
        }
        synchronized (turn) {
            Loop loop = new Loop(nextId++, body, tasks, parts, minChunk, Thread.currentThread());
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
            Throwable t = loop.failure.get();
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

    /** Waits until every task of the loop is done; a worker finishing the last ones unparks the caller. */
    private void awaitShares(Loop loop) {
        if (spin) {
            long until = System.nanoTime() + SPIN_NANOS;
            while (loop.pending.get() != 0 && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
        // park returns at once while the interrupt flag is set: clear it for the wait (the workers
        // are running the caller's body and cannot be abandoned) and restore it afterwards.
        boolean interrupted = false;
        while (loop.pending.get() != 0) {
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
