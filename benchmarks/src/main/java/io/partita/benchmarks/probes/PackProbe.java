package io.partita.benchmarks.probes;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.partita.backend.dnnl.internal.gemm.Sgemm;
import io.partita.backend.dnnl.internal.gemm.StridedRows;

/** Cost of packing A per element (not a test): java ... PackProbe M K. */
public final class PackProbe {
    public static void main(String[] args) {
        int m = Integer.parseInt(args[0]);
        int k = Integer.parseInt(args[1]);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment a = arena.allocate(4L * m * k, 64);
            StridedRows rows = new StridedRows(a, 0, k, 1, m, k);
            float[] ap = new float[(m + Sgemm.MR) * Sgemm.KC];
            for (int rep = 0; rep < 8; rep++) {
                long best = Long.MAX_VALUE;
                for (int t = 0; t < 30; t++) {
                    long t0 = System.nanoTime();
                    for (int k0 = 0; k0 < k; k0 += Sgemm.KC) {
                        rows.pack(0, m, k0, Math.min(Sgemm.KC, k - k0), ap, 0);
                    }
                    best = Math.min(best, System.nanoTime() - t0);
                }
                System.out.printf("pack %dx%d: best %.3f ms, %.3f ns per element%n", m, k, best / 1e6,
                        best / ((double) m * k));
            }
        }
    }
}
