package io.partita.backend.acl.internal.simd;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * Single-precision GEMM in the manner of ACL's NEON sgemm: the right-hand matrix is reshaped once
 * into column panels two vectors wide ({@link #PANEL} floats, K rows each, zero padded), and a
 * 4-row micro-kernel keeps 8 accumulators, which fits the 32 registers of NEON at 128 bits and
 * AVX at any width. The left-hand matrix is read in place (row-major with a leading dimension).
 * The epilogue adds a per-column bias and applies ReLU before the (masked) store.
 */
public final class Gemm {
    private static final VectorSpecies<Float> F = Neon.FLOAT;
    private static final int L = Neon.LANES;
    /** Columns of one packed panel. */
    public static final int PANEL = 2 * L;
    private static final int MR = 4;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    private Gemm() {
    }

    /** Source of a matrix element (k, n) while packing. */
    @FunctionalInterface
    public interface Source {
        float get(int k, int n);
    }

    /** Floats a packed [k, n] matrix takes. */
    public static long packedLength(int k, int n) {
        return (long) ((n + PANEL - 1) / PANEL) * PANEL * k;
    }

    /** Packs a [k, n] matrix into panels at float offset {@code at} of {@code dst}. */
    public static void pack(Source src, int k, int n, MemorySegment dst, long at) {
        long o = at;
        for (int j0 = 0; j0 < n; j0 += PANEL) {
            int w = Math.min(PANEL, n - j0);
            for (int kk = 0; kk < k; kk++) {
                for (int j = 0; j < PANEL; j++) {
                    dst.setAtIndex(JAVA_FLOAT_UNALIGNED, o++, j < w ? src.get(kk, j0 + j) : 0f);
                }
            }
        }
    }

    /**
     * C[m, n] = A[m, k] x B[k, n] (+ bias[n]) (ReLU). Offsets and leading dimensions in floats.
     *
     * @param b packed by {@link #pack} at float offset {@code bOff}
     * @param bias null for none
     */
    public static void multiply(int m, int n, int k, MemorySegment a, long aOff, long lda, MemorySegment b, long bOff,
            MemorySegment c, long cOff, long ldc, MemorySegment bias, long biasOff, boolean relu) {
        for (int j0 = 0; j0 < n; j0 += PANEL) {
            long panel = bOff + (long) (j0 / PANEL) * PANEL * k;
            VectorMask<Float> m0 = F.indexInRange(j0, n);
            VectorMask<Float> m1 = F.indexInRange(j0 + L, n);
            FloatVector bias0 = bias == null ? null : FloatVector.fromMemorySegment(F, bias, (biasOff + j0) * 4L, ORDER, m0);
            FloatVector bias1 = bias == null ? null
                    : FloatVector.fromMemorySegment(F, bias, (biasOff + j0 + L) * 4L, ORDER, m1);
            int i = 0;
            if (m1.allTrue()) { // a full panel: the lean kernel, whose epilogue has no branch
                FloatVector zero = FloatVector.zero(F);
                FloatVector lo = FloatVector.broadcast(F, relu ? 0f : Float.NEGATIVE_INFINITY);
                for (; i + MR <= m; i += MR) {
                    block4Full(k, a, aOff + i * lda, lda, b, panel, c, cOff + i * ldc + j0, ldc,
                            bias0 == null ? zero : bias0, bias1 == null ? zero : bias1, lo);
                }
            }
            for (; i + MR <= m; i += MR) {
                block4(k, a, aOff + i * lda, lda, b, panel, c, cOff + i * ldc + j0, ldc, m0, m1, bias0, bias1, relu);
            }
            for (; i < m; i++) {
                row(k, a, aOff + i * lda, b, panel, c, cOff + i * ldc + j0, m0, m1, bias0, bias1, relu);
            }
        }
    }

    /**
     * The 4-row kernel on a full panel: bias (zero for none) added and the lower bound ({@code 0}
     * for ReLU, -inf otherwise) applied without branches, stores unmasked. Kept this small on
     * purpose: the general kernel's epilogue (masks, optional bias and ReLU) made C2 stop inlining
     * the Vector API calls (NodeCountInliningCutoff) in some profiles, leaving boxed vectors in the
     * loop (hundreds of MB allocated per BERT-sized product).
     */
    private static void block4Full(int k, MemorySegment a, long a0, long lda, MemorySegment b, long panel,
            MemorySegment c, long c0, long ldc, FloatVector bias0, FloatVector bias1, FloatVector lo) {
        FloatVector c00 = FloatVector.zero(F), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
                c31 = c00;
        long a1 = a0 + lda, a2 = a1 + lda, a3 = a2 + lda;
        long bp = panel * 4L;
        for (int kk = 0; kk < k; kk++, bp += PANEL * 4L) {
            FloatVector b0 = FloatVector.fromMemorySegment(F, b, bp, ORDER);
            FloatVector b1 = FloatVector.fromMemorySegment(F, b, bp + L * 4L, ORDER);
            FloatVector x = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT_UNALIGNED, a0 + kk));
            c00 = b0.fma(x, c00);
            c01 = b1.fma(x, c01);
            x = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT_UNALIGNED, a1 + kk));
            c10 = b0.fma(x, c10);
            c11 = b1.fma(x, c11);
            x = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT_UNALIGNED, a2 + kk));
            c20 = b0.fma(x, c20);
            c21 = b1.fma(x, c21);
            x = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT_UNALIGNED, a3 + kk));
            c30 = b0.fma(x, c30);
            c31 = b1.fma(x, c31);
        }
        long r = c0 * 4L, step = ldc * 4L, half = L * 4L;
        c00.add(bias0).max(lo).intoMemorySegment(c, r, ORDER);
        c01.add(bias1).max(lo).intoMemorySegment(c, r + half, ORDER);
        c10.add(bias0).max(lo).intoMemorySegment(c, r + step, ORDER);
        c11.add(bias1).max(lo).intoMemorySegment(c, r + step + half, ORDER);
        c20.add(bias0).max(lo).intoMemorySegment(c, r + 2 * step, ORDER);
        c21.add(bias1).max(lo).intoMemorySegment(c, r + 2 * step + half, ORDER);
        c30.add(bias0).max(lo).intoMemorySegment(c, r + 3 * step, ORDER);
        c31.add(bias1).max(lo).intoMemorySegment(c, r + 3 * step + half, ORDER);
    }

    private static void block4(int k, MemorySegment a, long a0, long lda, MemorySegment b, long panel, MemorySegment c,
            long c0, long ldc, VectorMask<Float> m0, VectorMask<Float> m1, FloatVector bias0, FloatVector bias1,
            boolean relu) {
        FloatVector c00 = FloatVector.zero(F), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
                c31 = c00;
        long a1 = a0 + lda, a2 = a1 + lda, a3 = a2 + lda;
        long bp = panel * 4L;
        for (int kk = 0; kk < k; kk++, bp += PANEL * 4L) {
            FloatVector b0 = FloatVector.fromMemorySegment(F, b, bp, ORDER);
            FloatVector b1 = FloatVector.fromMemorySegment(F, b, bp + L * 4L, ORDER);
            FloatVector x = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT_UNALIGNED, a0 + kk));
            c00 = b0.fma(x, c00);
            c01 = b1.fma(x, c01);
            x = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT_UNALIGNED, a1 + kk));
            c10 = b0.fma(x, c10);
            c11 = b1.fma(x, c11);
            x = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT_UNALIGNED, a2 + kk));
            c20 = b0.fma(x, c20);
            c21 = b1.fma(x, c21);
            x = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT_UNALIGNED, a3 + kk));
            c30 = b0.fma(x, c30);
            c31 = b1.fma(x, c31);
        }
        store(c00, c01, c, c0, m0, m1, bias0, bias1, relu);
        store(c10, c11, c, c0 + ldc, m0, m1, bias0, bias1, relu);
        store(c20, c21, c, c0 + 2 * ldc, m0, m1, bias0, bias1, relu);
        store(c30, c31, c, c0 + 3 * ldc, m0, m1, bias0, bias1, relu);
    }

    private static void row(int k, MemorySegment a, long a0, MemorySegment b, long panel, MemorySegment c, long c0,
            VectorMask<Float> m0, VectorMask<Float> m1, FloatVector bias0, FloatVector bias1, boolean relu) {
        FloatVector c00 = FloatVector.zero(F), c01 = c00;
        long bp = panel * 4L;
        for (int kk = 0; kk < k; kk++, bp += PANEL * 4L) {
            FloatVector x = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT_UNALIGNED, a0 + kk));
            c00 = FloatVector.fromMemorySegment(F, b, bp, ORDER).fma(x, c00);
            c01 = FloatVector.fromMemorySegment(F, b, bp + L * 4L, ORDER).fma(x, c01);
        }
        store(c00, c01, c, c0, m0, m1, bias0, bias1, relu);
    }

    private static void store(FloatVector v0, FloatVector v1, MemorySegment c, long at, VectorMask<Float> m0,
            VectorMask<Float> m1, FloatVector bias0, FloatVector bias1, boolean relu) {
        if (bias0 != null) {
            v0 = v0.add(bias0);
            v1 = v1.add(bias1);
        }
        if (relu) {
            v0 = v0.max(0f);
            v1 = v1.max(0f);
        }
        if (m0.allTrue()) {
            v0.intoMemorySegment(c, at * 4L, ORDER);
        } else {
            v0.intoMemorySegment(c, at * 4L, ORDER, m0);
        }
        if (m1.allTrue()) {
            v1.intoMemorySegment(c, (at + L) * 4L, ORDER);
        } else if (m1.anyTrue()) {
            v1.intoMemorySegment(c, (at + L) * 4L, ORDER, m1);
        }
    }
}
