package io.partita.backend.compiler.internal.exec;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * The backend's worker pool: the runtime's thread setting, counting the caller. The caller works on
 * the tasks of a fused loop (batch x query blocks, row blocks, panels) beside {@code threads - 1}
 * fork-join workers: each thread starts on its own contiguous share (the same panels on the same
 * thread call after call, so they stay in its cache) and then claims what the others have not yet
 * started. The caller starts at once instead of waiting for a parked worker to wake, and takes over
 * the share of a worker that wakes late.
 */
public final class Parallel implements AutoCloseable {
    private static final AtomicInteger POOLS = new AtomicInteger();
    /** Runs every task on the calling thread (tensors of a confined arena, which only their owner may touch). */
    public static final Parallel CALLER = new Parallel(1);
    private final ForkJoinPool pool;
    private final int threads;

    public Parallel(int threads) {
        this.threads = threads;
        if (threads == 1) {
            this.pool = null;
            return;
        }
        int n = POOLS.incrementAndGet();
        AtomicInteger workers = new AtomicInteger();
        this.pool = new ForkJoinPool(threads - 1, p -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            t.setName("compiler-cpu-" + n + "-" + workers.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, null, false);
    }

    public int threads() {
        return threads;
    }

    /**
     * Runs {@code body} for 0..n-1 and returns when every call has returned; on the caller's thread
     * alone when there is one task or one thread. The first failure is rethrown (after the other
     * threads have stopped claiming tasks and finished the ones they had).
     */
    public void forEach(int n, IntConsumer body) {
        if (n <= 0) {
            return; // an empty tensor: nothing to do
        }
        if (n == 1 || threads == 1) {
            for (int i = 0; i < n; i++) {
                body.accept(i);
            }
            return;
        }
        int parts = Math.min(threads, n);
        // Share p is [n * p / parts, n * (p + 1) / parts); next[p] is its first unclaimed task.
        AtomicIntegerArray next = new AtomicIntegerArray(parts);
        for (int p = 0; p < parts; p++) {
            next.set(p, (int) ((long) n * p / parts));
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        IntConsumer drain = own -> {
            for (int q = 0; q < parts && failure.get() == null; q++) {
                int share = (own + q) % parts; // its own share first, then the others' rest
                int end = (int) ((long) n * (share + 1) / parts);
                for (int i; failure.get() == null && (i = next.getAndIncrement(share)) < end;) {
                    try {
                        body.accept(i);
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }
            }
        };
        ForkJoinTask<?>[] helpers = new ForkJoinTask<?>[parts - 1];
        for (int h = 0; h < helpers.length; h++) {
            int share = h + 1;
            helpers[h] = pool.submit(() -> drain.accept(share));
        }
        drain.accept(0);
        for (ForkJoinTask<?> h : helpers) {
            h.join(); // a helper not started yet finds no task left (or is run here by join)
        }
        Throwable t = failure.get();
        if (t instanceof Error e) {
            throw e;
        }
        if (t != null) { // the body is an IntConsumer: a checked exception only arrives through sneaky throws
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    @Override
    public void close() {
        if (pool != null && this != CALLER) {
            pool.shutdown();
        }
    }
}
