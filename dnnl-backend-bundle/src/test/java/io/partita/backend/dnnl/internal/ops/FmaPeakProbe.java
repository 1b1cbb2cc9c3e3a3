package io.partita.backend.dnnl.internal.ops;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/** Register-only FMA throughput of one thread (not a test): the ceiling the micro-kernels aim at. */
public final class FmaPeakProbe {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_512;

    static float run(long iters, float x) {
        FloatVector a = FloatVector.broadcast(S, x);
        FloatVector b = FloatVector.broadcast(S, 0.999f);
        FloatVector c0 = a, c1 = a, c2 = a, c3 = a, c4 = a, c5 = a, c6 = a, c7 = a, c8 = a, c9 = a, c10 = a, c11 = a;
        for (long i = 0; i < iters; i++) {
            c0 = c0.fma(b, a);
            c1 = c1.fma(b, a);
            c2 = c2.fma(b, a);
            c3 = c3.fma(b, a);
            c4 = c4.fma(b, a);
            c5 = c5.fma(b, a);
            c6 = c6.fma(b, a);
            c7 = c7.fma(b, a);
            c8 = c8.fma(b, a);
            c9 = c9.fma(b, a);
            c10 = c10.fma(b, a);
            c11 = c11.fma(b, a);
        }
        return c0.add(c1).add(c2).add(c3).add(c4).add(c5).add(c6).add(c7).add(c8).add(c9).add(c10).add(c11)
                .reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
    }

    public static void main(String[] args) {
        long iters = 20_000_000;
        for (int r = 0; r < 8; r++) {
            long t0 = System.nanoTime();
            float v = run(iters, r);
            long t = System.nanoTime() - t0;
            System.out.printf("%.1f GFLOPS (%s)%n", iters * 12 * 32.0 / t, v > 0 ? "" : " ");
        }
    }
}
