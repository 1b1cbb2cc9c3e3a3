package io.partita.backend.acl.internal.ops;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import io.partita.backend.acl.internal.memory.AuxTensor;
import io.partita.backend.acl.internal.simd.Gemm;
import io.partita.cache.Lease;

/**
 * 3x3 stride-1 convolution as Winograd F(4x4, 3x3) (ACL's NEWinogradConvolutionLayer): each 4x4
 * output tile comes from a 6x6 input tile, Y = Aᵀ[(G g Gᵀ) ⊙ (Bᵀ d B)]A, and the elementwise
 * products over input channels become 36 GEMMs [tiles, cin] x [cin, cout], one per position of the
 * 6x6 transformed tile. Weights are transformed (and packed for the GEMM) once into the unified
 * constant cache, or each run into {@code transformed_weights}; the transformed input
 * {@code transformed_input} [36, tiles, cin] and the GEMM results {@code transformed_output}
 * [36, tiles, cout] are auxiliary tensors. Lifetimes per image: weights 0-2, input 1-2, output 2-3.
 * Groups 1, dilation 1; bias and ReLU are applied by the output transform.
 */
public final class WinogradConvolution implements Operator {
    /** The convolution's descriptor: 3x3, stride 1, dilation 1, groups 1. */
    public record Desc(GemmConvolution.Desc conv) {
    }

    private static final int TILE = 4;
    private static final int ALPHA = 6;
    private static final int POS = ALPHA * ALPHA;

    private final GemmConvolution.Desc d;
    private final int tilesH, tilesW, tiles;

    public WinogradConvolution(Desc desc) {
        this.d = desc.conv();
        if (!applies(d)) {
            throw new IllegalArgumentException("not a 3x3 stride-1 dilation-1 single-group convolution: " + d);
        }
        tilesH = (d.ho() + TILE - 1) / TILE;
        tilesW = (d.wo() + TILE - 1) / TILE;
        tiles = tilesH * tilesW;
    }

    /** Whether the convolution has the shape F(4x4, 3x3) computes. */
    public static boolean applies(GemmConvolution.Desc d) {
        return d.kh() == 3 && d.kw() == 3 && d.strideH() == 1 && d.strideW() == 1 && d.dilH() == 1 && d.dilW() == 1
                && d.groups() == 1;
    }

    private long packedLength() {
        return Gemm.packedLength(d.cin(), d.cout());
    }

    private long weightBytes() {
        return POS * packedLength() * Float.BYTES;
    }

    @Override
    public List<AuxTensor> auxTensors() {
        List<AuxTensor> aux = new ArrayList<>();
        if (!d.constantWeights()) {
            aux.add(new AuxTensor("transformed_weights", weightBytes(), 0, 2));
        }
        aux.add(new AuxTensor("transformed_input", (long) POS * tiles * d.cin() * Float.BYTES, 1, 2));
        aux.add(new AuxTensor("transformed_output", (long) POS * tiles * d.cout() * Float.BYTES, 2, 3));
        return aux;
    }

    private float weight(MemorySegment w, int co, int ci, int ky, int kx) {
        long at = d.weightsXio() ? (((long) ky * 3 + kx) * d.cin() + ci) * d.cout() + co
                : (((long) co * d.cin() + ci) * 3 + ky) * 3 + kx;
        return w.getAtIndex(JAVA_FLOAT_UNALIGNED, at);
    }

    /** U = G g Gᵀ for every (co, ci), packed per tile position as a [cin, cout] GEMM operand. */
    private void transformWeights(MemorySegment w, MemorySegment dst) {
        int cin = d.cin(), cout = d.cout();
        float[] u = new float[POS * cin * cout]; // [pos][ci][co]
        float[] g = new float[9];
        float[] t = new float[18];
        for (int co = 0; co < cout; co++) {
            for (int ci = 0; ci < cin; ci++) {
                for (int ky = 0; ky < 3; ky++) {
                    for (int kx = 0; kx < 3; kx++) {
                        g[ky * 3 + kx] = weight(w, co, ci, ky, kx);
                    }
                }
                for (int c = 0; c < 3; c++) { // t = G g: [6][3]
                    float g0 = g[c], g1 = g[3 + c], g2 = g[6 + c];
                    gRow(g0, g1, g2, t, c, 3);
                }
                for (int r = 0; r < ALPHA; r++) { // U = t Gᵀ: [6][6]
                    float[] row = new float[ALPHA];
                    gRow(t[r * 3], t[r * 3 + 1], t[r * 3 + 2], row, 0, 1);
                    for (int c = 0; c < ALPHA; c++) {
                        u[((r * ALPHA + c) * cin + ci) * cout + co] = row[c];
                    }
                }
            }
        }
        for (int p = 0; p < POS; p++) {
            int base = p * cin * cout;
            Gemm.pack((k, n) -> u[base + k * cout + n], cin, cout, dst, p * packedLength());
        }
    }

    /** The six values of G·(g0, g1, g2) into out[at + i * step]. */
    private static void gRow(float g0, float g1, float g2, float[] out, int at, int step) {
        out[at] = g0 / 4f;
        out[at + step] = -(g0 + g1 + g2) / 6f;
        out[at + 2 * step] = -(g0 - g1 + g2) / 6f;
        out[at + 3 * step] = g0 / 24f + g1 / 12f + g2 / 6f;
        out[at + 4 * step] = g0 / 24f - g1 / 12f + g2 / 6f;
        out[at + 5 * step] = g2;
    }

    @Override
    public void run(Run r) {
        MemorySegment src = r.input(0), wts = r.input(1), dst = r.output(0);
        MemorySegment bias = d.bias() ? r.input(2) : null;
        try (Lease lease = d.constantWeights() ? r.constant(1, "winograd_f4x3", weightBytes(),
                seg -> transformWeights(wts, seg)) : null) {
            MemorySegment u;
            if (lease != null) {
                u = lease.segment();
            } else {
                u = r.pool().segment("transformed_weights");
                transformWeights(wts, u);
            }
            MemorySegment v = r.pool().segment("transformed_input");
            MemorySegment m = r.pool().segment("transformed_output");
            float[] dt = new float[POS];
            float[] mt = new float[POS];
            for (int n = 0; n < d.batch(); n++) {
                transformInput(src, n, v, dt);
                for (int p = 0; p < POS; p++) {
                    Gemm.multiply(tiles, d.cout(), d.cin(), v, (long) p * tiles * d.cin(), d.cin(), u,
                            p * packedLength(), m, (long) p * tiles * d.cout(), d.cout(), null, 0, false);
                }
                transformOutput(m, bias, dst, n, mt);
            }
        }
    }

    private long srcIndex(int n, int c, int y, int x) {
        return d.channelsLast() ? (((long) n * d.h() + y) * d.w() + x) * d.cin() + c
                : (((long) n * d.cin() + c) * d.h() + y) * d.w() + x;
    }

    private long dstIndex(int n, int c, int y, int x) {
        return d.channelsLast() ? (((long) n * d.ho() + y) * d.wo() + x) * d.cout() + c
                : (((long) n * d.cout() + c) * d.ho() + y) * d.wo() + x;
    }

    /** V[pos][tile][ci] = (Bᵀ d B)[pos] of each 6x6 input tile (zeros outside the image). */
    private void transformInput(MemorySegment src, int n, MemorySegment v, float[] t) {
        int cin = d.cin();
        long posStride = (long) tiles * cin;
        for (int ty = 0; ty < tilesH; ty++) {
            for (int tx = 0; tx < tilesW; tx++) {
                int tile = ty * tilesW + tx;
                int y0 = ty * TILE - d.padTop(), x0 = tx * TILE - d.padLeft();
                boolean inside = y0 >= 0 && x0 >= 0 && y0 + ALPHA <= d.h() && x0 + ALPHA <= d.w();
                for (int ci = 0; ci < cin; ci++) {
                    for (int i = 0; i < ALPHA; i++) { // t = Bᵀ d, column by column of d
                        int y = y0 + i;
                        for (int j = 0; j < ALPHA; j++) {
                            int x = x0 + j;
                            t[i * ALPHA + j] = inside || y >= 0 && y < d.h() && x >= 0 && x < d.w()
                                    ? src.getAtIndex(JAVA_FLOAT_UNALIGNED, srcIndex(n, ci, y, x)) : 0f;
                        }
                    }
                    for (int j = 0; j < ALPHA; j++) {
                        bt(t, j, ALPHA);
                    }
                    for (int i = 0; i < ALPHA; i++) { // (Bᵀ d) B: rows of t
                        bt(t, i * ALPHA, 1);
                    }
                    long at = (long) tile * cin + ci;
                    for (int p = 0; p < POS; p++) {
                        v.setAtIndex(JAVA_FLOAT_UNALIGNED, p * posStride + at, t[p]);
                    }
                }
            }
        }
    }

    /** Bᵀ applied in place to the six values t[at + i * step]. */
    private static void bt(float[] t, int at, int step) {
        float d0 = t[at], d1 = t[at + step], d2 = t[at + 2 * step], d3 = t[at + 3 * step], d4 = t[at + 4 * step],
                d5 = t[at + 5 * step];
        t[at] = 4 * d0 - 5 * d2 + d4;
        t[at + step] = -4 * d1 - 4 * d2 + d3 + d4;
        t[at + 2 * step] = 4 * d1 - 4 * d2 - d3 + d4;
        t[at + 3 * step] = -2 * d1 - d2 + 2 * d3 + d4;
        t[at + 4 * step] = 2 * d1 - d2 - 2 * d3 + d4;
        t[at + 5 * step] = 4 * d1 - 5 * d3 + d5;
    }

    /** Y = Aᵀ M A per tile and output channel, plus bias, ReLU, cut at the image's edge. */
    private void transformOutput(MemorySegment m, MemorySegment bias, MemorySegment dst, int n, float[] t) {
        int cout = d.cout();
        long posStride = (long) tiles * cout;
        for (int ty = 0; ty < tilesH; ty++) {
            for (int tx = 0; tx < tilesW; tx++) {
                int tile = ty * tilesW + tx;
                int rows = Math.min(TILE, d.ho() - ty * TILE), cols = Math.min(TILE, d.wo() - tx * TILE);
                for (int co = 0; co < cout; co++) {
                    long at = (long) tile * cout + co;
                    for (int p = 0; p < POS; p++) {
                        t[p] = m.getAtIndex(JAVA_FLOAT_UNALIGNED, p * posStride + at);
                    }
                    for (int j = 0; j < ALPHA; j++) { // Aᵀ M: columns, into rows 0..3
                        at(t, j, ALPHA);
                    }
                    for (int i = 0; i < TILE; i++) { // (Aᵀ M) A: rows 0..3, into columns 0..3
                        at(t, i * ALPHA, 1);
                    }
                    float b = bias == null ? 0f : bias.getAtIndex(JAVA_FLOAT_UNALIGNED, co);
                    for (int i = 0; i < rows; i++) {
                        for (int j = 0; j < cols; j++) {
                            float y = t[i * ALPHA + j] + b;
                            dst.setAtIndex(JAVA_FLOAT_UNALIGNED, dstIndex(n, co, ty * TILE + i, tx * TILE + j),
                                    d.relu() ? Math.max(y, 0f) : y);
                        }
                    }
                }
            }
        }
    }

    /** Aᵀ applied to the six values t[at + i * step], the four results into t[at .. at + 3 * step]. */
    private static void at(float[] t, int at, int step) {
        float m0 = t[at], m1 = t[at + step], m2 = t[at + 2 * step], m3 = t[at + 3 * step], m4 = t[at + 4 * step],
                m5 = t[at + 5 * step];
        t[at] = m0 + m1 + m2 + m3 + m4;
        t[at + step] = m1 - m2 + 2 * (m3 - m4);
        t[at + 2 * step] = m1 + m2 + 4 * (m3 + m4);
        t[at + 3 * step] = m1 - m2 + 8 * (m3 - m4) + m5;
    }
}
