package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.postops.StoreChain;

/**
 * Channels-last (NXC) convolution as an implicit GEMM with no im2col: output pixels are the GEMM
 * rows, six at a time, each reading its input values as scalars straight from the (zero-padded)
 * image at {@code pixel + tap offset + channel}; output channels are the vector lanes, against
 * weights packed once into panels of 64 channels with K rows ordered (tap, input channel).
 * Depthwise convolutions (one input and one output channel per group) put the channels on the
 * lanes instead.
 *
 * <p>Images are copied into a zero-padded heap buffer once per execution (per thread running the
 * primitive, reused): the kernels read arrays much faster than memory segments. Work is split
 * evenly over (image, group, block of 96 pixels, panel, six pixels).
 */
final class NxcConv {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final int NR = 64;
    private static final int BLOCK_PIXELS = 96;
    /** K rows of a weight panel per pass (a 512 KB panel stays in L2 while the block's pixels sweep it). */
    private static final int K_BUDGET = 2048;
    private static final long PAD_BUDGET = 4L * 1024 * 1024;

    private final ConvShape s;
    private final boolean depthwise;
    private final int hp;
    private final int wp;
    private final long strideW;
    private final long strideH;
    private final long imageStride;
    private final int[] tapOff;
    private final int taps;
    final int panels;
    private final int tapsPerPass;
    private final int imagesPerChunk;
    private final int depthwiseStride;
    private final boolean plain;

    NxcConv(ConvShape s) {
        this.s = s;
        depthwise = s.icg() == 1 && s.ocg() == 1;
        taps = s.kh() * s.kw();
        hp = (s.oh() - 1) * s.sh() + s.effKh();
        wp = (s.ow() - 1) * s.sw() + s.effKw();
        // 1x1 reading only inside the image, channels contiguous: each block copies its pixels' channels
        plain = s.kh() == 1 && s.kw() == 1 && s.pt() == 0 && s.pl() == 0 && hp <= s.ih() && wp <= s.iw()
                && s.sC() == 1 && !(s.icg() == 1 && s.ocg() == 1);
        strideW = s.ic();
        strideH = (long) wp * s.ic();
        imageStride = hp * strideH;
        tapOff = new int[taps];
        for (int y = 0; y < s.kh(); y++) {
            for (int x = 0; x < s.kw(); x++) {
                tapOff[y * s.kw() + x] = Math.toIntExact((long) y * s.dh() * strideH + (long) x * s.dw() * strideW);
            }
        }
        panels = (s.ocg() + NR - 1) / NR;
        tapsPerPass = Math.max(1, Math.min(taps, K_BUDGET / s.icg()));
        imagesPerChunk = (int) Math.max(1, Math.min(s.n(), PAD_BUDGET / imageStride));
        depthwiseStride = (s.oc() + 15) / 16 * 16;
    }

    /** Passes over the reduction (K) each output block takes: more than one when K is split to stay in cache. */
    int reductionPasses() {
        return depthwise ? 1 : Math.ceilDiv(taps, tapsPerPass);
    }

    /** Floats of the packed weights. */
    long packedLength() {
        return depthwise ? (long) taps * depthwiseStride : (long) s.groups() * panels * s.k() * NR;
    }

    /**
     * Packs weights given by their strides in (o, i, h, w) order: per group and panel of 64
     * channels, K rows (tap, input channel) of 64 floats (zero past the group's channels); for a
     * depthwise convolution, per tap one row of every channel.
     */
    void packWeights(MemorySegment w, long so, long si, long sh, long sw, float[] dst) {
        if (depthwise) {
            Arrays.fill(dst, 0, (int) packedLength(), 0f);
            for (int c = 0; c < s.oc(); c++) {
                for (int y = 0; y < s.kh(); y++) {
                    for (int x = 0; x < s.kw(); x++) {
                        dst[(y * s.kw() + x) * depthwiseStride + c] = w.get(F, 4L * (c * so + y * sh + x * sw));
                    }
                }
            }
            return;
        }
        int k = s.k();
        int icg = s.icg();
        int ocg = s.ocg();
        for (int g = 0; g < s.groups(); g++) {
            for (int p = 0; p < panels; p++) {
                int base = (g * panels + p) * k * NR;
                for (int t = 0; t < taps; t++) {
                    int y = t / s.kw();
                    int x = t % s.kw();
                    for (int i = 0; i < icg; i++) {
                        int row = base + (t * icg + i) * NR;
                        for (int j = 0; j < NR; j++) {
                            int o = p * NR + j;
                            dst[row + j] = o >= ocg ? 0f
                                    : w.get(F, 4L * ((long) (g * ocg + o) * so + i * si + y * sh + x * sw));
                        }
                    }
                }
            }
        }
    }

    void run(MemorySegment src, float[] weights, MemorySegment dst, StoreChain.Bound post, CpuTeam pool) {
        for (int img0 = 0; img0 < s.n(); img0 += imagesPerChunk) {
            int imgs = Math.min(imagesPerChunk, s.n() - img0);
            int first = img0;
            float[] x = plain ? null : NcxConv.Scratch.get().planes(imgs * imageStride);
            if (!plain) {
                NcxConv.forEach(pool, imgs * hp, (from, to) -> {
                    for (int i = from; i < to; i++) {
                        padRow(src, first + i / hp, i % hp, x, i * strideH);
                    }
                });
            }
            int b = -first;
            if (depthwise) {
                NcxConv.forEach(pool, imgs * s.pixels(), (from, to) -> {
                    NcxConv.Scratch sc = NcxConv.Scratch.get();
                    for (int u = from; u < to; u++) {
                        depthwisePixel(x, b, weights, dst, post, first + u / s.pixels(), u % s.pixels(), sc);
                    }
                });
                continue;
            }
            // Tasks are (image, group, pixel block, panel, six pixels), six pixels innermost: each thread's
            // contiguous share is equal to six pixels, and a panel stays hot over a block's pixels.
            SixPixelTasks space = new SixPixelTasks(s.pixels(), BLOCK_PIXELS, panels);
            NcxConv.forEach(pool, imgs * s.groups() * space.perOuter(), (from, to) -> {
                NcxConv.Scratch sc = NcxConv.Scratch.get();
                SixPixelTasks at = new SixPixelTasks(s.pixels(), BLOCK_PIXELS, panels);
                long packed = -1;
                for (int u = from; u < to; u += at.length) {
                    at.seek(u, to);
                    int grp = at.outer % s.groups();
                    int img = first + at.outer / s.groups();
                    if (plain) {
                        float[] panelBuf = sc.panel(BLOCK_PIXELS * s.icg());
                        if (at.blockKey != packed) {
                            int firstPixel = at.block * BLOCK_PIXELS;
                            int count = Math.min(s.pixels(), firstPixel + BLOCK_PIXELS) - firstPixel;
                            for (int i = 0; i < count; i++) {
                                int oy = (firstPixel + i) / s.ow();
                                int ox = (firstPixel + i) % s.ow();
                                NcxConv.copy(src, img * s.sN() + (long) oy * s.sh() * s.sH()
                                        + (long) ox * s.sw() * s.sW() + (long) grp * s.icg(), panelBuf, i * s.icg(), s.icg());
                            }
                            packed = at.blockKey;
                        }
                        unit(panelBuf, 0, weights, dst, post, img, grp, at.panel, at.px0, at.px1, sc);
                    } else {
                        unit(x, b, weights, dst, post, img, grp, at.panel, at.px0, at.px1, sc);
                    }
                }
            });
        }
    }

    /**
     * Where output pixel p's input window starts: in the padded buffer (image img at base + img,
     * group grp), or in a block's copy of its pixels' channels.
     */
    private int pixelBase(int base, int img, int grp, int p) {
        if (plain) {
            return (p - p / BLOCK_PIXELS * BLOCK_PIXELS) * s.icg();
        }
        int oy = p / s.ow();
        int ox = p - oy * s.ow();
        return Math.toIntExact((base + img) * imageStride + (long) oy * s.sh() * strideH + (long) ox * s.sw() * strideW
                + (long) grp * s.icg());
    }

    /** Output pixels [px0, px1) of image img and group grp against weight panel p. */
    private void unit(float[] x, int base, float[] weights, MemorySegment dst, StoreChain.Bound post, int img,
            int grp, int p, int px0, int px1, NcxConv.Scratch sc) {
        int k = s.k();
        int icg = s.icg();
        float[] tile = sc.tile;
        int ch = grp * s.ocg() + p * NR;
        int cols = Math.min(NR, s.ocg() - p * NR);
        for (int t0 = 0; t0 < taps; t0 += tapsPerPass) {
            int t1 = Math.min(taps, t0 + tapsPerPass);
            boolean accumulate = t0 > 0;
            boolean finish = t1 == taps;
            int bOff = ((grp * panels + p) * k + t0 * icg) * NR;
            for (int px = px0; px < px1; px += 6) {
                int rows = Math.min(6, px1 - px);
                int a0 = pixelBase(base, img, grp, px);
                int a1 = rows > 1 ? pixelBase(base, img, grp, px + 1) : a0;
                int a2 = rows > 2 ? pixelBase(base, img, grp, px + 2) : a0;
                int a3 = rows > 3 ? pixelBase(base, img, grp, px + 3) : a0;
                int a4 = rows > 4 ? pixelBase(base, img, grp, px + 4) : a0;
                int a5 = rows > 5 ? pixelBase(base, img, grp, px + 5) : a0;
                ConvKernels.pixels6(x, a0, a1, a2, a3, a4, a5, tapOff, t0, t1, icg, weights, bOff, tile);
                for (int r = 0; r < rows; r++) {
                    long flat = ((long) img * s.pixels() + px + r) * s.oc() + ch;
                    post.pixelRun(tile, r * NR, dst, flat, cols, img, ch, accumulate, finish);
                }
            }
        }
    }

    private void depthwisePixel(float[] x, int base, float[] weights, MemorySegment dst, StoreChain.Bound post,
            int img, int p, NcxConv.Scratch sc) {
        int a = pixelBase(base, img, 0, p);
        long flat = ((long) img * s.pixels() + p) * s.oc();
        for (int c0 = 0; c0 < s.oc(); c0 += NR) {
            int count = Math.min(NR, s.oc() - c0);
            ConvKernels.depthwise(x, a, tapOff, weights, depthwiseStride, c0, count, sc.tile);
            post.pixelRun(sc.tile, 0, dst, flat + c0, count, img, c0, false, true);
        }
    }

    /** Padded row Y of image img: input row Y - pt, columns shifted by pl, zeros outside. */
    private void padRow(MemorySegment src, int img, int yp, float[] buf, long at) {
        int row = Math.toIntExact(at);
        int c = s.ic();
        long y = (long) yp - s.pt();
        int x0 = Math.max(0, Math.min(wp, s.pl()));
        int x1 = Math.max(x0, Math.min(wp, s.iw() + s.pl()));
        if (y < 0 || y >= s.ih() || x0 == x1) {
            Arrays.fill(buf, row, row + wp * c, 0f);
            return;
        }
        Arrays.fill(buf, row, row + x0 * c, 0f);
        Arrays.fill(buf, row + x1 * c, row + wp * c, 0f);
        long rowBase = img * s.sN() + y * s.sH();
        if (s.sC() == 1 && s.sW() == c) {
            MemorySegment.copy(src, F, 4L * (rowBase + (x0 - s.pl()) * s.sW()), buf, row + x0 * c, (x1 - x0) * c);
            return;
        }
        for (int xp = x0; xp < x1; xp++) {
            long pix = rowBase + (xp - s.pl()) * s.sW();
            int d = row + xp * c;
            if (s.sC() == 1) {
                MemorySegment.copy(src, F, 4L * pix, buf, d, c);
            } else {
                for (int ch = 0; ch < c; ch++) {
                    buf[d + ch] = src.get(F, 4L * (pix + ch * s.sC()));
                }
            }
        }
    }
}
