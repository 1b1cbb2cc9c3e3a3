package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Weights packed for the register tile: column panels of {@link #NR} floats, each panel its K
 * rows back to back, so the tile streams one panel contiguously; columns past N and rows past K
 * (padding) are zeros. Also the tiles themselves.
 *
 * <p>Packed weights are heap arrays ({@link PackedPanels} in the constant cache): the 14-row tile
 * reading them from a MemorySegment hit a profile-predicate trap in C2 (a run of a gated MLP),
 * whose recompilation kept the segment's checks in the loop and spilled half the accumulators to
 * the stack, at 70 instead of 175 GFLOPS per core.
 */
public final class Panels {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    static final int VL = S.length();
    /** Columns per panel: two vectors. */
    public static final int NR = 2 * VL;
    /** Rows per tile. */
    public static final int MR = 4;
    /**
     * Rows of the wide tile over interleaved rows ({@link #interleave}): 14 with 512-bit vectors, so
     * 28 accumulators of the 32 registers keep both FMA ports busy while each k step loads only
     * two vectors of B (the 4-row tile loads two for every eight FMAs and stayed at half the FMA
     * rate); 4 with 256 bits or less, which have 16 registers.
     */
    public static final int MRW = VL == 16 ? 14 : 4;

    private Panels() {
    }

    public static int panels(long n) {
        return (int) ((n + NR - 1) / NR);
    }

    /** Floats of a packed [rowsPadded x n] matrix. */
    public static long length(long rowsPadded, long n) {
        return (long) panels(n) * rowsPadded * NR;
    }

    /**
     * Packs B (rows x cols, element strides rowStride/colStride from base) into {@code dst} from
     * {@code dstOff}, padding rows to {@code rowsPadded}.
     */
    public static void pack(MemorySegment b, long base, long rowStride, long colStride, int rows, int cols,
            int rowsPadded, float[] dst, int dstOff) {
        int panels = panels(cols);
        for (int p = 0; p < panels; p++) {
            int c0 = p * NR;
            int w = Math.min(NR, cols - c0);
            for (int k = 0; k < rowsPadded; k++) {
                int line = dstOff + (p * rowsPadded + k) * NR;
                Arrays.fill(dst, line, line + NR, 0f);
                if (k < rows) {
                    long src = base + k * rowStride + c0 * colStride;
                    if (colStride == 1) {
                        MemorySegment.copy(b, ValueLayout.JAVA_FLOAT, src * 4, dst, line, w);
                    } else {
                        for (int c = 0; c < w; c++) {
                            dst[line + c] = b.getAtIndex(ValueLayout.JAVA_FLOAT, src + c * colStride);
                        }
                    }
                }
            }
        }
    }

    /**
     * {@code c[r][0..NR) = sum_k a[r][k] * panel[k][0..NR)} for four rows of {@code a} stored row
     * by row (row stride {@code lda}) and one packed panel.
     */
    public static void tile(float[] a, int aOff, int lda, int k, float[] panels, int panelOff, float[] c, int cOff) {
        tile4(a, aOff, lda, 1, k, panels, panelOff, c, cOff, NR);
    }

    /**
     * The tile for one row (a projection of a single token), its k-th value at
     * {@code a[aOff + kk * step]}: the four-row tile would spend three quarters of its FMAs on
     * padding, and with one row the loop is bound by streaming the panel, so four steps of K run side
     * by side into separate accumulators instead (two steps streamed 27 MB of panels ~10% slower).
     */
    public static void tile1(float[] a, int aOff, int step, int k, float[] panels, int panelOff, float[] c,
            int cOff) {
        FloatVector c0 = FloatVector.zero(S);
        FloatVector c1 = c0;
        FloatVector d0 = c0;
        FloatVector d1 = c0;
        FloatVector e0 = c0;
        FloatVector e1 = c0;
        FloatVector f0 = c0;
        FloatVector f1 = c0;
        int pb = panelOff;
        int kk = 0;
        int ai = aOff;
        for (; kk + 3 < k; kk += 4, pb += 4 * NR, ai += 4 * step) {
            FloatVector w = FloatVector.broadcast(S, a[ai]);
            FloatVector x = FloatVector.broadcast(S, a[ai + step]);
            FloatVector y = FloatVector.broadcast(S, a[ai + 2 * step]);
            FloatVector z = FloatVector.broadcast(S, a[ai + 3 * step]);
            c0 = w.fma(FloatVector.fromArray(S, panels, pb), c0);
            c1 = w.fma(FloatVector.fromArray(S, panels, pb + VL), c1);
            d0 = x.fma(FloatVector.fromArray(S, panels, pb + NR), d0);
            d1 = x.fma(FloatVector.fromArray(S, panels, pb + NR + VL), d1);
            e0 = y.fma(FloatVector.fromArray(S, panels, pb + 2 * NR), e0);
            e1 = y.fma(FloatVector.fromArray(S, panels, pb + 2 * NR + VL), e1);
            f0 = z.fma(FloatVector.fromArray(S, panels, pb + 3 * NR), f0);
            f1 = z.fma(FloatVector.fromArray(S, panels, pb + 3 * NR + VL), f1);
        }
        for (; kk < k; kk++, pb += NR, ai += step) {
            FloatVector w = FloatVector.broadcast(S, a[ai]);
            c0 = w.fma(FloatVector.fromArray(S, panels, pb), c0);
            c1 = w.fma(FloatVector.fromArray(S, panels, pb + VL), c1);
        }
        c0.add(d0).add(e0.add(f0)).intoArray(c, cOff);
        c1.add(d1).add(e1.add(f1)).intoArray(c, cOff + VL);
    }

    /**
     * Copies {@code rows} rows of {@code k} floats (row r at {@code src[srcOff + r * lds]}) into
     * groups of {@code mr} rows interleaved per k step, {@code dst[dstOff + (g * k + kk) * mr + r % mr]}
     * with g = r / mr, so a tile's k step reads its rows' values side by side. Rows up to the group
     * boundary are zeroed (stale values there could be denormals, slow in every FMA).
     */
    public static void interleave(float[] src, int srcOff, int lds, int rows, int k, int mr, float[] dst, int dstOff) {
        int padded = (rows + mr - 1) / mr * mr;
        for (int r = 0; r < padded; r++) {
            int g = dstOff + (r / mr) * k * mr + r % mr;
            if (r < rows) {
                int s = srcOff + r * lds;
                for (int kk = 0; kk < k; kk++) {
                    dst[g + kk * mr] = src[s + kk];
                }
            } else {
                for (int kk = 0; kk < k; kk++) {
                    dst[g + kk * mr] = 0f;
                }
            }
        }
    }

    /**
     * The tile of a group of interleaved rows ({@link #interleave}, group stride {@code mr}):
     * {@code c[cOff + r * NR + j] = sum_k a[aOff + kk * mr + r] * panel[kk][j]} for the group's
     * first {@code rows} rows, by the narrowest kernel that covers them (rows past {@code rows} are
     * left as they were, or computed from the group's padding).
     */
    public static void tileRows(float[] a, int aOff, int mr, int rows, int k, float[] panels, int panelOff,
            float[] c, int cOff) {
        if (rows == 1) {
            tile1(a, aOff, mr, k, panels, panelOff, c, cOff);
        } else if (rows <= 4 || MRW == 4) {
            tile4(a, aOff, 1, mr, k, panels, panelOff, c, cOff, NR);
        } else {
            tile14(a, aOff, k, panels, panelOff, c, cOff);
        }
    }

    /**
     * Four rows against one panel, 8 accumulators: row r's k-th value at
     * {@code a[aOff + r * rowStep + kk * kStep]} (rows stored one after another, or interleaved),
     * row r of the result at {@code c[cOff + r * ldc]}.
     */
    static void tile4(float[] a, int aOff, int rowStep, int kStep, int k, float[] panels, int panelOff,
            float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.zero(S);
        FloatVector c01 = c00;
        FloatVector c10 = c00;
        FloatVector c11 = c00;
        FloatVector c20 = c00;
        FloatVector c21 = c00;
        FloatVector c30 = c00;
        FloatVector c31 = c00;
        int pb = panelOff;
        for (int kk = 0; kk < k; kk++, pb += NR) {
            int ai = aOff + kk * kStep;
            FloatVector b0 = FloatVector.fromArray(S, panels, pb);
            FloatVector b1 = FloatVector.fromArray(S, panels, pb + VL);
            FloatVector x = FloatVector.broadcast(S, a[ai]);
            c00 = x.fma(b0, c00);
            c01 = x.fma(b1, c01);
            x = FloatVector.broadcast(S, a[ai + rowStep]);
            c10 = x.fma(b0, c10);
            c11 = x.fma(b1, c11);
            x = FloatVector.broadcast(S, a[ai + 2 * rowStep]);
            c20 = x.fma(b0, c20);
            c21 = x.fma(b1, c21);
            x = FloatVector.broadcast(S, a[ai + 3 * rowStep]);
            c30 = x.fma(b0, c30);
            c31 = x.fma(b1, c31);
        }
        c00.intoArray(c, cOff);
        c01.intoArray(c, cOff + VL);
        c10.intoArray(c, cOff + ldc);
        c11.intoArray(c, cOff + ldc + VL);
        c20.intoArray(c, cOff + 2 * ldc);
        c21.intoArray(c, cOff + 2 * ldc + VL);
        c30.intoArray(c, cOff + 3 * ldc);
        c31.intoArray(c, cOff + 3 * ldc + VL);
    }

    /**
     * Fourteen interleaved rows against one panel: 28 accumulators. Written out row by row because
     * accumulators must be locals to stay in registers; they go to the tile array after the loop
     * (the method stays small enough for C1, so it reaches C2).
     */
    private static void tile14(float[] a, int aOff, int k, float[] panels, int panelOff, float[] c, int cOff) {
        FloatVector z = FloatVector.zero(S);
        FloatVector x0 = z, y0 = z, x1 = z, y1 = z, x2 = z, y2 = z, x3 = z, y3 = z, x4 = z, y4 = z;
        FloatVector x5 = z, y5 = z, x6 = z, y6 = z, x7 = z, y7 = z, x8 = z, y8 = z, x9 = z, y9 = z;
        FloatVector x10 = z, y10 = z, x11 = z, y11 = z, x12 = z, y12 = z, x13 = z, y13 = z;
        int pb = panelOff;
        for (int kk = 0; kk < k; kk++, pb += NR) {
            int ai = aOff + kk * 14;
            FloatVector lo = FloatVector.fromArray(S, panels, pb);
            FloatVector hi = FloatVector.fromArray(S, panels, pb + VL);
            FloatVector v = FloatVector.broadcast(S, a[ai]);
            x0 = v.fma(lo, x0);
            y0 = v.fma(hi, y0);
            v = FloatVector.broadcast(S, a[ai + 1]);
            x1 = v.fma(lo, x1);
            y1 = v.fma(hi, y1);
            v = FloatVector.broadcast(S, a[ai + 2]);
            x2 = v.fma(lo, x2);
            y2 = v.fma(hi, y2);
            v = FloatVector.broadcast(S, a[ai + 3]);
            x3 = v.fma(lo, x3);
            y3 = v.fma(hi, y3);
            v = FloatVector.broadcast(S, a[ai + 4]);
            x4 = v.fma(lo, x4);
            y4 = v.fma(hi, y4);
            v = FloatVector.broadcast(S, a[ai + 5]);
            x5 = v.fma(lo, x5);
            y5 = v.fma(hi, y5);
            v = FloatVector.broadcast(S, a[ai + 6]);
            x6 = v.fma(lo, x6);
            y6 = v.fma(hi, y6);
            v = FloatVector.broadcast(S, a[ai + 7]);
            x7 = v.fma(lo, x7);
            y7 = v.fma(hi, y7);
            v = FloatVector.broadcast(S, a[ai + 8]);
            x8 = v.fma(lo, x8);
            y8 = v.fma(hi, y8);
            v = FloatVector.broadcast(S, a[ai + 9]);
            x9 = v.fma(lo, x9);
            y9 = v.fma(hi, y9);
            v = FloatVector.broadcast(S, a[ai + 10]);
            x10 = v.fma(lo, x10);
            y10 = v.fma(hi, y10);
            v = FloatVector.broadcast(S, a[ai + 11]);
            x11 = v.fma(lo, x11);
            y11 = v.fma(hi, y11);
            v = FloatVector.broadcast(S, a[ai + 12]);
            x12 = v.fma(lo, x12);
            y12 = v.fma(hi, y12);
            v = FloatVector.broadcast(S, a[ai + 13]);
            x13 = v.fma(lo, x13);
            y13 = v.fma(hi, y13);
        }
        int o = cOff;
        x0.intoArray(c, o);
        y0.intoArray(c, o + VL);
        x1.intoArray(c, o += NR);
        y1.intoArray(c, o + VL);
        x2.intoArray(c, o += NR);
        y2.intoArray(c, o + VL);
        x3.intoArray(c, o += NR);
        y3.intoArray(c, o + VL);
        x4.intoArray(c, o += NR);
        y4.intoArray(c, o + VL);
        x5.intoArray(c, o += NR);
        y5.intoArray(c, o + VL);
        x6.intoArray(c, o += NR);
        y6.intoArray(c, o + VL);
        x7.intoArray(c, o += NR);
        y7.intoArray(c, o + VL);
        x8.intoArray(c, o += NR);
        y8.intoArray(c, o + VL);
        x9.intoArray(c, o += NR);
        y9.intoArray(c, o + VL);
        x10.intoArray(c, o += NR);
        y10.intoArray(c, o + VL);
        x11.intoArray(c, o += NR);
        y11.intoArray(c, o + VL);
        x12.intoArray(c, o += NR);
        y12.intoArray(c, o + VL);
        x13.intoArray(c, o += NR);
        y13.intoArray(c, o + VL);
    }
}
