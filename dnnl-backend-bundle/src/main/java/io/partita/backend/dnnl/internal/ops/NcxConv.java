package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import io.partita.backend.dnnl.internal.exec.WorkerPool;
import io.partita.backend.dnnl.internal.postops.StoreChain;

/**
 * Channels-first (NCX) convolution as an implicit GEMM with no im2col: output channels are the
 * GEMM rows (weights broadcast from a packed block), output pixels the vector lanes, read straight
 * from input planes.
 *
 * <p>The input is laid out (once per execution) as planes in which one kernel tap of consecutive
 * output pixels is consecutive memory: for stride 1 the zero-padded image, each row
 * {@code wq = OW + (KW-1)*DW} wide; for stride s the s x s phases of it (plane (py, px) holds
 * padded pixels (Y*sh + py, X*sw + px)), so any stride and dilation read contiguous lanes. Output
 * pixel (oy, ox) is lane position {@code q = oy*wq + ox}; the {@code wq - OW} positions per row
 * past the image are computed and dropped. When the source already is such a plane (stride 1, no
 * padding, dense rows: 1x1 and "valid" convolutions) it is read in place.
 *
 * <p>Work is split over (image, group, tile of 64 or 128 pixel positions, range of output channel
 * blocks) so both threads get equal shares; each unit keeps its input lanes hot in L1/L2 while it
 * sweeps the output channels, and the reduction is cut into chunks of input channels only when
 * a tile's input would not fit in L2.
 */
final class NcxConv {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    /** Floats of input one tile may touch per K pass (half of a 2 MB L2, the rest for weights and output). */
    private static final long TILE_INPUT_BUDGET = 256 * 1024;
    /** Floats of input planes built at once (images are processed in chunks beyond). */
    private static final long PLANE_BUDGET = 4L * 1024 * 1024;

    private final ConvShape s;
    final int rows;
    private final int tileQ;
    private final boolean direct;
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
    private final int kChunk;
    final int blocks;
    private final int imagesPerChunk;

    NcxConv(ConvShape s) {
        this.s = s;
        int ocg = s.ocg();
        rows = ocg <= 2 ? 1 : 6;
        tileQ = rows == 6 ? 64 : 128;
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
        int rowsNeeded = s.oh() + (s.kh() - 1) * s.dh();
        int colsNeeded = s.ow() + (s.kw() - 1) * s.dw();
        // In place, the last tile is moved back to end at the last output, so reads stay inside the source.
        direct = s.sh() == 1 && s.sw() == 1 && s.pt() == 0 && s.pl() == 0 && s.sW() == 1 && s.sH() == s.iw()
                && rowsNeeded <= s.ih() && colsNeeded <= s.iw() && (s.oh() - 1) * s.iw() + s.ow() >= tileQ;
        if (direct) {
            hq = s.ih();
            wq = s.iw();
            chanStride = s.sC();
            imageStride = s.sN();
        } else {
            hq = s.oh() + maxOffY;
            wq = s.ow() + maxOffX;
            chanStride = (long) phases * hq * wq;
            imageStride = s.ic() * chanStride;
        }
        qTotal = (s.oh() - 1) * wq + s.ow();
        tiles = (qTotal + tileQ - 1) / tileQ;
        groupStride = s.icg() * chanStride;
        int taps = s.kh() * s.kw();
        kOff = new int[s.k()];
        for (int c = 0; c < s.icg(); c++) {
            for (int y = 0; y < s.kh(); y++) {
                for (int x = 0; x < s.kw(); x++) {
                    int t = y * s.kw() + x;
                    long off = direct ? c * chanStride + (long) y * s.dh() * s.sH() + (long) x * s.dw()
                            : c * chanStride + (long) tapPhase[t] * hq * wq + (long) (y * s.dh() / s.sh()) * wq
                                    + x * s.dw() / s.sw();
                    kOff[c * taps + t] = Math.toIntExact(off);
                }
            }
        }
        long perChannel = (long) phases * (tileQ + (long) maxOffY * wq + maxOffX);
        int icChunk = (int) Math.max(1, Math.min(s.icg(), TILE_INPUT_BUDGET / perChannel));
        kChunk = icChunk * taps;
        imagesPerChunk = direct ? s.n() : (int) Math.max(1, Math.min(s.n(), PLANE_BUDGET / imageStride));
    }

    /** Whether the plane copy is skipped (the source is read in place). */
    boolean inPlace() {
        return direct;
    }

    /** Floats of the packed weights: per group and block of {@link #rows} channels, K rows of {@code rows} floats. */
    long packedLength() {
        return (long) s.groups() * blocks * s.k() * rows;
    }

    /**
     * Packs weights given by their strides in (o, i, h, w) order into {@code dst}: block b of group
     * g holds k-major rows {@code (i, h, w)} of {@code rows} channel values, zero past the group's channels.
     */
    void packWeights(MemorySegment w, long so, long si, long sh, long sw, float[] dst) {
        int k = s.k();
        int ocg = s.ocg();
        int taps = s.kh() * s.kw();
        for (int g = 0; g < s.groups(); g++) {
            for (int b = 0; b < blocks; b++) {
                int base = (g * blocks + b) * k * rows;
                for (int r = 0; r < rows; r++) {
                    int o = b * rows + r;
                    if (o >= ocg) {
                        for (int kk = 0; kk < k; kk++) {
                            dst[base + kk * rows + r] = 0f;
                        }
                        continue;
                    }
                    long oo = (long) (g * ocg + o) * so;
                    for (int i = 0; i < s.icg(); i++) {
                        for (int y = 0; y < s.kh(); y++) {
                            for (int x = 0; x < s.kw(); x++) {
                                int kk = i * taps + y * s.kw() + x;
                                dst[base + kk * rows + r] = w.get(F, 4L * (oo + i * si + y * sh + x * sw));
                            }
                        }
                    }
                }
            }
        }
    }

    /** Runs the convolution: {@code weights} packed by {@link #packWeights}. */
    void run(MemorySegment src, float[] weights, MemorySegment dst, StoreChain.Bound post, WorkerPool pool) {
        int threads = pool == null ? 1 : pool.threads();
        for (int img0 = 0; img0 < s.n(); img0 += imagesPerChunk) {
            int imgs = Math.min(imagesPerChunk, s.n() - img0);
            MemorySegment planes;
            long planeBase;
            if (direct) {
                planes = src;
                planeBase = 0;
            } else {
                float[] buf = Scratch.get().planes(imgs * imageStride + tileQ + 16);
                planes = MemorySegment.ofArray(buf);
                int first = img0;
                forEach(pool, imgs * s.ic(), (from, to) -> {
                    for (int i = from; i < to; i++) {
                        fillPlanes(src, first + i / s.ic(), i % s.ic(), buf, (long) i * chanStride);
                    }
                });
                planeBase = -img0 * imageStride; // image img's planes start at (img - img0) * imageStride
            }
            int units = imgs * s.groups() * tiles;
            int splits = units >= 4 * threads ? 1 : Math.min(blocks, (4 * threads + units - 1) / units);
            int first = img0;
            long pb = planeBase;
            forEach(pool, units * splits, (from, to) -> {
                Scratch sc = Scratch.get();
                for (int u = from; u < to; u++) {
                    int split = u % splits;
                    int rest = u / splits;
                    int tile = rest % tiles;
                    int grp = rest / tiles % s.groups();
                    int img = first + rest / tiles / s.groups();
                    int b0 = (int) ((long) blocks * split / splits);
                    int b1 = (int) ((long) blocks * (split + 1) / splits);
                    unit(planes, pb, weights, dst, post, img, grp, tile, b0, b1, sc);
                }
            });
        }
    }

    /** One tile of pixel positions of one image and group, output channel blocks [b0, b1). */
    private void unit(MemorySegment planes, long planeBase, float[] weights, MemorySegment dst, StoreChain.Bound post,
            int img, int grp, int tile, int b0, int b1, Scratch sc) {
        int q0 = tile * tileQ;
        int lane0 = 0;
        if (direct && q0 + tileQ > qTotal) {
            // moved back so its reads end at the last output; its lanes before lane0 belong to the previous tile
            lane0 = q0 - (qTotal - tileQ);
            q0 = qTotal - tileQ;
        }
        int segs = segments(q0, lane0, sc.segs);
        long xOff = 4L * (planeBase + img * imageStride + grp * groupStride + q0);
        int k = s.k();
        float[] tileBuf = sc.tile;
        for (int k0 = 0; k0 < k; k0 += kChunk) {
            int kc = Math.min(kChunk, k - k0);
            boolean accumulate = k0 > 0;
            boolean finish = k0 + kc == k;
            for (int b = b0; b < b1; b++) {
                int aOff = ((grp * blocks + b) * k + k0) * rows;
                if (rows == 6) {
                    ConvKernels.rows6(weights, aOff, planes, xOff, kOff, k0, kc, tileBuf);
                } else {
                    ConvKernels.row1(weights, aOff, planes, xOff, kOff, k0, kc, tileBuf);
                }
                int oc0 = b * rows;
                int mr = Math.min(rows, s.ocg() - oc0);
                for (int r = 0; r < mr; r++) {
                    int ch = grp * s.ocg() + oc0 + r;
                    long chBase = ((long) img * s.oc() + ch) * s.pixels();
                    for (int g = 0; g < segs; g++) {
                        int lane = sc.segs[3 * g];
                        post.channelRun(tileBuf, r * tileQ + lane, dst, chBase + sc.segs[3 * g + 1], sc.segs[3 * g + 2],
                                img, ch, accumulate, finish);
                    }
                }
            }
        }
    }

    /**
     * The output runs of a tile starting at position q0, from lane lane0: (lane, output pixel index
     * within the image, length) triples into {@code out}; returns how many.
     */
    private int segments(int q0, int lane0, int[] out) {
        int end = Math.min(q0 + tileQ, qTotal);
        int q = q0 + lane0;
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
    private void fillPlanes(MemorySegment src, int img, int c, float[] buf, long at) {
        long base = img * s.sN() + c * s.sC();
        for (int ph = 0; ph < phases; ph++) {
            fillPlane(src, base, phaseY[ph], phaseX[ph], buf, Math.toIntExact(at + (long) ph * hq * wq));
        }
    }

    private void fillPlane(MemorySegment src, long base, int py, int px, float[] buf, int at) {
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
                MemorySegment.copy(src, F, 4L * (rowBase + firstX), buf, row + x0, x1 - x0);
            } else {
                long step = sw * s.sW();
                long off = rowBase + firstX * s.sW();
                for (int xq = x0; xq < x1; xq++, off += step) {
                    buf[row + xq] = src.get(F, 4L * off);
                }
            }
        }
    }

    static void forEach(WorkerPool pool, int tasks, WorkerPool.RangeBody body) {
        if (pool == null) {
            body.run(0, tasks);
        } else {
            pool.parallelFor(tasks, body);
        }
    }

    /** Per-thread buffers: the input planes (of the thread running the primitive), a tile, its output runs. */
    static final class Scratch {
        private static final ThreadLocal<Scratch> LOCAL = ThreadLocal.withInitial(Scratch::new);
        float[] planes = new float[0];
        float[] packed = new float[0];
        final float[] tile = new float[6 * 128];
        final int[] segs = new int[3 * 129];

        static Scratch get() {
            return LOCAL.get();
        }

        float[] planes(long length) {
            if (planes.length < length) {
                planes = new float[Math.toIntExact(length)];
            }
            return planes;
        }

        float[] packed(long length) {
            if (packed.length < length) {
                packed = new float[Math.toIntExact(length)];
            }
            return packed;
        }
    }
}
