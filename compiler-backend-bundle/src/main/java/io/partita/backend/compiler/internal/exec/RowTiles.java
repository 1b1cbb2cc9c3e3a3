package io.partita.backend.compiler.internal.exec;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Register tiles of attention's two products, {@code c = a . B} for a group of rows of {@code a}
 * and one panel of B ({@link Panels} layout): the query rows against K panels, the probability
 * rows against V panels. The rows of {@code a} sit at the constant stride {@link #STRIDE}, so
 * each broadcast of the 14-row tile is an address with a constant displacement. {@link Panels}'
 * 14-row tile reads rows interleaved instead, and interleaving the softmax's probability rows
 * would cost about as much as the product; a stride passed as a parameter would cost one
 * register per row.
 */
final class RowTiles {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int VL = S.length();
    private static final int NR = Panels.NR;
    /**
     * Floats between consecutive rows of {@code a}: room for 512 and one cache line more, so the
     * fourteen rows read side by side fall in different L1 sets (at 2 KiB apart they shared two).
     */
    static final int STRIDE = 528;

    private RowTiles() {
    }

    /**
     * {@code c[cOff + r * ldc + j] = sum_kk a[r * STRIDE + kk] * panel[kk][j]} for the first
     * {@code rows} rows (at most {@link Panels#MRW}), by the narrowest tile that covers them; the
     * tile's other rows, if any, are computed from what {@code a} holds there.
     */
    static void product(float[] a, int rows, int k, float[] panels, int panelOff, float[] c, int cOff, int ldc) {
        if (rows == 1) {
            Panels.tile1(a, 0, 1, k, panels, panelOff, c, cOff);
        } else if (rows <= 4 || Panels.MRW == 4) {
            Panels.tile4(a, 0, STRIDE, 1, k, panels, panelOff, c, cOff, ldc); // four offsets: registers to spare
        } else {
            tile14(a, k, panels, panelOff, c, cOff, ldc);
        }
    }

    /** Fourteen rows against one panel, 28 accumulators (written out: they must be locals to stay in registers). */
    private static void tile14(float[] a, int k, float[] panels, int panelOff, float[] c, int cOff, int ldc) {
        FloatVector z = FloatVector.zero(S);
        FloatVector x0 = z, y0 = z, x1 = z, y1 = z, x2 = z, y2 = z, x3 = z, y3 = z, x4 = z, y4 = z;
        FloatVector x5 = z, y5 = z, x6 = z, y6 = z, x7 = z, y7 = z, x8 = z, y8 = z, x9 = z, y9 = z;
        FloatVector x10 = z, y10 = z, x11 = z, y11 = z, x12 = z, y12 = z, x13 = z, y13 = z;
        int pb = panelOff;
        for (int j = 0; j < k; j++, pb += NR) {
            FloatVector lo = FloatVector.fromArray(S, panels, pb);
            FloatVector hi = FloatVector.fromArray(S, panels, pb + VL);
            FloatVector v = FloatVector.broadcast(S, a[j]);
            x0 = v.fma(lo, x0);
            y0 = v.fma(hi, y0);
            v = FloatVector.broadcast(S, a[STRIDE + j]);
            x1 = v.fma(lo, x1);
            y1 = v.fma(hi, y1);
            v = FloatVector.broadcast(S, a[2 * STRIDE + j]);
            x2 = v.fma(lo, x2);
            y2 = v.fma(hi, y2);
            v = FloatVector.broadcast(S, a[3 * STRIDE + j]);
            x3 = v.fma(lo, x3);
            y3 = v.fma(hi, y3);
            v = FloatVector.broadcast(S, a[4 * STRIDE + j]);
            x4 = v.fma(lo, x4);
            y4 = v.fma(hi, y4);
            v = FloatVector.broadcast(S, a[5 * STRIDE + j]);
            x5 = v.fma(lo, x5);
            y5 = v.fma(hi, y5);
            v = FloatVector.broadcast(S, a[6 * STRIDE + j]);
            x6 = v.fma(lo, x6);
            y6 = v.fma(hi, y6);
            v = FloatVector.broadcast(S, a[7 * STRIDE + j]);
            x7 = v.fma(lo, x7);
            y7 = v.fma(hi, y7);
            v = FloatVector.broadcast(S, a[8 * STRIDE + j]);
            x8 = v.fma(lo, x8);
            y8 = v.fma(hi, y8);
            v = FloatVector.broadcast(S, a[9 * STRIDE + j]);
            x9 = v.fma(lo, x9);
            y9 = v.fma(hi, y9);
            v = FloatVector.broadcast(S, a[10 * STRIDE + j]);
            x10 = v.fma(lo, x10);
            y10 = v.fma(hi, y10);
            v = FloatVector.broadcast(S, a[11 * STRIDE + j]);
            x11 = v.fma(lo, x11);
            y11 = v.fma(hi, y11);
            v = FloatVector.broadcast(S, a[12 * STRIDE + j]);
            x12 = v.fma(lo, x12);
            y12 = v.fma(hi, y12);
            v = FloatVector.broadcast(S, a[13 * STRIDE + j]);
            x13 = v.fma(lo, x13);
            y13 = v.fma(hi, y13);
        }
        int o = cOff;
        x0.intoArray(c, o);
        y0.intoArray(c, o + VL);
        x1.intoArray(c, o += ldc);
        y1.intoArray(c, o + VL);
        x2.intoArray(c, o += ldc);
        y2.intoArray(c, o + VL);
        x3.intoArray(c, o += ldc);
        y3.intoArray(c, o + VL);
        x4.intoArray(c, o += ldc);
        y4.intoArray(c, o + VL);
        x5.intoArray(c, o += ldc);
        y5.intoArray(c, o + VL);
        x6.intoArray(c, o += ldc);
        y6.intoArray(c, o + VL);
        x7.intoArray(c, o += ldc);
        y7.intoArray(c, o + VL);
        x8.intoArray(c, o += ldc);
        y8.intoArray(c, o + VL);
        x9.intoArray(c, o += ldc);
        y9.intoArray(c, o + VL);
        x10.intoArray(c, o += ldc);
        y10.intoArray(c, o + VL);
        x11.intoArray(c, o += ldc);
        y11.intoArray(c, o + VL);
        x12.intoArray(c, o += ldc);
        y12.intoArray(c, o + VL);
        x13.intoArray(c, o += ldc);
        y13.intoArray(c, o + VL);
    }

}
