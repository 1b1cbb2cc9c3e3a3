package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import io.partita.backend.dnnl.internal.exec.WorkerPool;

/** Quick throughput probe (not a test): java ... SgemmProbe M K N threads. */
public final class SgemmProbe {
    public static void main(String[] args) {
        int m = Integer.parseInt(args[0]);
        int k = Integer.parseInt(args[1]);
        int n = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        try (Arena arena = Arena.ofShared(); WorkerPool pool = new WorkerPool(threads, "probe")) {
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
            int iters = (int) Math.max(5, 2e10 / (2.0 * m * k * n));
            long[] t = new long[iters];
            for (int w = 0; w < 3; w++) {
                Sgemm.multiply(a, 0, k, 1, m, pb, c, 0, n, null, pool);
            }
            for (int i = 0; i < iters; i++) {
                long t0 = System.nanoTime();
                Sgemm.multiply(a, 0, k, 1, m, pb, c, 0, n, null, pool);
                t[i] = System.nanoTime() - t0;
            }
            Arrays.sort(t);
            double med = t[iters / 2];
            System.out.printf("sgemm %dx%dx%d threads %d: median %.3f ms, %.1f GFLOPS%n", m, k, n, threads, med / 1e6,
                    2.0 * m * k * n / med);
        }
    }
}
