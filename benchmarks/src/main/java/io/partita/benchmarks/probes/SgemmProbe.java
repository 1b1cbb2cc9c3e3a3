package io.partita.benchmarks.probes;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import io.partita.runtime.threads.WorkerTeam;
import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.gemm.PackedB;
import io.partita.backend.dnnl.internal.gemm.Sgemm;
import io.partita.backend.dnnl.internal.isa.Isa;

/**
 * Quick throughput probe (not a test): java ... SgemmProbe threads MxKxN... Prints the median and
 * the best run per shape; the best is the steadier figure on a shared machine.
 */
public final class SgemmProbe {
    /** Flops of one {@link #peak} iteration. */
    public static final int PEAK_FLOPS = 24 * 2 * Isa.LANES;

    public static void main(String[] args) {
        int threads = Integer.parseInt(args[0]);
        if (threads == 0) {
            efficiency(args);
            return;
        }
        try (Arena arena = Arena.ofShared(); WorkerTeam pool = new WorkerTeam(threads, "probe")) {
            for (int round = 0; round < 2; round++) {
                for (int s = 1; s < args.length; s++) {
                    String[] d = args[s].split("x");
                    run(arena, pool, Integer.parseInt(d[0]), Integer.parseInt(d[1]), Integer.parseInt(d[2]), threads);
                }
            }
        }
    }

    /**
     * One thread, gemm runs interleaved with register-only FMA runs, best of each: the gemm's share
     * of the FMA peak, which survives a loaded machine far better than a throughput figure.
     */
    private static void efficiency(String[] args) {
        try (Arena arena = Arena.ofShared()) {
            for (int s = 1; s < args.length; s++) {
                String[] d = args[s].split("x");
                int m = Integer.parseInt(d[0]);
                int k = Integer.parseInt(d[1]);
                int n = Integer.parseInt(d[2]);
                MemorySegment a = arena.allocate(4L * m * k, 64);
                MemorySegment c = arena.allocate(4L * m * n, 64);
                MemorySegment b = arena.allocate(4L * k * n, 64);
                PackedB pb = PackedB.pack(b, 0, n, 1, k, n);
                double flop = 2.0 * m * k * n;
                int peakIters = (int) Math.max(1, flop / PEAK_FLOPS / 4);
                float[] tile = new float[Isa.LANES];
                float[] one = {1f};
                double bestGemm = 0;
                double bestPeak = 0;
                for (int trial = 0; trial < 60; trial++) {
                    long t0 = System.nanoTime();
                    Sgemm.multiply(a, 0, k, 1, m, pb, c, 0, n, null, null);
                    long t1 = System.nanoTime();
                    peak(one, peakIters, tile);
                    long t2 = System.nanoTime();
                    if (trial >= 10) {
                        bestGemm = Math.max(bestGemm, flop / (t1 - t0));
                        bestPeak = Math.max(bestPeak, peakIters * (double) PEAK_FLOPS / (t2 - t1));
                    }
                }
                System.out.printf("sgemm %s one thread: best %.1f GFLOPS, FMA peak %.1f, efficiency %.2f%n", args[s],
                        bestGemm, bestPeak, bestGemm / bestPeak);
            }
        }
    }

    /** 24 independent FMAs per iteration on registers only ({@link #PEAK_FLOPS} flops), at the kernels' width. */
    public static void peak(float[] x, int iters, float[] out) {
        var s = Isa.FLOAT;
        var a = jdk.incubator.vector.FloatVector.broadcast(s, x[0]);
        var b = jdk.incubator.vector.FloatVector.broadcast(s, 0.999f);
        var c0 = a; var c1 = a; var c2 = a; var c3 = a; var c4 = a; var c5 = a;
        var c6 = a; var c7 = a; var c8 = a; var c9 = a; var c10 = a; var c11 = a;
        for (int i = 0; i < iters; i++) {
            c0 = c0.fma(b, a); c1 = c1.fma(b, a); c2 = c2.fma(b, a); c3 = c3.fma(b, a);
            c4 = c4.fma(b, a); c5 = c5.fma(b, a); c6 = c6.fma(b, a); c7 = c7.fma(b, a);
            c8 = c8.fma(b, a); c9 = c9.fma(b, a); c10 = c10.fma(b, a); c11 = c11.fma(b, a);
            c0 = c0.fma(b, a); c1 = c1.fma(b, a); c2 = c2.fma(b, a); c3 = c3.fma(b, a);
            c4 = c4.fma(b, a); c5 = c5.fma(b, a); c6 = c6.fma(b, a); c7 = c7.fma(b, a);
            c8 = c8.fma(b, a); c9 = c9.fma(b, a); c10 = c10.fma(b, a); c11 = c11.fma(b, a);
        }
        c0.add(c1).add(c2).add(c3).add(c4).add(c5).add(c6).add(c7).add(c8).add(c9).add(c10).add(c11).intoArray(out, 0);
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

    private static void run(Arena arena, CpuTeam pool, int m, int k, int n, int threads) {
        MemorySegment a = arena.allocate(4L * m * k, 64);
        MemorySegment b = arena.allocate(4L * k * n, 64);
        MemorySegment c = arena.allocate(4L * m * n, 64);
        for (long i = 0; i < (long) m * k; i++) {
            a.setAtIndex(ValueLayout.JAVA_FLOAT, i, (i % 7) - 3);
        }
        for (long i = 0; i < (long) k * n; i++) {
            b.setAtIndex(ValueLayout.JAVA_FLOAT, i, (i % 5) - 2);
        }
        // -Dprobe.copies=N cycles through N packed copies of B: with N copies larger than L3, every call
        // streams its weights from memory, as a network's layers do (each layer's weights are evicted by
        // the others' before its next inference)
        PackedB[] copies = new PackedB[Math.max(1, Integer.getInteger("probe.copies", 1))];
        for (int i = 0; i < copies.length; i++) {
            copies[i] = PackedB.pack(b, 0, n, 1, k, n);
        }
        int iters = (int) Math.max(10, 3e10 / (2.0 * m * k * n));
        long[] t = new long[iters];
        long cpuStart = workerCpu();
        CpuTeam p = threads == 1 ? null : pool;
        // Time-based warm-up: the kernels need C2, and a count-based one left large shapes in C1 code.
        long warmEnd = System.nanoTime() + 3_000_000_000L;
        for (int w = 0; System.nanoTime() < warmEnd; w++) {
            Sgemm.multiply(a, 0, k, 1, m, copies[w % copies.length], c, 0, n, null, p);
        }
        for (int i = 0; i < iters; i++) {
            PackedB bi = copies[i % copies.length];
            long t0 = System.nanoTime();
            Sgemm.multiply(a, 0, k, 1, m, bi, c, 0, n, null, p);
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
