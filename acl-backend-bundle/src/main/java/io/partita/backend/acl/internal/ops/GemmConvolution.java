package io.partita.backend.acl.internal.ops;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import io.partita.backend.acl.internal.memory.AuxTensor;
import io.partita.backend.acl.internal.simd.Gemm;
import io.partita.cache.Lease;

/**
 * 2-D convolution as im2col + GEMM (ACL's NEGEMMConvolutionLayer): per image and group the input
 * patches become the rows of the {@code im2col} tensor [output pixels, kh*kw*cin/g], multiplied by
 * the reshaped weights [kh*kw*cin/g, cout/g]. Channels-last output is written by the GEMM directly
 * (bias and ReLU fused in its store); channels-first output goes through the {@code gemm_out}
 * tensor and is stored transposed. Lifetimes per (image, group) step: reshaped weights 0-2,
 * im2col 1-2, gemm_out 2-3.
 */
public final class GemmConvolution implements Operator {
    /** Shapes and attributes; channelsLast: NXC data (else NCX); weightsXio: XIO weights (else OIX). */
    public record Desc(int batch, int cin, int h, int w, int cout, int ho, int wo, int kh, int kw, int strideH,
            int strideW, int padTop, int padLeft, int dilH, int dilW, int groups, boolean channelsLast,
            boolean weightsXio, boolean bias, boolean relu, boolean constantWeights) {
    }

    private final Desc d;
    private final int cinG, coutG, kDim, pixels;

    public GemmConvolution(Desc d) {
        this.d = d;
        this.cinG = d.cin() / d.groups();
        this.coutG = d.cout() / d.groups();
        this.kDim = d.kh() * d.kw() * cinG;
        this.pixels = d.ho() * d.wo();
    }

    private long packedGroupLength() {
        return Gemm.packedLength(kDim, coutG);
    }

    @Override
    public List<AuxTensor> auxTensors() {
        List<AuxTensor> aux = new ArrayList<>();
        if (!d.constantWeights()) {
            aux.add(new AuxTensor("reshaped_weights", packedGroupLength() * d.groups() * Float.BYTES, 0, 2));
        }
        aux.add(new AuxTensor("im2col", (long) pixels * kDim * Float.BYTES, 1, 2));
        if (!d.channelsLast()) {
            aux.add(new AuxTensor("gemm_out", (long) pixels * coutG * Float.BYTES, 2, 3));
        }
        return aux;
    }

    private void reshapeWeights(MemorySegment w, MemorySegment dst) {
        for (int g = 0; g < d.groups(); g++) {
            int g0 = g * coutG;
            Gemm.Source src = d.weightsXio()
                    ? (k, j) -> w.getAtIndex(JAVA_FLOAT_UNALIGNED, (long) k * d.cout() + g0 + j)
                    : (k, j) -> {
                        int ci = k % cinG, tap = k / cinG;
                        return w.getAtIndex(JAVA_FLOAT_UNALIGNED, ((long) (g0 + j) * cinG + ci) * d.kh() * d.kw() + tap);
                    };
            Gemm.pack(src, kDim, coutG, dst, g * packedGroupLength());
        }
    }

    @Override
    public void run(Run r) {
        MemorySegment src = r.input(0);
        MemorySegment wts = r.input(1);
        MemorySegment bias = d.bias() ? r.input(2) : null;
        MemorySegment dst = r.output(0);
        long bytes = packedGroupLength() * d.groups() * Float.BYTES;
        try (Lease lease = d.constantWeights() ? r.constant(1, "gemm_panels", bytes, seg -> reshapeWeights(wts, seg)) : null) {
            MemorySegment b;
            if (lease != null) {
                b = lease.segment();
            } else {
                b = r.pool().segment("reshaped_weights");
                reshapeWeights(wts, b);
            }
            MemorySegment cols = r.pool().segment("im2col");
            MemorySegment acc = d.channelsLast() ? null : r.pool().segment("gemm_out");
            for (int n = 0; n < d.batch(); n++) {
                for (int g = 0; g < d.groups(); g++) {
                    im2col(src, n, g, cols);
                    long bOff = g * packedGroupLength();
                    if (d.channelsLast()) {
                        long cOff = (long) n * pixels * d.cout() + (long) g * coutG;
                        Gemm.multiply(pixels, coutG, kDim, cols, 0, kDim, b, bOff, dst, cOff, d.cout(), bias,
                                (long) g * coutG, d.relu());
                    } else {
                        Gemm.multiply(pixels, coutG, kDim, cols, 0, kDim, b, bOff, acc, 0, coutG, null, 0, false);
                        storeChannelsFirst(acc, bias, dst, n, g);
                    }
                }
            }
        }
    }

    /** Rows: output pixels; columns: (ky, kx, ci) with ci fastest; zeros where the patch leaves the image. */
    private void im2col(MemorySegment src, int n, int g, MemorySegment cols) {
        long sC, sH, sW, sN = (long) d.cin() * d.h() * d.w();
        if (d.channelsLast()) {
            sC = 1;
            sW = d.cin();
            sH = (long) d.w() * d.cin();
        } else {
            sW = 1;
            sH = d.w();
            sC = (long) d.h() * d.w();
        }
        long base = n * sN + (long) g * cinG * sC;
        long o = 0;
        for (int oy = 0; oy < d.ho(); oy++) {
            for (int ox = 0; ox < d.wo(); ox++) {
                for (int ky = 0; ky < d.kh(); ky++) {
                    int iy = oy * d.strideH() - d.padTop() + ky * d.dilH();
                    for (int kx = 0; kx < d.kw(); kx++) {
                        int ix = ox * d.strideW() - d.padLeft() + kx * d.dilW();
                        if (iy < 0 || iy >= d.h() || ix < 0 || ix >= d.w()) {
                            cols.asSlice(o * 4L, cinG * 4L).fill((byte) 0);
                            o += cinG;
                        } else if (sC == 1) {
                            MemorySegment.copy(src, (base + iy * sH + ix * sW) * 4L, cols, o * 4L, cinG * 4L);
                            o += cinG;
                        } else {
                            long at = base + iy * sH + ix * sW;
                            for (int ci = 0; ci < cinG; ci++) {
                                cols.setAtIndex(JAVA_FLOAT_UNALIGNED, o++, src.getAtIndex(JAVA_FLOAT_UNALIGNED, at + ci * sC));
                            }
                        }
                    }
                }
            }
        }
    }

    private void storeChannelsFirst(MemorySegment acc, MemorySegment bias, MemorySegment dst, int n, int g) {
        for (int j = 0; j < coutG; j++) {
            int co = g * coutG + j;
            float bv = bias == null ? 0f : bias.getAtIndex(JAVA_FLOAT_UNALIGNED, co);
            long out = ((long) n * d.cout() + co) * pixels;
            for (int p = 0; p < pixels; p++) {
                float v = acc.getAtIndex(JAVA_FLOAT_UNALIGNED, (long) p * coutG + j) + bv;
                dst.setAtIndex(JAVA_FLOAT_UNALIGNED, out + p, d.relu() ? Math.max(v, 0f) : v);
            }
        }
    }
}
