package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.gemm.ChannelGemm;
import io.partita.backend.dnnl.internal.gemm.PackedA;
import io.partita.backend.dnnl.internal.gemm.PackedB;
import io.partita.backend.dnnl.internal.gemm.PanelSource;
import io.partita.backend.dnnl.internal.gemm.Sgemm;
import io.partita.backend.dnnl.internal.gemm.StridedRows;
import io.partita.backend.dnnl.internal.postops.StoreChain;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;

/**
 * Channels-first (NCX) convolution as an implicit GEMM with no im2col matrix.
 *
 * <p>The input is laid out (once per execution) as planes in which one kernel tap of consecutive
 * output pixels is consecutive memory: for stride 1 the zero-padded image, each row
 * {@code wq = OW + (KW-1)*DW} wide; for stride s the s x s phases of it (plane (py, px) holds
 * padded pixels (Y*sh + py, X*sw + px)), so any stride and dilation read contiguous lanes. Output
 * pixel (oy, ox) is plane position {@code q = oy*wq + ox}. The planes are a heap array (per thread
 * running the primitive, reused): the kernels read arrays much faster than memory segments. A 1x1
 * stride-1 unpadded convolution needs no planes: each tile copies its lanes of the source.
 *
 * <p>Two orientations, whichever wastes fewer multiply-adds for the shape. Pixel lanes (large
 * images): output channels are the GEMM rows, six broadcast weights at a time, against 64
 * consecutive plane positions read as vectors (the {@code wq - OW} positions per row past the image
 * are computed and dropped); tasks are (image, group, tile, block of channels), reducing over input
 * channels in chunks only when a tile's input would not fit in L2. Pixel rows (small images, whose
 * rows would leave many lanes idle): six output pixels broadcast against 64-channel weight panels,
 * the tiles transposed into the channel-major output. Tasks are split evenly over both threads.
 * Below 512 bits every ungrouped convolution is instead a GEMM per image: an unpadded 1x1 with the
 * image as B ({@link ImagePanels}), wide images with B from the planes ({@link PlanePanels}), small
 * ones transposed, pixels as A's rows ({@link PlaneRows}).
 */
final class NcxConv {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    /** Lane i takes lane 2i of two vectors side by side (indexes past the first vector select from the second). */
    private static final VectorShuffle<Float> EVEN = VectorShuffle.fromOp(ConvKernels.S, i -> 2 * i);
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    /** Floats of input one tile may touch per K pass (half of a 2 MB L2, the rest for weights and output). */
    private static final long TILE_INPUT_BUDGET = 256 * 1024;
    /** Floats of input planes built at once (images are processed in chunks beyond). */
    private static final long PLANE_BUDGET = 4L * 1024 * 1024;

    /** Channels {@link #pixelGemmImage} takes out of its pixel-major product at once: a 64-byte line's worth. */
    private static final int TRANSPOSE_CHANNELS = 16;
    /** Pixels per task in the pixel-rows orientation (16 groups of 6). */
    static final int PIXEL_BLOCK = 96;
    /** K rows of a 64-channel weight panel per pass in the pixel-rows orientation (a 512 KB panel stays in L2). */
    private static final int PANEL_K_BUDGET = 2048;
    /** Weight rows per L1 chunk below 512 bits (64 rows of 64 floats: 16 KB). */
    private static final int L1_ROWS = 64;
    /** Channel blocks sharing one L1 chunk of lanes below 512 bits (their tiles take 16 KB of {@code Scratch.tiles}). */
    private static final int NARROW_BLOCKS = 16;

    private final ConvShape s;
    /**
     * Pixel-rows orientation: six output pixels broadcast against 64-channel weight panels, the
     * tile transposed into the channel-major output; chosen when the pixel-lanes tiles would waste
     * more (small images, whose rows leave many of the 64 lanes past the image).
     */
    private final boolean pixelRows;
    private final int panels;
    private final int rows;
    private final int tileQ;
    private final int hq;
    private final int wq;
    private final int phases;
    private final int[] tapPhase;
    private final int[] phaseY;
    private final int[] phaseX;
    private final long chanStride;
    private final long groupStride;
    private final long imageStride;
    private final int qTotal;
    private final int tiles;
    private final int[] kOff;
    private final boolean plain;
    /** Planes are needed (pixel rows) but equal the source's channel planes: 1x1, stride 1, unpadded, dense. */
    private final boolean planesAreSource;
    private final int kChunk;
    private final int blocks;
    private final int imagesPerChunk;
    /**
     * Below 512 bits an unpadded, ungrouped 1x1 convolution is one GEMM per image (weights as A, the
     * image's channels as B): its kernel keeps a 4 x 2-vector tile in registers against packed panels
     * in L1, where the plane kernels' offset-table reads ran at about two thirds of its rate.
     */
    private final boolean gemm;
    /**
     * Below 512 bits, other ungrouped convolutions: a GEMM per image over the input planes
     * ({@link PlanePanels}), for the same reason as {@link #gemm}.
     */
    private final boolean planeGemm;
    /**
     * Below 512 bits, the remaining ungrouped convolutions (small images): the transposed GEMM,
     * C^T[pixels, oc] = A[pixels, K] ({@link PlaneRows}) x the packed weights, then transposed into
     * the output through the post-ops.
     */
    private final boolean pixelGemm;
    /** {@link #planeGemm}, {@link #pixelGemm}: each output pixel's plane position. */
    private final int[] pixelPos;

    NcxConv(ConvShape s) {
        this.s = s;
        int ocg = s.ocg();
        // below 512 bits four-channel blocks: the narrow kernels' efficient slice is four rows by two vectors
        rows = ocg <= 2 ? 1 : ConvKernels.L < 16 ? 4 : 6;
        tileQ = rows == 1 ? 128 : 64;
        blocks = (ocg + rows - 1) / rows;
        int maxOffY = (s.kh() - 1) * s.dh() / s.sh();
        int maxOffX = (s.kw() - 1) * s.dw() / s.sw();
        int[] phaseIndex = new int[s.sh() * s.sw()];
        Arrays.fill(phaseIndex, -1);
        tapPhase = new int[s.kh() * s.kw()];
        int ph = 0;
        for (int y = 0; y < s.kh(); y++) {
            for (int x = 0; x < s.kw(); x++) {
                int p = (y * s.dh() % s.sh()) * s.sw() + x * s.dw() % s.sw();
                if (phaseIndex[p] < 0) {
                    phaseIndex[p] = ph++;
                }
                tapPhase[y * s.kw() + x] = phaseIndex[p];
            }
        }
        phases = ph;
        phaseY = new int[ph];
        phaseX = new int[ph];
        for (int p = 0; p < phaseIndex.length; p++) {
            if (phaseIndex[p] >= 0) {
                phaseY[phaseIndex[p]] = p / s.sw();
                phaseX[phaseIndex[p]] = p % s.sw();
            }
        }
        hq = s.oh() + maxOffY;
        wq = s.ow() + maxOffX;
        chanStride = (long) phases * hq * wq;
        imageStride = s.ic() * chanStride;
        qTotal = (s.oh() - 1) * wq + s.ow();
        // 1x1, stride 1, no padding, dense rows: the planes are the source itself; each tile copies its lanes
        boolean plainCandidate = s.kh() == 1 && s.kw() == 1 && s.sh() == 1 && s.sw() == 1 && s.pt() == 0
                && s.pl() == 0 && s.ow() == s.iw() && s.oh() <= s.ih() && s.sW() == 1 && s.sH() == s.iw();
        tiles = (qTotal + tileQ - 1) / tileQ;
        groupStride = s.icg() * chanStride;
        int taps = s.kh() * s.kw();
        kOff = new int[s.k()];
        long perChannel = (long) phases * (tileQ + (long) maxOffY * wq + maxOffX);
        int icChunk = (int) Math.max(1, Math.min(s.icg(), TILE_INPUT_BUDGET / perChannel));
        imagesPerChunk = (int) Math.max(1, Math.min(s.n(), PLANE_BUDGET / imageStride));
        panels = (ocg + 63) / 64;
        // Useful share of the multiply-adds in each orientation; the pixel rows also move each of a
        // tile's 384 values once to transpose it, about the time of 32 K steps.
        double lanesUseful = (double) s.pixels() / ((long) tiles * tileQ) * ocg / ((long) blocks * rows);
        double rowsUseful = (double) ocg / (panels * 64) * s.pixels() / (Math.ceilDiv(s.pixels(), 6) * 6.0)
                / (1 + 32.0 / s.k());
        pixelRows = rows > 1 && rowsUseful > lanesUseful;
        boolean narrowGemm = ConvKernels.L < 16 && s.groups() == 1
                // the last panel's idle columns: 7x7 images (49 of 64) ran 10% slower than the plane kernels
                && s.pixels() >= 0.9 * Math.ceilDiv(s.pixels(), Sgemm.NR) * Sgemm.NR;
        gemm = narrowGemm && s.kh() == 1 && s.kw() == 1 && s.pt() == 0 && s.pl() == 0
                && (long) (s.oh() - 1) * s.sh() < s.ih() && (long) (s.ow() - 1) * s.sw() < s.iw();
        // rows of at least three panels: narrower ones make many panels gathered across rows (256 3x3 at 14x14
        // ran 10% slower than the plane kernels, and ResNet-50's 28x28 layers gained nothing with two threads)
        planeGemm = narrowGemm && !gemm && s.ow() >= 3 * Sgemm.NR;
        pixelGemm = ConvKernels.L < 16 && s.groups() == 1 && !gemm && !planeGemm
                && !(plainCandidate && !pixelRows);
        plain = plainCandidate && !pixelRows;
        planesAreSource = plainCandidate && pixelRows && s.oh() == s.ih() && chanStride == (long) s.ih() * s.iw();
        kChunk = pixelRows ? Math.max(1, Math.min(s.icg(), PANEL_K_BUDGET / taps)) * taps : icChunk * taps;
        for (int c = 0; c < s.icg(); c++) {
            for (int t = 0; t < taps; t++) {
                int y = t / s.kw();
                int x = t % s.kw();
                long off = plain ? (long) c * tileQ
                        : c * chanStride + (long) tapPhase[t] * hq * wq + (long) (y * s.dh() / s.sh()) * wq
                                + x * s.dw() / s.sw();
                kOff[c * taps + t] = Math.toIntExact(off);
            }
        }
        pixelPos = planeGemm || pixelGemm ? new int[s.pixels()] : null;
        for (int p = 0; pixelPos != null && p < s.pixels(); p++) {
            pixelPos[p] = planePos(0, p);
        }
    }

    /**
     * Floats of the packed weights: per group and block of {@link #rows} channels, K rows of
     * {@code rows} floats (pixel lanes), or per group and panel of 64 channels, K rows of 64 (pixel rows).
     */
    long packedLength() {
        if (gemm || planeGemm) {
            return PackedA.packedLength(s.oc(), s.k());
        }
        if (pixelGemm) {
            return PackedB.packedLength(s.k(), s.oc());
        }
        return pixelRows ? (long) s.groups() * panels * s.k() * 64 : (long) s.groups() * blocks * s.k() * rows;
    }

    /**
     * Packs weights given by their strides in (o, i, h, w) order into {@code dst}: block b (panel p)
     * of group g holds k-major rows {@code (i, h, w)} of its channels' values, zero past the group's channels.
     */
    void packWeights(MemorySegment w, long so, long si, long sh, long sw, float[] dst) {
        if (gemm || planeGemm || pixelGemm) {
            // dense (o, i, h, w), the reduction order of kOff, then packed for the GEMM once
            int k = s.k();
            // per thread: weights that are not constant are packed at every execution
            float[] dense = Scratch.get().dense(Math.multiplyExact(s.oc(), k));
            s.denseWeights(w, so, si, sh, sw, dense);
            if (pixelGemm) {
                // B[K, oc]: (kk, o) at kk + o * k of the dense weights, packed in panels once
                PackedB.packTransposed(dense, k, s.oc(), dst);
            } else {
                // A[oc, K] in the GEMM's row groups once, instead of by every call
                PackedA.pack(new StridedRows(MemorySegment.ofArray(dense), 0, k, 1, s.oc(), k), dst);
            }
            return;
        }
        int k = s.k();
        int ocg = s.ocg();
        int taps = s.kh() * s.kw();
        int width = pixelRows ? 64 : rows;
        int count = pixelRows ? panels : blocks;
        for (int g = 0; g < s.groups(); g++) {
            for (int b = 0; b < count; b++) {
                int base = (g * count + b) * k * width;
                for (int r = 0; r < width; r++) {
                    int o = b * width + r;
                    if (o >= ocg) {
                        for (int kk = 0; kk < k; kk++) {
                            dst[base + kk * width + r] = 0f;
                        }
                        continue;
                    }
                    long oo = (long) (g * ocg + o) * so;
                    for (int i = 0; i < s.icg(); i++) {
                        for (int y = 0; y < s.kh(); y++) {
                            for (int x = 0; x < s.kw(); x++) {
                                int kk = i * taps + y * s.kw() + x;
                                dst[base + kk * width + r] = w.get(F, 4L * (oo + i * si + y * sh + x * sw));
                            }
                        }
                    }
                }
            }
        }
    }

    /** Runs the convolution: {@code weights} packed by {@link #packWeights}. */
    void run(MemorySegment src, float[] weights, MemorySegment dst, StoreChain.Bound post, CpuTeam pool) {
        if (gemm) {
            runGemm(src, weights, dst, post, pool);
            return;
        }
        for (int img0 = 0; img0 < s.n(); img0 += imagesPerChunk) {
            int imgs = Math.min(imagesPerChunk, s.n() - img0);
            int first = img0;
            float[] planes = plain ? null : Scratch.get().planes(imgs * imageStride + tileQ + 16);
            if (planesAreSource) {
                // each channel's plane is the source's: one bulk copy per channel, not one call per row
                forEach(pool, imgs * s.ic(), (from, to) -> {
                    for (int i = from; i < to; i++) {
                        long at = (first + i / s.ic()) * s.sN() + i % s.ic() * s.sC();
                        MemorySegment.copy(src, F, 4L * at, planes, Math.toIntExact((long) i * chanStride),
                                Math.toIntExact(chanStride));
                    }
                });
            } else if (!plain) {
                forEach(pool, imgs * s.ic(), (from, to) -> {
                    Scratch sc = Scratch.get();
                    for (int i = from; i < to; i++) {
                        fillPlanes(src, first + i / s.ic(), i % s.ic(), planes, (long) i * chanStride, sc);
                    }
                });
            }
            if (pixelGemm) {
                for (int i = 0; i < imgs; i++) {
                    pixelGemmImage(planes, Math.toIntExact(i * imageStride), first + i, weights, dst, post, pool);
                }
                continue;
            }
            if (planeGemm) {
                PackedA a = PackedA.wrap(s.oc(), s.k(), weights);
                for (int i = 0; i < imgs; i++) {
                    PlaneView view = new PlaneView(planes, Math.toIntExact(i * imageStride), pixelPos, kOff);
                    gemmImage(a, new PlanePanels(view), first + i, dst, post, pool);
                }
                continue;
            }
            if (pixelRows) {
                runPixelRows(planes, first, imgs, weights, dst, post, pool);
                continue;
            }
            // Tasks are (image, group, tile, channel block), blocks innermost: each thread's contiguous share
            // is whole tiles but at its two ends, so shares are equal to a block and tiles stay hot.
            forEach(pool, imgs * s.groups() * tiles * blocks, (from, to) -> {
                Scratch sc = Scratch.get();
                for (int u = from; u < to;) {
                    int b0 = u % blocks;
                    int rest = u / blocks;
                    int tile = rest % tiles;
                    int grp = rest / tiles % s.groups();
                    int img = first + rest / tiles / s.groups();
                    int b1 = Math.min(blocks, b0 + to - u);
                    if (plain) {
                        float[] panel = sc.panel(s.icg() * tileQ);
                        int q0 = tile * tileQ;
                        int lanes = Math.min(tileQ, qTotal - q0);
                        long at = img * s.sN() + grp * s.icg() * s.sC() + q0;
                        for (int c = 0; c < s.icg(); c++) {
                            copy(src, at + c * s.sC(), panel, c * tileQ, lanes);
                        }
                        unit(panel, -q0, weights, dst, post, img, grp, tile, b0, b1, sc);
                    } else {
                        unit(planes, (img - first) * imageStride + grp * groupStride, weights, dst, post, img, grp,
                                tile, b0, b1, sc);
                    }
                    u += b1 - b0;
                }
            });
        }
    }

    /** {@link #gemm}: per image, C[oc, pixels] = W[oc, ic] x image[ic, pixels], the post-ops on finished runs. */
    private void runGemm(MemorySegment src, float[] weights, MemorySegment dst, StoreChain.Bound post, CpuTeam pool) {
        PackedA a = PackedA.wrap(s.oc(), s.ic(), weights);
        boolean direct = ImagePanels.contiguous(s);
        for (int img = 0; img < s.n(); img++) {
            PanelSource.Packing b;
            if (direct) {
                b = new ImagePanels(src, img, s);
            } else {
                // the pixels the output reads, copied dense once: gathered per panel instead, each of the
                // row blocks' packings gathered them again (256 -> 512 at 56x56 stride 2: 3.6 against 2.6 ms
                // for the same GEMM at stride 1, one thread)
                float[] dense = Scratch.get().subsampled(s.ic() * s.pixels());
                subsample(src, img, dense, pool);
                b = new ImagePanels(MemorySegment.ofArray(dense), 0, s.pixels(), s.ic(), s.pixels());
            }
            gemmImage(a, b, img, dst, post, pool);
        }
    }

    /** Image img's input pixels that a 1x1 convolution's output reads, channel by channel into {@code to}. */
    private void subsample(MemorySegment src, int img, float[] to, CpuTeam pool) {
        int pixels = s.pixels();
        int ow = s.ow();
        int sw = s.sw();
        int span = (ow - 1) * sw + 1;
        forEach(pool, s.ic(), (c0, c1) -> {
            float[] tmp = Scratch.get().row(span + 2 * ConvKernels.L);
            for (int c = c0; c < c1; c++) {
                long plane = img * s.sN() + c * s.sC();
                for (int oy = 0; oy < s.oh(); oy++) {
                    long rowBase = plane + (long) oy * s.sh() * s.sH();
                    int at = c * pixels + oy * ow;
                    if (s.sW() == 1) {
                        copy(src, rowBase, tmp, 0, span);
                        everyNth(tmp, 0, sw, to, at, ow);
                    } else {
                        long step = (long) sw * s.sW();
                        for (int ox = 0; ox < ow; ox++) {
                            to[at + ox] = src.get(F, 4L * (rowBase + ox * step));
                        }
                    }
                }
            }
        });
    }

    /** {@link #pixelGemm} for image img, whose planes start at {@code planes[at]}. */
    private void pixelGemmImage(float[] planes, int at, int img, float[] weights, MemorySegment dst,
            StoreChain.Bound post, CpuTeam pool) {
        int pixels = s.pixels();
        int oc = s.oc();
        float[] ct = Scratch.get().transposed(pixels * oc);
        Sgemm.multiply(new PlaneRows(new PlaneView(planes, at, pixelPos, kOff)), PackedB.prefixOf(s.k(), oc, weights),
                MemorySegment.ofArray(ct), 0, oc, Sgemm.Epilogue.NONE, pool);
        // channel by channel out of the pixel-major product, through the post-ops; TRANSPOSE_CHANNELS
        // at a time, so each line of the product is read once (one channel at a time read each line
        // once per channel in it)
        forEach(pool, oc, (c0, c1) -> {
            float[] runs = Scratch.get().channel(TRANSPOSE_CHANNELS * pixels);
            for (int cb = c0; cb < c1; cb += TRANSPOSE_CHANNELS) {
                int width = Math.min(TRANSPOSE_CHANNELS, c1 - cb);
                for (int p = 0, o = cb; p < pixels; p++, o += oc) {
                    for (int j = 0, r = p; j < width; j++, r += pixels) {
                        runs[r] = ct[o + j];
                    }
                }
                for (int j = 0; j < width; j++) {
                    post.channelRun(runs, j * pixels, dst, ((long) img * oc + cb + j) * pixels, pixels, img, cb + j,
                            false, true);
                }
            }
        });
    }

    /** C[oc, pixels] of image img = a x b, the post-ops on finished runs. */
    private void gemmImage(PackedA a, PanelSource.Packing b, int img, MemorySegment dst, StoreChain.Bound post,
            CpuTeam pool) {
        int pixels = s.pixels();
        long first = (long) img * s.oc() * pixels;
        // Whole panels only: at 14x14 (196 pixels, a last panel of 4) the channel GEMM gained nothing
        // over the staged one, and its partial-tile path kept hitting profile-predicate traps (75-81
        // per run against 29, -Xlog:deoptimization=debug) in the runs where ResNet-50 ran at 90-104
        // instead of 60-66 ms: 16 of 45 runs routed so, none of 7 since.
        if (post.rowForm() && ChannelGemm.applies(b.k()) && pixels % Sgemm.NR == 0) {
            // the bias, residual and ReLU in registers, each tile stored once where it belongs
            float[] bias = post.channelBias();
            MemorySegment res = post.residual();
            ChannelGemm.multiply(a, b, dst, 4L * first, pixels,
                    new ChannelGemm.RowEpilogue(bias, img * s.oc(), res, 4L * first, post.relu()), pool);
            return;
        }
        // staged: each channel's run written once, through the post-ops (tiles stored straight to the
        // output scattered 64-byte writes over a block's channels, and the post-ops re-read them)
        Sgemm.multiply(a, b, (src, srcOff, row, col, cols) -> post.channelRun(src, srcOff, dst,
                first + (long) row * pixels + col, cols, img, row, false, true), pool);
    }

    /**
     * One tile of pixel positions of image img and group grp, output channel blocks [b0, b1): the
     * group's planes start at {@code planes[at]}.
     */
    private void unit(float[] planes, long at, float[] weights, MemorySegment dst, StoreChain.Bound post,
            int img, int grp, int tile, int b0, int b1, Scratch sc) {
        int q0 = tile * tileQ;
        int segs = segments(q0, sc.segs);
        int xOff = Math.toIntExact(at + q0);
        int k = s.k();
        if (rows == 4) {
            narrowUnit(planes, xOff, weights, dst, post, img, grp, segs, b0, b1, sc);
            return;
        }
        for (int k0 = 0; k0 < k; k0 += kChunk) {
            int kc = Math.min(kChunk, k - k0);
            boolean accumulate = k0 > 0;
            boolean finish = k0 + kc == k;
            for (int b = b0; b < b1; b++) {
                int aOff = ((grp * blocks + b) * k + k0) * rows;
                if (rows == 6) {
                    ConvKernels.rows6(weights, aOff, planes, xOff, kOff, k0, kc, sc.tile);
                } else {
                    ConvKernels.row1(weights, aOff, planes, xOff, kOff, k0, kc, sc.tile);
                }
                store(sc.tile, 0, b, img, grp, segs, sc.segs, dst, post, accumulate, finish);
            }
        }
    }

    /**
     * {@link #unit} below 512 bits (four-row blocks): K in chunks of {@link #L1_ROWS} rows of the
     * tile's 64 lanes (16 KB), each chunk applied to up to {@link #NARROW_BLOCKS} channel blocks
     * before the next, their tiles accumulated in place; as in {@link #narrowPixelUnit}, the narrow
     * kernels re-read the lanes too often to stream them from L2.
     */
    private void narrowUnit(float[] planes, int xOff, float[] weights, MemorySegment dst, StoreChain.Bound post,
            int img, int grp, int segs, int b0, int b1, Scratch sc) {
        int k = s.k();
        float[] tiles = sc.tiles;
        for (int k0 = 0; k0 < k; k0 += kChunk) {
            int kc = Math.min(kChunk, k - k0);
            for (int bg = b0; bg < b1; bg += NARROW_BLOCKS) {
                int bEnd = Math.min(b1, bg + NARROW_BLOCKS);
                for (int kb = k0; kb < k0 + kc; kb += L1_ROWS) {
                    int kbl = Math.min(L1_ROWS, k0 + kc - kb);
                    for (int b = bg; b < bEnd; b++) {
                        int aOff = ((grp * blocks + b) * k + kb) * rows;
                        ConvKernels.rows4Narrow(weights, aOff, planes, xOff, kOff, kb, kbl, tiles, (b - bg) * 256,
                                kb > k0);
                    }
                }
                for (int b = bg; b < bEnd; b++) {
                    store(tiles, (b - bg) * 256, b, img, grp, segs, sc.segs, dst, post, k0 > 0, k0 + kc == k);
                }
            }
        }
    }

    /**
     * Pixel rows: tasks (image, group, block of 96 pixels, panel, six pixels), six pixels innermost,
     * so shares are equal to six pixels and a panel stays hot over a block (see {@link SixPixelTasks}).
     */
    private void runPixelRows(float[] planes, int first, int imgs, float[] weights, MemorySegment dst,
            StoreChain.Bound post, CpuTeam pool) {
        SixPixelTasks space = new SixPixelTasks(s.pixels(), PIXEL_BLOCK, panels);
        forEach(pool, imgs * s.groups() * space.perOuter(), (from, to) -> {
            Scratch sc = Scratch.get();
            SixPixelTasks at = new SixPixelTasks(s.pixels(), PIXEL_BLOCK, panels);
            for (int u = from; u < to; u += at.length) {
                at.seek(u, to);
                int grp = at.outer % s.groups();
                int img = first + at.outer / s.groups();
                pixelUnit(planes, (img - first) * imageStride + grp * groupStride, weights, dst, post, img, grp,
                        at.panel, at.px0, at.px1, sc);
            }
        });
    }

    /** Output pixels [px0, px1) (at most a block) of image img and group grp against weight panel p. */
    private void pixelUnit(float[] planes, long at, float[] weights, MemorySegment dst, StoreChain.Bound post, int img,
            int grp, int p, int px0, int px1, Scratch sc) {
        if (ConvKernels.L < 16) {
            narrowPixelUnit(planes, at, weights, dst, post, img, grp, p, px0, px1, sc);
            return;
        }
        int k = s.k();
        int ch0 = grp * s.ocg() + p * 64;
        int cols = Math.min(64, s.ocg() - p * 64);
        int count = px1 - px0;
        float[] tile = sc.tile;
        float[] stage = sc.stage;
        for (int k0 = 0; k0 < k; k0 += kChunk) {
            int kc = Math.min(kChunk, k - k0);
            int bOff = ((grp * panels + p) * k + k0) * 64;
            for (int px = px0; px < px1; px += 6) {
                int n = Math.min(6, px1 - px);
                int a0 = planePos(at, px);
                // consecutive positions: inside one output row, or anywhere when rows have no padding columns
                if (n == 6 && planePos(at, px + 5) == a0 + 5) {
                    ConvKernels.pixels6Row(planes, a0, kOff, k0, kc, weights, bOff, tile);
                } else {
                    pixels6(planes, at, px, n, a0, bOff, k0, kc, weights, tile);
                }
                // transposed into channel-major rows of the block
                int col = px - px0;
                for (int r = 0; r < n; r++) {
                    for (int j = 0; j < cols; j++) {
                        stage[j * PIXEL_BLOCK + col + r] = tile[r * 64 + j];
                    }
                }
            }
            storeStage(stage, cols, dst, post, img, ch0, px0, count, k0 > 0, k0 + kc == k);
        }
    }

    /**
     * {@link #pixelUnit} below 512 bits: K in chunks of {@link #L1_ROWS} weight rows (16 KB), each
     * chunk applied to every six-pixel group of the block before the next, the groups' tiles
     * accumulated in place. The narrow kernels reuse each weight vector over four pixels, not six, so
     * streaming the whole panel from L2 for every group bounded them at about half the FMA rate.
     */
    private void narrowPixelUnit(float[] planes, long at, float[] weights, MemorySegment dst, StoreChain.Bound post,
            int img, int grp, int p, int px0, int px1, Scratch sc) {
        int k = s.k();
        int ch0 = grp * s.ocg() + p * 64;
        int cols = Math.min(64, s.ocg() - p * 64);
        int count = px1 - px0;
        float[] tiles = sc.tiles;
        float[] stage = sc.stage;
        int[] pos = sc.pos;
        int groups = Math.ceilDiv(count, 6);
        for (int gi = 0; gi < groups; gi++) {
            int px = px0 + 6 * gi;
            int n = Math.min(6, px1 - px);
            for (int r = 0; r < 6; r++) {
                pos[6 * gi + r] = planePos(at, r < n ? px + r : px);
            }
        }
        for (int k0 = 0; k0 < k; k0 += kChunk) {
            int kc = Math.min(kChunk, k - k0);
            int bOff = ((grp * panels + p) * k + k0) * 64;
            for (int kb = k0; kb < k0 + kc; kb += L1_ROWS) {
                int kbl = Math.min(L1_ROWS, k0 + kc - kb);
                int bo = bOff + (kb - k0) * 64;
                boolean acc = kb > k0;
                for (int gi = 0; gi < groups; gi++) {
                    int a0 = pos[6 * gi];
                    if (pos[6 * gi + 5] == a0 + 5) {
                        ConvKernels.pixels6RowNarrow(planes, a0, kOff, kb, kbl, weights, bo, tiles, gi * 384, acc);
                    } else {
                        ConvKernels.pixels6Narrow(planes, a0, pos[6 * gi + 1], pos[6 * gi + 2], pos[6 * gi + 3],
                                pos[6 * gi + 4], pos[6 * gi + 5], kOff, kb, kbl, weights, bo, tiles, gi * 384, acc);
                    }
                }
            }
            // transposed into channel-major rows of the block
            for (int gi = 0; gi < groups; gi++) {
                int n = Math.min(6, count - 6 * gi);
                for (int r = 0; r < n; r++) {
                    int t = gi * 384 + r * 64;
                    int col = 6 * gi + r;
                    for (int j = 0; j < cols; j++) {
                        stage[j * PIXEL_BLOCK + col] = tiles[t + j];
                    }
                }
            }
            storeStage(stage, cols, dst, post, img, ch0, px0, count, k0 > 0, k0 + kc == k);
        }
    }

    /** The block's channel-major rows in {@code stage} (cols channels from ch0, count pixels from px0) through the post-ops. */
    private void storeStage(float[] stage, int cols, MemorySegment dst, StoreChain.Bound post, int img, int ch0, int px0,
            int count, boolean accumulate, boolean finish) {
        for (int j = 0; j < cols; j++) {
            long flat = ((long) img * s.oc() + ch0 + j) * s.pixels() + px0;
            post.channelRun(stage, j * PIXEL_BLOCK, dst, flat, count, img, ch0 + j, accumulate, finish);
        }
    }

    /** Six (or the last n) pixels from px, anywhere in the image (they may span rows). */
    private void pixels6(float[] planes, long at, int px, int n, int a0, int bOff, int k0, int kc, float[] weights,
            float[] tile) {
        int a1 = n > 1 ? planePos(at, px + 1) : a0;
        int a2 = n > 2 ? planePos(at, px + 2) : a0;
        int a3 = n > 3 ? planePos(at, px + 3) : a0;
        int a4 = n > 4 ? planePos(at, px + 4) : a0;
        int a5 = n > 5 ? planePos(at, px + 5) : a0;
        ConvKernels.pixels6(planes, a0, a1, a2, a3, a4, a5, kOff, k0, kc, weights, bOff, tile);
    }

    /** Where output pixel p's window starts in the planes of a group starting at {@code at}. */
    private int planePos(long at, int p) {
        int oy = p / s.ow();
        return Math.toIntExact(at + (long) oy * wq + p - oy * s.ow());
    }

    /** Stores block b's tile: each channel row's runs, through the post-ops. */
    private void store(float[] tile, int tOff, int b, int img, int grp, int segs, int[] seg, MemorySegment dst,
            StoreChain.Bound post, boolean accumulate, boolean finish) {
        int oc0 = b * rows;
        int mr = Math.min(rows, s.ocg() - oc0);
        for (int r = 0; r < mr; r++) {
            int ch = grp * s.ocg() + oc0 + r;
            long chBase = ((long) img * s.oc() + ch) * s.pixels();
            for (int g = 0; g < segs; g++) {
                post.channelRun(tile, tOff + r * tileQ + seg[3 * g], dst, chBase + seg[3 * g + 1], seg[3 * g + 2], img, ch,
                        accumulate, finish);
            }
        }
    }

    /**
     * The output runs of a tile starting at position q0: (lane, output pixel index within the image,
     * length) triples into {@code out}; returns how many.
     */
    private int segments(int q0, int[] out) {
        int end = Math.min(q0 + tileQ, qTotal);
        if (wq == s.ow()) {
            // no columns past the image (1x1 unpadded): the tile is one run of consecutive output pixels;
            // split per row it left masked tails that took a tenth of a 56x56 1x1 convolution
            out[0] = 0;
            out[1] = q0;
            out[2] = end - q0;
            return 1;
        }
        int q = q0;
        int n = 0;
        while (q < end) {
            int oy = q / wq;
            int ox = q - oy * wq;
            if (ox >= s.ow()) {
                q = (oy + 1) * wq;
                continue;
            }
            int len = Math.min(s.ow() - ox, end - q);
            out[3 * n] = q - q0;
            out[3 * n + 1] = oy * s.ow() + ox;
            out[3 * n + 2] = len;
            n++;
            q += len;
        }
        return n;
    }

    /** Writes the planes of channel c of image img from {@code at} in buf. */
    private void fillPlanes(MemorySegment src, int img, int c, float[] buf, long at, Scratch sc) {
        long base = img * s.sN() + c * s.sC();
        if (s.sw() > 1 && s.sW() == 1 && s.sH() == s.iw()) {
            // the channel in one copy, then every phase's rows from the array: one copy per row was a
            // masked move of a dozen floats, most of a stride-2 convolution's plane filling
            int plane = s.ih() * s.iw();
            float[] ch = sc.channel(plane + 2 * ConvKernels.L);
            copy(src, base, ch, 0, plane);
            for (int ph = 0; ph < phases; ph++) {
                fillPlaneFrom(ch, phaseY[ph], phaseX[ph], buf, Math.toIntExact(at + (long) ph * hq * wq));
            }
            return;
        }
        for (int ph = 0; ph < phases; ph++) {
            fillPlane(src, base, phaseY[ph], phaseX[ph], buf, Math.toIntExact(at + (long) ph * hq * wq), sc);
        }
    }

    /** Phase (py, px) of a channel held densely in {@code ch} (rows of iw), written from {@code buf[at]}. */
    private void fillPlaneFrom(float[] ch, int py, int px, float[] buf, int at) {
        int sw = s.sw();
        int x0 = (int) Math.max(0, Math.min(wq, Math.ceilDiv(s.pl() - px, sw)));
        int x1 = (int) Math.max(x0, Math.min(wq, Math.ceilDiv(s.iw() + s.pl() - px, sw)));
        for (int yq = 0; yq < hq; yq++) {
            int row = at + yq * wq;
            long y = (long) yq * s.sh() + py - s.pt();
            if (y < 0 || y >= s.ih() || x0 == x1) {
                Arrays.fill(buf, row, row + wq, 0f);
                continue;
            }
            Arrays.fill(buf, row, row + x0, 0f);
            Arrays.fill(buf, row + x1, row + wq, 0f);
            everyNth(ch, (int) (y * s.iw() + (long) x0 * sw + px - s.pl()), sw, buf, row + x0, x1 - x0);
        }
    }

    /**
     * {@code to[at + i] = from[j + i * n]} for i in [0, count): for n = 2 the even lanes of two vectors in
     * one permute (this loop was 15% of a stride-2 convolution). {@code from} has 2 vectors of slack past
     * the last value read.
     */
    private static void everyNth(float[] from, int j, int n, float[] to, int at, int count) {
        int i = 0;
        if (n == 2) {
            for (; i + ConvKernels.L <= count; i += ConvKernels.L, j += 2 * ConvKernels.L) {
                FloatVector.fromArray(ConvKernels.S, from, j)
                        .rearrange(EVEN, FloatVector.fromArray(ConvKernels.S, from, j + ConvKernels.L))
                        .intoArray(to, at + i);
            }
        }
        for (; i < count; i++, j += n) {
            to[at + i] = from[j];
        }
    }

    /** {@code sc}: the calling thread's scratch, looked up once per range (a lookup per row cost 3% of ResNet-50). */
    private void fillPlane(MemorySegment src, long base, int py, int px, float[] buf, int at, Scratch sc) {
        int sh = s.sh();
        int sw = s.sw();
        // columns X whose source column X*sw + px - pl lies inside the image
        int x0 = (int) Math.max(0, Math.min(wq, Math.ceilDiv(s.pl() - px, sw)));
        int x1 = (int) Math.max(x0, Math.min(wq, Math.ceilDiv(s.iw() + s.pl() - px, sw)));
        for (int yq = 0; yq < hq; yq++) {
            int row = at + yq * wq;
            long y = (long) yq * sh + py - s.pt();
            if (y < 0 || y >= s.ih() || x0 == x1) {
                Arrays.fill(buf, row, row + wq, 0f);
                continue;
            }
            Arrays.fill(buf, row, row + x0, 0f);
            Arrays.fill(buf, row + x1, row + wq, 0f);
            long rowBase = base + y * s.sH();
            long firstX = (long) x0 * sw + px - s.pl();
            if (sw == 1 && s.sW() == 1) {
                copy(src, rowBase + firstX, buf, row + x0, x1 - x0);
            } else if (s.sW() == 1) {
                // the row's span once through a scratch array, then every sw-th value
                int span = (x1 - x0 - 1) * sw + 1;
                float[] tmp = sc.row(span + 2 * ConvKernels.L);
                copy(src, rowBase + firstX, tmp, 0, span);
                everyNth(tmp, 0, sw, buf, row + x0, x1 - x0);
            } else {
                long step = sw * s.sW();
                long off = rowBase + firstX * s.sW();
                for (int xq = x0; xq < x1; xq++, off += step) {
                    buf[row + xq] = src.get(F, 4L * off);
                }
            }
        }
    }

    /** Copies n floats from element offset off of a segment: vectors (short runs cost far less than a bulk copy call). */
    static void copy(MemorySegment src, long off, float[] dst, int at, int n) {
        long o = 4L * off;
        int j = 0;
        for (; j + ConvKernels.L <= n; j += ConvKernels.L, o += 4L * ConvKernels.L) {
            FloatVector.fromMemorySegment(ConvKernels.S, src, o, ORDER).intoArray(dst, at + j);
        }
        if (j < n) {
            VectorMask<Float> m = ConvKernels.S.indexInRange(j, n);
            FloatVector.fromMemorySegment(ConvKernels.S, src, o, ORDER, m).intoArray(dst, at + j, m);
        }
    }

    static void forEach(CpuTeam pool, int tasks, CpuTeam.RangeBody body) {
        if (pool == null) {
            body.run(0, tasks);
        } else {
            pool.parallelFor(tasks, body);
        }
    }

    /** Passes over the reduction (K) each output tile takes: more than one when K is split to stay in cache. */
    int reductionPasses() {
        return Math.ceilDiv(s.k(), kChunk);
    }

    /** Whether the pixel-rows orientation was chosen (else pixel lanes). */
    boolean pixelRows() {
        return pixelRows;
    }

    /** Per-thread buffers: the input planes (of the thread running the primitive), a tile, its output runs. */
    static final class Scratch {
        private static final ThreadLocal<Scratch> LOCAL = ThreadLocal.withInitial(Scratch::new);
        float[] planes = new float[0];
        float[] packed = new float[0];
        float[] dense = new float[0];
        final float[] tile = new float[6 * 128];
        final float[] stage = new float[64 * PIXEL_BLOCK];
        /** Below 512 bits: the tiles of a block's six-pixel groups, accumulated over K chunks. */
        final float[] tiles = new float[6 * 64 * (PIXEL_BLOCK / 6)];
        /** Plane positions of a block's pixels (six per group, a short group padded with its first). */
        final int[] pos = new int[PIXEL_BLOCK];
        final int[] segs = new int[3 * 129];
        float[] row = new float[0];
        float[] channel = new float[0];
        float[] panel = new float[0];
        /** {@link #pixelGemm}: the pixel-major product of the thread running the primitive. */
        float[] transposed = new float[0];
        /** {@link #gemm} at stride 2 or more: the pixels the output reads, of the thread running the primitive. */
        float[] subsampled = new float[0];

        static Scratch get() {
            return LOCAL.get();
        }

        float[] planes(long length) {
            if (planes.length < length) {
                planes = new float[Math.toIntExact(length)];
            }
            return planes;
        }

        /** {@link #packWeights}: the weights dense in (o, i, h, w) order before they are packed. */
        float[] dense(int length) {
            if (dense.length < length) {
                dense = new float[length];
            }
            return dense;
        }

        float[] subsampled(int length) {
            if (subsampled.length < length) {
                subsampled = new float[length];
            }
            return subsampled;
        }

        float[] transposed(int length) {
            if (transposed.length < length) {
                transposed = new float[length];
            }
            return transposed;
        }

        float[] panel(int length) {
            if (panel.length < length) {
                panel = new float[length];
            }
            return panel;
        }

        float[] channel(int length) {
            if (channel.length < length) {
                channel = new float[length];
            }
            return channel;
        }

        float[] row(int length) {
            if (row.length < length) {
                row = new float[length];
            }
            return row;
        }

        float[] packed(long length) {
            if (packed.length < length) {
                packed = new float[Math.toIntExact(length)];
            }
            return packed;
        }
    }
}
