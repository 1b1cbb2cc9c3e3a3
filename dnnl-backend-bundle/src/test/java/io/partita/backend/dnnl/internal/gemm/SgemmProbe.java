package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import io.partita.backend.dnnl.internal.exec.WorkerPool;

/**
 * Quick throughput probe (not a test): java ... SgemmProbe threads MxKxN... Prints the median and
 * the best run per shape; the best is the steadier figure on a shared machine.
 */
public final class SgemmProbe {
    public static void main(String[] args) {
        int threads = Integer.parseInt(args[0]);
        try (Arena arena = Arena.ofShared(); WorkerPool pool = new WorkerPool(threads, "probe")) {
            for (int round = 0; round < 2; round++) {
                for (int s = 1; s < args.length; s++) {
                    String[] d = args[s].split("x");
                    run(arena, pool, Integer.parseInt(d[0]), Integer.parseInt(d[1]), Integer.parseInt(d[2]), threads);
                }
            }
        }
    }

    /** CPU time of the calling thread and the pool's workers. */
    private static long workerCpu() {
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t == Thread.currentThread() || t.getName().startsWith("probe")) {
                sum += mx.getThreadCpuTime(t.threadId());
            }
        }
        return sum;
    }

    private static void run(Arena arena, WorkerPool pool, int m, int k, int n, int threads) {
        MemorySegment a = arena.allocate(4L * m * k, 64);
        MemorySegment b = arena.allocate(4L * k * n, 64);
        MemorySegment c = arena.allocate(4L * m * n, 64);
        for (long i = 0; i < (long) m * k; i++) {
            a.setAtIndex(ValueLayout.JAVA_FLOAT, i, (i % 7) - 3);
        }
        for (long i = 0; i < (long) k * n; i++) {
            b.setAtIndex(ValueLayout.JAVA_FLOAT, i, (i % 5) - 2);
        }
        PackedB pb = PackedB.pack(b, 0, n, 1, k, n);
        int iters = (int) Math.max(10, 3e10 / (2.0 * m * k * n));
        long[] t = new long[iters];
        long cpuStart = workerCpu();
        WorkerPool p = threads == 1 ? null : pool;
        for (int w = 0; w < Math.max(5, iters / 4); w++) {
            Sgemm.multiply(a, 0, k, 1, m, pb, c, 0, n, null, p);
        }
        for (int i = 0; i < iters; i++) {
            long t0 = System.nanoTime();
            Sgemm.multiply(a, 0, k, 1, m, pb, c, 0, n, null, p);
            t[i] = System.nanoTime() - t0;
        }
        Arrays.sort(t);
        double cpuTotal = workerCpu() - cpuStart;
        double flop = 2.0 * m * k * n;
        // Per CPU second (process CPU time, so spinning and imbalance count): steadier under load than wall time.
        System.out.printf("sgemm %dx%dx%d threads %d: median %.3f ms %.1f GFLOPS, best %.1f GFLOPS, per cpu-s %.1f%n", m, k, n, threads, t[iters / 2] / 1e6, flop / t[iters / 2], flop / t[0],
                flop * iters / cpuTotal);
    }
}
