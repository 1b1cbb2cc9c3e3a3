package io.partita.backend.reference.ops;

/**
 * Max and average pooling, forward and backward, in double precision, on data in either layout
 * ({@link SpatialLayout}). Window {@code o} of an axis covers src positions
 * {@code o * stride - padBegin + k * dilation} for {@code k < kernel}; positions outside the src
 * are padding: ignored by max, counted in the average's divisor only without {@code exclude_pad}.
 */
final class PoolRef {
    private PoolRef() {
    }

    /** Kernel, strides, dilations (1-based) and begin pads in 3-D. */
    record Geom(SpatialLayout src, SpatialLayout dst, int[] k, int[] s, int[] d, int[] pl) {
    }

    /** For each window of one axis: its first src position and the range [lo, hi) of in-range k. */
    private record Axis(int[] first, int[] lo, int[] hi) {
        static Axis of(int out, int in, int k, int s, int d, int pl) {
            int[] first = new int[out];
            int[] lo = new int[out];
            int[] hi = new int[out];
            for (int o = 0; o < out; o++) {
                int f = o * s - pl;
                int l = f >= 0 ? 0 : Math.ceilDiv(-f, d);
                int h = f > in - 1 ? 0 : Math.min(k, Math.floorDiv(in - 1 - f, d) + 1);
                first[o] = f;
                lo[o] = Math.min(l, k);
                hi[o] = Math.max(h, lo[o]);
            }
            return new Axis(first, lo, hi);
        }
    }

    private static Axis[] axes(Geom g) {
        Axis[] a = new Axis[3];
        for (int i = 0; i < 3; i++) {
            a[i] = Axis.of(g.dst.sp()[i], g.src.sp()[i], g.k[i], g.s[i], g.d[i], g.pl[i]);
        }
        return a;
    }

    /**
     * dst = max over each window's in-range values ({@code empty} when a window has none); a NaN
     * anywhere in the window makes the result NaN, as NumPy's and PyTorch's max pooling (it used to
     * count only as the window's first value, any later NaN being skipped by the comparison).
     */
    static void maxForward(Geom g, double[] src, double[] dst, double empty) {
        walk(g, (si, di, count) -> {
            if (count == 0) {
                dst[di[0]] = empty;
                return;
            }
            double m = src[si[0]];
            for (int i = 1; i < count; i++) {
                double v = src[si[i]];
                if (v > m || Double.isNaN(v)) {
                    m = v;
                }
            }
            dst[di[0]] = m;
        });
    }

    /** diffSrc[argmax of each window] += diffDst (the first maximum in window order). */
    static void maxBackward(Geom g, double[] src, double[] diffDst, double[] diffSrc) {
        walk(g, (si, di, count) -> {
            if (count == 0) {
                return;
            }
            int arg = si[0];
            double m = src[arg];
            for (int i = 1; i < count; i++) {
                double v = src[si[i]];
                if (v > m) {
                    m = v;
                    arg = si[i];
                }
            }
            diffSrc[arg] += diffDst[di[0]];
        });
    }

    /** dst = sum of in-range values / divisor (window size, or in-range count with excludePad). */
    static void avgForward(Geom g, double[] src, double[] dst, boolean excludePad) {
        int full = g.k[0] * g.k[1] * g.k[2];
        walk(g, (si, di, count) -> {
            double sum = 0;
            for (int i = 0; i < count; i++) {
                sum += src[si[i]];
            }
            int div = excludePad ? count : full;
            dst[di[0]] = div == 0 ? 0 : sum / div;
        });
    }

    /** diffSrc += diffDst / divisor over each window's in-range positions. */
    static void avgBackward(Geom g, double[] diffDst, double[] diffSrc, boolean excludePad) {
        int full = g.k[0] * g.k[1] * g.k[2];
        walk(g, (si, di, count) -> {
            int div = excludePad ? count : full;
            if (div == 0) {
                return;
            }
            double v = diffDst[di[0]] / div;
            for (int i = 0; i < count; i++) {
                diffSrc[si[i]] += v;
            }
        });
    }

    /** Receives one window: the src offsets of its in-range positions (window order), and dst offset. */
    @FunctionalInterface
    private interface Window {
        void visit(int[] srcOffsets, int[] dstOffset, int count);
    }

    /** Visits every window of every (batch, channel) plane. */
    private static void walk(Geom g, Window f) {
        Axis[] ax = axes(g);
        SpatialLayout s = g.src;
        SpatialLayout o = g.dst;
        int ih = s.sp()[1];
        int iw = s.sp()[2];
        int sx = s.xStride();
        int ox = o.xStride();
        int[] si = new int[g.k[0] * g.k[1] * g.k[2]];
        int[] di = new int[1];
        for (int n = 0; n < o.n(); n++) {
            for (int c = 0; c < o.c(); c++) {
                int sBase = s.base(n, c);
                int dBase = o.base(n, c);
                int p = 0;
                for (int od = 0; od < o.sp()[0]; od++) {
                    int fd = ax[0].first[od];
                    for (int oh = 0; oh < o.sp()[1]; oh++) {
                        int fh = ax[1].first[oh];
                        for (int ow = 0; ow < o.sp()[2]; ow++, p++) {
                            int fw = ax[2].first[ow];
                            int count = 0;
                            for (int kd = ax[0].lo[od]; kd < ax[0].hi[od]; kd++) {
                                int zd = (fd + kd * g.d[0]) * ih;
                                for (int kh = ax[1].lo[oh]; kh < ax[1].hi[oh]; kh++) {
                                    int zh = (zd + fh + kh * g.d[1]) * iw;
                                    for (int kw = ax[2].lo[ow]; kw < ax[2].hi[ow]; kw++) {
                                        si[count++] = sBase + (zh + fw + kw * g.d[2]) * sx;
                                    }
                                }
                            }
                            di[0] = dBase + p * ox;
                            f.visit(si, di, count);
                        }
                    }
                }
            }
        }
    }
}
