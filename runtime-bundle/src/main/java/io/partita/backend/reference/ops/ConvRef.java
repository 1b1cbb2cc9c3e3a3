package io.partita.backend.reference.ops;

import java.util.Arrays;

/**
 * The three convolution computations on a canonical problem, in double precision: forward,
 * backward data (also ConvTranspose's forward) and backward weights.
 *
 * <p>A problem has a "src" side ({@code G * icg} channels, sizes {@code src.sp}) and a "dst" side
 * ({@code G * ocg} channels, sizes {@code dst.sp}) related by
 * {@code dst(n, g*ocg+oc, o) = sum_{ic,k} src(n, g*icg+ic, o*stride + k*dilation - padBegin) * w(g*ocg+oc, ic, k)},
 * out-of-range src positions being zero. Weights are dense {@code [G*ocg][icg][KD][KH][KW]}. The
 * data tensors keep their own layouts ({@link SpatialLayout}).
 *
 * <p>The work is done per batch, group and tile of dst positions: the src values a tile reads are
 * gathered into a column matrix ({@code [icg*K][tile]}), and the products run as small matrix
 * products whose innermost loop walks contiguous rows, so large problems stream memory.
 */
final class ConvRef {
    private ConvRef() {
    }

    /** A canonical problem; kernel, strides, dilations (1-based) and begin pads in 3-D. */
    record Geom(int groups, int icg, int ocg, SpatialLayout src, SpatialLayout dst, int[] k, int[] s, int[] d,
            int[] pl) {
        int kernelSize() {
            return k[0] * k[1] * k[2];
        }

        int rows() {
            return icg * kernelSize();
        }
    }

    /** Dst positions per tile: whole planes when small, else enough to keep the columns near 512 KiB. */
    private static int tile(int positions, int rows) {
        return Math.max(1, Math.min(positions, Math.max(64, 65536 / Math.max(1, rows))));
    }

    /** The src-side start coordinates of the dst positions of a tile (before kernel offsets). */
    private static void tileStarts(Geom g, int p0, int tl, int[] bd, int[] bh, int[] bw) {
        int oh = g.dst.sp()[1];
        int ow = g.dst.sp()[2];
        int x = p0 % ow;
        int rest = p0 / ow;
        int y = rest % oh;
        int z = rest / oh;
        for (int t = 0; t < tl; t++) {
            bd[t] = z * g.s[0] - g.pl[0];
            bh[t] = y * g.s[1] - g.pl[1];
            bw[t] = x * g.s[2] - g.pl[2];
            if (++x == ow) {
                x = 0;
                if (++y == oh) {
                    y = 0;
                    z++;
                }
            }
        }
    }

    /** Gathers col[r][t] = src value under kernel row r for tile position t (0 outside). */
    private static void im2col(Geom g, double[] src, int n, int gi, int tl, double[][] col, int[] bd, int[] bh,
            int[] bw) {
        SpatialLayout s = g.src;
        int id0 = s.sp()[0];
        int ih0 = s.sp()[1];
        int iw0 = s.sp()[2];
        int xs = s.xStride();
        int r = 0;
        for (int ic = 0; ic < g.icg; ic++) {
            int base = s.base(n, gi * g.icg + ic);
            for (int kd = 0; kd < g.k[0]; kd++) {
                int od = kd * g.d[0];
                for (int kh = 0; kh < g.k[1]; kh++) {
                    int oh = kh * g.d[1];
                    for (int kw = 0; kw < g.k[2]; kw++) {
                        int ow = kw * g.d[2];
                        double[] row = col[r++];
                        for (int t = 0; t < tl; t++) {
                            int id = bd[t] + od;
                            int ih = bh[t] + oh;
                            int iw = bw[t] + ow;
                            row[t] = id >= 0 && id < id0 && ih >= 0 && ih < ih0 && iw >= 0 && iw < iw0
                                    ? src[base + ((id * ih0 + ih) * iw0 + iw) * xs]
                                    : 0;
                        }
                    }
                }
            }
        }
    }

    /** Adds col[r][t] back onto the src positions it was gathered from (the adjoint of im2col). */
    private static void col2im(Geom g, double[] src, int n, int gi, int tl, double[][] col, int[] bd, int[] bh,
            int[] bw) {
        SpatialLayout s = g.src;
        int id0 = s.sp()[0];
        int ih0 = s.sp()[1];
        int iw0 = s.sp()[2];
        int xs = s.xStride();
        int r = 0;
        for (int ic = 0; ic < g.icg; ic++) {
            int base = s.base(n, gi * g.icg + ic);
            for (int kd = 0; kd < g.k[0]; kd++) {
                int od = kd * g.d[0];
                for (int kh = 0; kh < g.k[1]; kh++) {
                    int oh = kh * g.d[1];
                    for (int kw = 0; kw < g.k[2]; kw++) {
                        int ow = kw * g.d[2];
                        double[] row = col[r++];
                        for (int t = 0; t < tl; t++) {
                            int id = bd[t] + od;
                            int ih = bh[t] + oh;
                            int iw = bw[t] + ow;
                            if (id >= 0 && id < id0 && ih >= 0 && ih < ih0 && iw >= 0 && iw < iw0) {
                                src[base + ((id * ih0 + ih) * iw0 + iw) * xs] += row[t];
                            }
                        }
                    }
                }
            }
        }
    }

    private static double[][] rows(int count, int length) {
        return new double[count][length];
    }

    /** dst = conv(src, w) + bias (bias may be null). */
    static void forward(Geom g, double[] src, double[] w, double[] bias, double[] dst) {
        int rr = g.rows();
        int positions = g.dst.size();
        int tsize = tile(positions, rr);
        double[][] col = rows(rr, tsize);
        double[][] acc = rows(4, tsize);
        int[] bd = new int[tsize];
        int[] bh = new int[tsize];
        int[] bw = new int[tsize];
        SpatialLayout o = g.dst;
        int xs = o.xStride();
        for (int n = 0; n < o.n(); n++) {
            for (int gi = 0; gi < g.groups; gi++) {
                for (int p0 = 0; p0 < positions; p0 += tsize) {
                    int tl = Math.min(tsize, positions - p0);
                    tileStarts(g, p0, tl, bd, bh, bw);
                    im2col(g, src, n, gi, tl, col, bd, bh, bw);
                    for (int oc = 0; oc < g.ocg; oc += 4) {
                        int m = Math.min(4, g.ocg - oc);
                        int wrow = (gi * g.ocg + oc) * rr;
                        if (m == 4) {
                            gemm4(w, wrow, rr, col, tl, acc);
                        } else {
                            for (int j = 0; j < m; j++) {
                                gemm1(w, wrow + j * rr, rr, col, tl, acc[j]);
                            }
                        }
                        for (int j = 0; j < m; j++) {
                            int ch = gi * g.ocg + oc + j;
                            double b = bias == null ? 0 : bias[ch];
                            double[] a = acc[j];
                            int base = o.base(n, ch) + p0 * xs;
                            for (int t = 0; t < tl; t++) {
                                dst[base + t * xs] = a[t] + b;
                            }
                        }
                    }
                }
            }
        }
    }

    /** acc[j][t] = sum_r w[wrow + j*rr + r] * col[r][t] for four consecutive weight rows. */
    private static void gemm4(double[] w, int wrow, int rr, double[][] col, int tl, double[][] acc) {
        double[] a0 = acc[0];
        double[] a1 = acc[1];
        double[] a2 = acc[2];
        double[] a3 = acc[3];
        Arrays.fill(a0, 0, tl, 0);
        Arrays.fill(a1, 0, tl, 0);
        Arrays.fill(a2, 0, tl, 0);
        Arrays.fill(a3, 0, tl, 0);
        for (int r = 0; r < rr; r++) {
            double x0 = w[wrow + r];
            double x1 = w[wrow + rr + r];
            double x2 = w[wrow + 2 * rr + r];
            double x3 = w[wrow + 3 * rr + r];
            double[] c = col[r];
            for (int t = 0; t < tl; t++) {
                double v = c[t];
                a0[t] += x0 * v;
                a1[t] += x1 * v;
                a2[t] += x2 * v;
                a3[t] += x3 * v;
            }
        }
    }

    private static void gemm1(double[] w, int wrow, int rr, double[][] col, int tl, double[] a) {
        Arrays.fill(a, 0, tl, 0);
        for (int r = 0; r < rr; r++) {
            double x = w[wrow + r];
            double[] c = col[r];
            for (int t = 0; t < tl; t++) {
                a[t] += x * c[t];
            }
        }
    }

    /** Copies the dst-side rows of a tile into contiguous rows: rowsOut[oc][t]. */
    private static void gatherDst(Geom g, double[] dd, int n, int gi, int p0, int tl, double[][] rowsOut) {
        SpatialLayout o = g.dst;
        int xs = o.xStride();
        for (int oc = 0; oc < g.ocg; oc++) {
            int base = o.base(n, gi * g.ocg + oc) + p0 * xs;
            double[] row = rowsOut[oc];
            if (xs == 1) {
                System.arraycopy(dd, base, row, 0, tl);
            } else {
                for (int t = 0; t < tl; t++) {
                    row[t] = dd[base + t * xs];
                }
            }
        }
    }

    /** diffSrc += conv^T(diffDst, w): the gradient of {@link #forward} with respect to src. */
    static void backwardData(Geom g, double[] diffDst, double[] w, double[] diffSrc) {
        int rr = g.rows();
        int positions = g.dst.size();
        int tsize = tile(positions, Math.max(rr, g.ocg));
        double[][] col = rows(rr, tsize);
        double[][] dd = rows(g.ocg, tsize);
        int[] bd = new int[tsize];
        int[] bh = new int[tsize];
        int[] bw = new int[tsize];
        for (int n = 0; n < g.dst.n(); n++) {
            for (int gi = 0; gi < g.groups; gi++) {
                for (int p0 = 0; p0 < positions; p0 += tsize) {
                    int tl = Math.min(tsize, positions - p0);
                    tileStarts(g, p0, tl, bd, bh, bw);
                    gatherDst(g, diffDst, n, gi, p0, tl, dd);
                    int wbase = gi * g.ocg * rr;
                    for (int r = 0; r < rr; r += 4) {
                        int m = Math.min(4, rr - r);
                        if (m == 4) {
                            transposedGemm4(w, wbase + r, rr, g.ocg, dd, tl, col[r], col[r + 1], col[r + 2], col[r + 3]);
                        } else {
                            for (int j = 0; j < m; j++) {
                                transposedGemm1(w, wbase + r + j, rr, g.ocg, dd, tl, col[r + j]);
                            }
                        }
                    }
                    col2im(g, diffSrc, n, gi, tl, col, bd, bh, bw);
                }
            }
        }
    }

    /** c_j[t] = sum_oc w[wcol + j + oc*rr] * dd[oc][t] for four consecutive weight columns. */
    private static void transposedGemm4(double[] w, int wcol, int rr, int ocg, double[][] dd, int tl, double[] c0,
            double[] c1, double[] c2, double[] c3) {
        Arrays.fill(c0, 0, tl, 0);
        Arrays.fill(c1, 0, tl, 0);
        Arrays.fill(c2, 0, tl, 0);
        Arrays.fill(c3, 0, tl, 0);
        for (int oc = 0; oc < ocg; oc++) {
            int o = wcol + oc * rr;
            double x0 = w[o];
            double x1 = w[o + 1];
            double x2 = w[o + 2];
            double x3 = w[o + 3];
            double[] d = dd[oc];
            for (int t = 0; t < tl; t++) {
                double v = d[t];
                c0[t] += x0 * v;
                c1[t] += x1 * v;
                c2[t] += x2 * v;
                c3[t] += x3 * v;
            }
        }
    }

    private static void transposedGemm1(double[] w, int wcol, int rr, int ocg, double[][] dd, int tl, double[] c) {
        Arrays.fill(c, 0, tl, 0);
        for (int oc = 0; oc < ocg; oc++) {
            double x = w[wcol + oc * rr];
            double[] d = dd[oc];
            for (int t = 0; t < tl; t++) {
                c[t] += x * d[t];
            }
        }
    }

    /** diffW[G*ocg][icg*K] += sum over batch and positions of diffDst x src columns. */
    static void backwardWeights(Geom g, double[] src, double[] diffDst, double[] diffW) {
        int rr = g.rows();
        int positions = g.dst.size();
        int tsize = tile(positions, Math.max(rr, g.ocg));
        double[][] col = rows(rr, tsize);
        double[][] dd = rows(g.ocg, tsize);
        int[] bd = new int[tsize];
        int[] bh = new int[tsize];
        int[] bw = new int[tsize];
        for (int n = 0; n < g.dst.n(); n++) {
            for (int gi = 0; gi < g.groups; gi++) {
                for (int p0 = 0; p0 < positions; p0 += tsize) {
                    int tl = Math.min(tsize, positions - p0);
                    tileStarts(g, p0, tl, bd, bh, bw);
                    im2col(g, src, n, gi, tl, col, bd, bh, bw);
                    gatherDst(g, diffDst, n, gi, p0, tl, dd);
                    for (int oc = 0; oc < g.ocg; oc++) {
                        double[] d = dd[oc];
                        int wrow = (gi * g.ocg + oc) * rr;
                        int r = 0;
                        for (; r + 4 <= rr; r += 4) {
                            double[] c0 = col[r];
                            double[] c1 = col[r + 1];
                            double[] c2 = col[r + 2];
                            double[] c3 = col[r + 3];
                            double s0 = 0;
                            double s1 = 0;
                            double s2 = 0;
                            double s3 = 0;
                            for (int t = 0; t < tl; t++) {
                                double v = d[t];
                                s0 += v * c0[t];
                                s1 += v * c1[t];
                                s2 += v * c2[t];
                                s3 += v * c3[t];
                            }
                            diffW[wrow + r] += s0;
                            diffW[wrow + r + 1] += s1;
                            diffW[wrow + r + 2] += s2;
                            diffW[wrow + r + 3] += s3;
                        }
                        for (; r < rr; r++) {
                            double[] c = col[r];
                            double s = 0;
                            for (int t = 0; t < tl; t++) {
                                s += d[t] * c[t];
                            }
                            diffW[wrow + r] += s;
                        }
                    }
                }
            }
        }
    }
}
