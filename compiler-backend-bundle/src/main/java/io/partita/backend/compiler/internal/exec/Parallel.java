package io.partita.backend.compiler.internal.exec;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * The backend's worker pool: a fork-join pool of the runtime's thread setting whose workers run
 * the independent tasks of a fused loop (batch x query blocks, row blocks).
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
        this.pool = new ForkJoinPool(threads, p -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            t.setName("compiler-cpu-" + n + "-" + workers.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, null, false);
    }

    public int threads() {
        return threads;
    }

    /** Runs {@code body} for 0..n-1; on the caller's thread alone when there is one task or one thread. */
    public void forEach(int n, IntConsumer body) {
        if (n == 1 || threads == 1) {
            for (int i = 0; i < n; i++) {
                body.accept(i);
            }
            return;
        }
        pool.submit(() -> IntStream.range(0, n).parallel().forEach(body)).join();
    }

    @Override
    public void close() {
        if (pool != null && this != CALLER) {
            pool.shutdown();
        }
    }
}
