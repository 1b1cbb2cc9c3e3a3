package io.partita.backend.reference.ops;

/**
 * Nearest and (multi)linear interpolation, forward and backward, in double precision, on data in
 * either layout ({@link SpatialLayout}). Each dst position of an axis maps to a src coordinate:
 * {@code half_pixel}: {@code (o + 0.5) * in / out - 0.5}; {@code align_corners}:
 * {@code o * (in - 1) / (out - 1)} (0 when {@code out == 1}). The scale is always the ratio of the
 * actual sizes, as oneDNN's resampling. Nearest rounds the coordinate half away from zero;
 * linear blends the two neighbours {@code max(trunc(x), 0)} and {@code min(ceil(x), in - 1)},
 * which clamps at the borders. Backward scatters each diff_dst value with the same weights (the
 * exact adjoint of forward).
 */
final class InterpRef {
    private InterpRef() {
    }

    /** For each dst position of one axis: two src indices and their weights. */
    record Axis(int[] i0, int[] i1, double[] w0, double[] w1) {
        static Axis of(int out, int in, boolean linear, boolean alignCorners) {
            int[] i0 = new int[out];
            int[] i1 = new int[out];
            double[] w0 = new double[out];
            double[] w1 = new double[out];
            for (int o = 0; o < out; o++) {
                double x = alignCorners ? (out == 1 ? 0 : (double) o * (in - 1) / (out - 1))
                        : (o + 0.5) * in / out - 0.5;
                if (!linear) {
                    long r = x < 0 ? -Math.round(-x) : Math.round(x);
                    int idx = (int) Math.max(0, Math.min(in - 1, r));
                    i0[o] = idx;
                    i1[o] = idx;
                    w0[o] = 1;
                    w1[o] = 0;
                    continue;
                }
                int left = (int) Math.max(0, (long) x);
                int right = x < 0 ? 0 : (int) Math.min(in - 1, (long) Math.ceil(x));
                double wr = Math.abs(x - left);
                i0[o] = Math.min(left, in - 1);
                i1[o] = right;
                w0[o] = 1 - wr;
                w1[o] = wr;
            }
            return new Axis(i0, i1, w0, w1);
        }
    }

    private static Axis[] axes(SpatialLayout src, SpatialLayout dst, boolean linear, boolean alignCorners) {
        Axis[] a = new Axis[3];
        for (int i = 0; i < 3; i++) {
            a[i] = Axis.of(dst.sp()[i], src.sp()[i], linear, alignCorners);
        }
        return a;
    }

    /** dst = interpolation of src. */
    static void forward(SpatialLayout src, SpatialLayout dst, boolean linear, boolean alignCorners, double[] x,
            double[] y) {
        walk(src, dst, linear, alignCorners, (si, wi, count, di) -> {
            double v = 0;
            for (int i = 0; i < count; i++) {
                v += wi[i] * x[si[i]];
            }
            y[di] = v;
        });
    }

    /** diffSrc += the adjoint of forward applied to diffDst. */
    static void backward(SpatialLayout src, SpatialLayout dst, boolean linear, boolean alignCorners,
            double[] diffDst, double[] diffSrc) {
        walk(src, dst, linear, alignCorners, (si, wi, count, di) -> {
            double g = diffDst[di];
            for (int i = 0; i < count; i++) {
                diffSrc[si[i]] += wi[i] * g;
            }
        });
    }

    /** Receives one dst position: its src taps (offsets and weights) and its dst offset. */
    @FunctionalInterface
    private interface Taps {
        void visit(int[] srcOffsets, double[] weights, int count, int dstOffset);
    }

    private static void walk(SpatialLayout src, SpatialLayout dst, boolean linear, boolean alignCorners, Taps f) {
        Axis[] ax = axes(src, dst, linear, alignCorners);
        int ih = src.sp()[1];
        int iw = src.sp()[2];
        int sx = src.xStride();
        int ox = dst.xStride();
        int[] si = new int[8];
        double[] wi = new double[8];
        int taps = linear ? 2 : 1;
        for (int n = 0; n < dst.n(); n++) {
            for (int c = 0; c < dst.c(); c++) {
                int sBase = src.base(n, c);
                int dBase = dst.base(n, c);
                int p = 0;
                for (int od = 0; od < dst.sp()[0]; od++) {
                    for (int oh = 0; oh < dst.sp()[1]; oh++) {
                        for (int ow = 0; ow < dst.sp()[2]; ow++, p++) {
                            int count = 0;
                            for (int a = 0; a < taps; a++) {
                                int zd = a == 0 ? ax[0].i0[od] : ax[0].i1[od];
                                double wd = a == 0 ? ax[0].w0[od] : ax[0].w1[od];
                                for (int b = 0; b < taps; b++) {
                                    int zh = b == 0 ? ax[1].i0[oh] : ax[1].i1[oh];
                                    double wh = b == 0 ? ax[1].w0[oh] : ax[1].w1[oh];
                                    for (int e = 0; e < taps; e++) {
                                        int zw = e == 0 ? ax[2].i0[ow] : ax[2].i1[ow];
                                        double ww = e == 0 ? ax[2].w0[ow] : ax[2].w1[ow];
                                        si[count] = sBase + ((zd * ih + zh) * iw + zw) * sx;
                                        wi[count++] = wd * wh * ww;
                                    }
                                }
                            }
                            f.visit(si, wi, count, dBase + p * ox);
                        }
                    }
                }
            }
        }
    }
}
