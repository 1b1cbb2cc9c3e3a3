package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Weights packed for the register tile: column panels of {@link #NR} floats, each panel its K
 * rows back to back, so the tile streams one panel contiguously; columns past N and rows past K
 * (padding) are zeros. Also the 4 x NR tile itself.
 */
public final class Panels {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    static final int VL = S.length();
    /** Columns per panel: two vectors. */
    public static final int NR = 2 * VL;
    /** Rows per tile. */
    public static final int MR = 4;

    private Panels() {
    }

    public static int panels(long n) {
        return (int) ((n + NR - 1) / NR);
    }

    /** Bytes of a packed [rowsPadded x n] matrix. */
    public static long bytes(long rowsPadded, long n) {
        return (long) panels(n) * rowsPadded * NR * Float.BYTES;
    }

    /**
     * Packs B (rows x cols, element strides rowStride/colStride from base) into {@code dst},
     * padding rows to {@code rowsPadded}.
     */
    public static void pack(MemorySegment b, long base, long rowStride, long colStride, int rows, int cols,
            int rowsPadded, MemorySegment dst) {
        int panels = panels(cols);
        float[] line = new float[NR];
        for (int p = 0; p < panels; p++) {
            int c0 = p * NR;
            int w = Math.min(NR, cols - c0);
            for (int k = 0; k < rowsPadded; k++) {
                java.util.Arrays.fill(line, 0f);
                if (k < rows) {
                    long src = base + k * rowStride + c0 * colStride;
                    if (colStride == 1) {
                        MemorySegment.copy(b, ValueLayout.JAVA_FLOAT, src * 4, line, 0, w);
                    } else {
                        for (int c = 0; c < w; c++) {
                            line[c] = b.getAtIndex(ValueLayout.JAVA_FLOAT, src + c * colStride);
                        }
                    }
                }
                MemorySegment.copy(line, 0, dst, ValueLayout.JAVA_FLOAT, ((long) p * rowsPadded + k) * NR * 4, NR);
            }
        }
    }

    /**
     * {@code c[r][0..NR) = sum_k a[r][k] * panel[k][0..NR)} for four rows of {@code a} (row
     * stride {@code lda}) and one packed panel.
     */
    public static void tile(float[] a, int aOff, int lda, int k, MemorySegment panels, long panelByte, float[] c,
            int cOff) {
        FloatVector c00 = FloatVector.zero(S);
        FloatVector c01 = c00;
        FloatVector c10 = c00;
        FloatVector c11 = c00;
        FloatVector c20 = c00;
        FloatVector c21 = c00;
        FloatVector c30 = c00;
        FloatVector c31 = c00;
        int a0 = aOff;
        int a1 = aOff + lda;
        int a2 = aOff + 2 * lda;
        int a3 = aOff + 3 * lda;
        long pb = panelByte;
        for (int kk = 0; kk < k; kk++, pb += NR * 4L) {
            FloatVector b0 = FloatVector.fromMemorySegment(S, panels, pb, ByteOrder.nativeOrder());
            FloatVector b1 = FloatVector.fromMemorySegment(S, panels, pb + VL * 4L, ByteOrder.nativeOrder());
            FloatVector x = FloatVector.broadcast(S, a[a0 + kk]);
            c00 = x.fma(b0, c00);
            c01 = x.fma(b1, c01);
            x = FloatVector.broadcast(S, a[a1 + kk]);
            c10 = x.fma(b0, c10);
            c11 = x.fma(b1, c11);
            x = FloatVector.broadcast(S, a[a2 + kk]);
            c20 = x.fma(b0, c20);
            c21 = x.fma(b1, c21);
            x = FloatVector.broadcast(S, a[a3 + kk]);
            c30 = x.fma(b0, c30);
            c31 = x.fma(b1, c31);
        }
        c00.intoArray(c, cOff);
        c01.intoArray(c, cOff + VL);
        c10.intoArray(c, cOff + NR);
        c11.intoArray(c, cOff + NR + VL);
        c20.intoArray(c, cOff + 2 * NR);
        c21.intoArray(c, cOff + 2 * NR + VL);
        c30.intoArray(c, cOff + 3 * NR);
        c31.intoArray(c, cOff + 3 * NR + VL);
    }

    /**
     * The tile for one row (a projection of a single token): the four-row tile would spend three
     * quarters of its FMAs on padding, and with one row the loop is bound by streaming the panel, so
     * two steps of K run side by side into separate accumulators instead.
     */
    public static void tile1(float[] a, int aOff, int k, MemorySegment panels, long panelByte, float[] c, int cOff) {
        FloatVector c0 = FloatVector.zero(S);
        FloatVector c1 = c0;
        FloatVector d0 = c0;
        FloatVector d1 = c0;
        long pb = panelByte;
        int kk = 0;
        for (; kk + 1 < k; kk += 2, pb += 2 * NR * 4L) {
            FloatVector x = FloatVector.broadcast(S, a[aOff + kk]);
            FloatVector y = FloatVector.broadcast(S, a[aOff + kk + 1]);
            c0 = x.fma(FloatVector.fromMemorySegment(S, panels, pb, ByteOrder.nativeOrder()), c0);
            c1 = x.fma(FloatVector.fromMemorySegment(S, panels, pb + VL * 4L, ByteOrder.nativeOrder()), c1);
            d0 = y.fma(FloatVector.fromMemorySegment(S, panels, pb + NR * 4L, ByteOrder.nativeOrder()), d0);
            d1 = y.fma(FloatVector.fromMemorySegment(S, panels, pb + (NR + VL) * 4L, ByteOrder.nativeOrder()), d1);
        }
        if (kk < k) {
            FloatVector x = FloatVector.broadcast(S, a[aOff + kk]);
            c0 = x.fma(FloatVector.fromMemorySegment(S, panels, pb, ByteOrder.nativeOrder()), c0);
            c1 = x.fma(FloatVector.fromMemorySegment(S, panels, pb + VL * 4L, ByteOrder.nativeOrder()), c1);
        }
        c0.add(d0).intoArray(c, cOff);
        c1.add(d1).intoArray(c, cOff + VL);
    }
}
