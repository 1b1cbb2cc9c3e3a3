package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.isa.Isa;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * One row of A times B: a memory-bound product (each weight is used once), so the kernel is built
 * for load bandwidth, not FMA reuse. The general path packs A into 14-row groups and runs a
 * 4-row kernel for it: four FMAs per two loads, three of them on zero rows, plus a packing loop
 * and a second barrier. Here each thread takes a range of B's panels, reads its K rows with
 * four independent accumulator pairs (so FMA latency never waits on the previous step) against
 * the row of A broadcast from a plain array, and stores each panel's columns once, with the bias.
 */
final class Gemv {
    private static final VectorSpecies<Float> S = Isa.FLOAT;
    private static final int L = Isa.LANES;
    private static final int NR = Sgemm.NR;
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    /** The row of A, per calling thread (the pool's threads read it while the caller waits). */
    private static final ThreadLocal<float[]> ROW = ThreadLocal.withInitial(() -> new float[0]);
    /** A panel's column sums, per thread. */
    private static final ThreadLocal<float[]> ACC = ThreadLocal.withInitial(() -> new float[NR]);
    /** B rows packed on the fly, per thread (sources that are not packed once). */
    private static final ThreadLocal<float[]> PANEL = ThreadLocal.withInitial(() -> new float[0]);

    private Gemv() {
    }

    /** C[0, :] = A[0, :] x B (+ bias) (+ epilogue), A's row at {@code a}. */
    static void multiply(StridedRows a, PanelSource b, MemorySegment c, long cOff, float[] bias, boolean relu,
            Sgemm.Epilogue epilogue, CpuTeam pool) {
        int k = b.k();
        float[] x = ROW.get();
        if (x.length < k) {
            x = new float[k];
            ROW.set(x);
        }
        if (a.colStride() == 1) {
            MemorySegment.copy(a.a(), F, a.off(), x, 0, k);
        } else {
            for (int kk = 0; kk < k; kk++) {
                x[kk] = a.a().get(F, a.off() + 4L * kk * a.colStride());
            }
        }
        float[] row = x;
        int panels = b.panels();
        CpuTeam.RangeBody body = (p0, p1) -> {
            float[] acc = ACC.get(); // this thread's, once per range
            float[] scratch = scratch(Math.min(Sgemm.KC, b.k()));
            for (int p = p0; p < p1; p++) {
                panel(row, b, p, c, cOff, bias, relu, epilogue, acc, scratch);
            }
        };
        if (pool == null || panels < 2) {
            body.run(0, panels);
        } else {
            pool.parallelFor(panels, body);
        }
    }

    private static void panel(float[] x, PanelSource b, int p, MemorySegment c, long cOff, float[] bias,
            boolean relu, Sgemm.Epilogue epilogue, float[] acc, float[] scratch) {
        int k = b.k();
        int j0 = p * NR;
        for (int k0 = 0; k0 < k; k0 += Sgemm.KC) {
            int kc = Math.min(Sgemm.KC, k - k0);
            float[] bp = b.panel(p, k0, kc, scratch);
            dot(x, k0, bp, b.offset(p, k0), kc, acc, k0 > 0);
        }
        FloatVector lo = FloatVector.fromArray(S, acc, 0);
        FloatVector hi = FloatVector.fromArray(S, acc, L);
        if (bias != null) {
            lo = lo.add(FloatVector.fromArray(S, bias, j0));
            hi = hi.add(FloatVector.fromArray(S, bias, j0 + L));
        }
        if (relu) {
            lo = FloatVector.zero(S).blend(lo, lo.compare(VectorOperators.GT, 0f)); // NaN to 0, as the reference
            hi = FloatVector.zero(S).blend(hi, hi.compare(VectorOperators.GT, 0f));
        }
        int cols = Math.min(NR, b.n() - j0);
        long o = cOff + 4L * j0;
        if (cols == NR) {
            lo.intoMemorySegment(c, o, ORDER);
            hi.intoMemorySegment(c, o + 4L * L, ORDER);
        } else {
            VectorMask<Float> m0 = S.indexInRange(0, cols);
            VectorMask<Float> m1 = S.indexInRange(L, cols);
            lo.intoMemorySegment(c, o, ORDER, m0);
            hi.intoMemorySegment(c, o + 4L * L, ORDER, m1);
        }
        if (epilogue != null) {
            epilogue.apply(c, cOff, 0, j0, cols);
        }
    }

    /**
     * {@code acc[j] (+)= sum_kk x[xOff + kk] * bp[bOff + kk * NR + j]} for kk in [0, kc), j in [0, NR):
     * four steps per iteration into independent accumulators, offsets computed from the one loop
     * counter (an extra induction variable measured slower here).
     */
    static void dot(float[] x, int xOff, float[] bp, int bOff, int kc, float[] acc, boolean accumulate) {
        FloatVector z = FloatVector.zero(S);
        FloatVector c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z;
        int end = kc & ~3;
        for (int kk = 0; kk < end; kk += 4) {
            int bi = bOff + kk * NR;
            int xi = xOff + kk;
            FloatVector x0 = FloatVector.broadcast(S, x[xi]);
            c00 = FloatVector.fromArray(S, bp, bi).fma(x0, c00);
            c01 = FloatVector.fromArray(S, bp, bi + L).fma(x0, c01);
            FloatVector x1 = FloatVector.broadcast(S, x[xi + 1]);
            c10 = FloatVector.fromArray(S, bp, bi + NR).fma(x1, c10);
            c11 = FloatVector.fromArray(S, bp, bi + NR + L).fma(x1, c11);
            FloatVector x2 = FloatVector.broadcast(S, x[xi + 2]);
            c20 = FloatVector.fromArray(S, bp, bi + 2 * NR).fma(x2, c20);
            c21 = FloatVector.fromArray(S, bp, bi + 2 * NR + L).fma(x2, c21);
            FloatVector x3 = FloatVector.broadcast(S, x[xi + 3]);
            c30 = FloatVector.fromArray(S, bp, bi + 3 * NR).fma(x3, c30);
            c31 = FloatVector.fromArray(S, bp, bi + 3 * NR + L).fma(x3, c31);
        }
        for (int kk = end; kk < kc; kk++) {
            int bi = bOff + kk * NR;
            FloatVector x0 = FloatVector.broadcast(S, x[xOff + kk]);
            c00 = FloatVector.fromArray(S, bp, bi).fma(x0, c00);
            c01 = FloatVector.fromArray(S, bp, bi + L).fma(x0, c01);
        }
        FloatVector lo = c00.add(c10).add(c20.add(c30));
        FloatVector hi = c01.add(c11).add(c21.add(c31));
        if (accumulate) {
            lo = lo.add(FloatVector.fromArray(S, acc, 0));
            hi = hi.add(FloatVector.fromArray(S, acc, L));
        }
        lo.intoArray(acc, 0);
        hi.intoArray(acc, L);
    }

    private static float[] scratch(int kc) {
        float[] s = PANEL.get();
        if (s.length < kc * NR) {
            s = new float[kc * NR];
            PANEL.set(s);
        }
        return s;
    }
}
