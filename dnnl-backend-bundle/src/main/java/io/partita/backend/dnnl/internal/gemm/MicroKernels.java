package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import io.partita.backend.dnnl.internal.isa.Isa;

/**
 * The register-blocked micro-kernels: C[r x NR] (+)= packed A group x packed B panel rows, one
 * kernel per row count (14, 8, 4 with 512-bit vectors; 4 narrower) so that a short last row
 * group does not pay for 14 rows.
 *
 * <p>Each k step loads two vectors of B and broadcasts one A value per row. With 512 bits, 14 rows keep
 * 28 accumulators live out of the 32 vector registers, the widest block measured to keep both FMA
 * ports busy (on L1-resident data it reaches ~95% of the register-only FMA peak; 6 x 64 reached
 * ~75%). The code is written out per row because accumulators must be locals to stay in registers.
 * Accumulators go to a small tile array, then to C: loading C into them as well made the
 * method too big for C1's register allocator, and a method C1 cannot compile at tier 3 never
 * reached C2.
 */
public final class MicroKernels {
    static final VectorSpecies<Float> S = Isa.FLOAT;
    /** Floats per vector (16, 8 or 4); a constant, so C2 folds the blocking choice below. */
    static final int L = Isa.LANES;
    /** Columns of a B panel: two vectors. */
    static final int NR = 2 * L;
    /**
     * Rows of A per packed group (the widest kernel): 14 with 512-bit vectors (28 accumulators of
     * 32 zmm registers); 4 with 256 or 128 bits, 8 accumulators. AVX2 and SSE have 16 vector
     * registers: measured on L1-resident data with -XX:UseAVX=2, 4 x 2 vectors ran at the FMA peak,
     * 6 x 2 and 4 x 3 (12 accumulators) at half of it, 8 x 2 at 65%; likewise at 128 bits. (C2
     * schedules a step's row broadcasts together ahead of their FMAs; with 12 accumulators they spill.)
     * On an AVX2 Zen 3, 5 x 2 reached 101 against 4 x 2's 82-85 GFLOPS on L1 data with 576-deep K,
     * but only with its loop counted over A's index (counted from 0 and offset, it spilled two
     * accumulators: 36 GFLOPS); in place it gained 0-4% on single-thread GEMMs, nothing beyond noise
     * with two threads (180-186 GFLOPS either way) or on ResNet-50, so the simpler 4 x 2 stays.
     */
    static final int MR = L == 16 ? 14 : 4;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final FloatVector ZERO = FloatVector.zero(S);

    private MicroKernels() {
    }

    /**
     * C tile (+)= A group x B rows over kc steps, for the first {@code mr} rows and {@code cols}
     * columns of the tile: A element (r, kk) at {@code ap[aOff + kk * MR + r]}, B element (kk, j) at
     * {@code bp[bOff + kk * NR + j]}, C element (r, j) at byte {@code cOff + r * ldcBytes + 4 * j}.
     */
    public static void run(float[] ap, int aOff, float[] bp, int bOff, int kc, MemorySegment c, long cOff, long ldcBytes,
            boolean accumulate, int mr, int cols, TileBuffer tile) {
        run(ap, aOff, bp, bOff, kc, c, cOff, ldcBytes, accumulate, mr, cols, tile, null, 0, false);
    }

    /**
     * As above, and where the tile is not accumulated onto C (the first K block), adds
     * {@code bias[biasOff + j]} to column j: a per-column bias costs nothing past the store
     * (null: none; readable NR floats from {@code biasOff}); with {@code relu} (on the tile's last
     * K block) applies ReLU (NaN to 0) to what is stored. Only ReLU: another activation's code is
     * too large to inline here, and a call would box every vector.
     */
    public static void run(float[] ap, int aOff, float[] bp, int bOff, int kc, MemorySegment c, long cOff, long ldcBytes,
            boolean accumulate, int mr, int cols, TileBuffer tile, float[] bias, int biasOff, boolean relu) {
        if (MR == 4) {
            k4(ap, aOff, bp, bOff, kc, c, cOff, ldcBytes, accumulate, mr, cols, tile, bias, biasOff, relu);
        } else if (mr > 8) {
            k14(ap, aOff, bp, bOff, kc, c, cOff, ldcBytes, accumulate, mr, cols, tile, bias, biasOff, relu);
        } else if (mr > 4) {
            k8(ap, aOff, bp, bOff, kc, c, cOff, ldcBytes, accumulate, mr, cols, tile, bias, biasOff, relu);
        } else {
            k4(ap, aOff, bp, bOff, kc, c, cOff, ldcBytes, accumulate, mr, cols, tile, bias, biasOff, relu);
        }
    }

    private static void k14(float[] ap, int aOff, float[] bp, int bOff, int kc, MemorySegment c, long cOff,
            long ldcBytes, boolean accumulate, int mr, int cols, TileBuffer tile, float[] bias, int biasOff, boolean relu) {
        loop14(ap, aOff, bp, bOff, kc, tile.values);
        flush(tile.values, c, cOff, ldcBytes, accumulate, mr, cols, bias, biasOff, relu);
    }

    private static void loop14(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] tile) {
        FloatVector z = FloatVector.zero(S);
        FloatVector c00 = z, c01 = z;
        FloatVector c10 = z, c11 = z;
        FloatVector c20 = z, c21 = z;
        FloatVector c30 = z, c31 = z;
        FloatVector c40 = z, c41 = z;
        FloatVector c50 = z, c51 = z;
        FloatVector c60 = z, c61 = z;
        FloatVector c70 = z, c71 = z;
        FloatVector c80 = z, c81 = z;
        FloatVector c90 = z, c91 = z;
        FloatVector c100 = z, c101 = z;
        FloatVector c110 = z, c111 = z;
        FloatVector c120 = z, c121 = z;
        FloatVector c130 = z, c131 = z;
        for (int kk = 0; kk < kc; kk++) {
            int ai = aOff + kk * MR; // from the loop counter: C2 drops their range checks
            int bi = bOff + kk * NR;
            FloatVector b0 = FloatVector.fromArray(S, bp, bi);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + L);
            FloatVector a0 = FloatVector.broadcast(S, ap[ai + 0]);
            c00 = b0.fma(a0, c00);
            c01 = b1.fma(a0, c01);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c10 = b0.fma(a1, c10);
            c11 = b1.fma(a1, c11);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c20 = b0.fma(a2, c20);
            c21 = b1.fma(a2, c21);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c30 = b0.fma(a3, c30);
            c31 = b1.fma(a3, c31);
            FloatVector a4 = FloatVector.broadcast(S, ap[ai + 4]);
            c40 = b0.fma(a4, c40);
            c41 = b1.fma(a4, c41);
            FloatVector a5 = FloatVector.broadcast(S, ap[ai + 5]);
            c50 = b0.fma(a5, c50);
            c51 = b1.fma(a5, c51);
            FloatVector a6 = FloatVector.broadcast(S, ap[ai + 6]);
            c60 = b0.fma(a6, c60);
            c61 = b1.fma(a6, c61);
            FloatVector a7 = FloatVector.broadcast(S, ap[ai + 7]);
            c70 = b0.fma(a7, c70);
            c71 = b1.fma(a7, c71);
            FloatVector a8 = FloatVector.broadcast(S, ap[ai + 8]);
            c80 = b0.fma(a8, c80);
            c81 = b1.fma(a8, c81);
            FloatVector a9 = FloatVector.broadcast(S, ap[ai + 9]);
            c90 = b0.fma(a9, c90);
            c91 = b1.fma(a9, c91);
            FloatVector a10 = FloatVector.broadcast(S, ap[ai + 10]);
            c100 = b0.fma(a10, c100);
            c101 = b1.fma(a10, c101);
            FloatVector a11 = FloatVector.broadcast(S, ap[ai + 11]);
            c110 = b0.fma(a11, c110);
            c111 = b1.fma(a11, c111);
            FloatVector a12 = FloatVector.broadcast(S, ap[ai + 12]);
            c120 = b0.fma(a12, c120);
            c121 = b1.fma(a12, c121);
            FloatVector a13 = FloatVector.broadcast(S, ap[ai + 13]);
            c130 = b0.fma(a13, c130);
            c131 = b1.fma(a13, c131);
        }
        c00.intoArray(tile, 0);
        c01.intoArray(tile, L);
        c10.intoArray(tile, NR);
        c11.intoArray(tile, NR + L);
        c20.intoArray(tile, 2 * NR);
        c21.intoArray(tile, 2 * NR + L);
        c30.intoArray(tile, 3 * NR);
        c31.intoArray(tile, 3 * NR + L);
        c40.intoArray(tile, 4 * NR);
        c41.intoArray(tile, 4 * NR + L);
        c50.intoArray(tile, 5 * NR);
        c51.intoArray(tile, 5 * NR + L);
        c60.intoArray(tile, 6 * NR);
        c61.intoArray(tile, 6 * NR + L);
        c70.intoArray(tile, 7 * NR);
        c71.intoArray(tile, 7 * NR + L);
        c80.intoArray(tile, 8 * NR);
        c81.intoArray(tile, 8 * NR + L);
        c90.intoArray(tile, 9 * NR);
        c91.intoArray(tile, 9 * NR + L);
        c100.intoArray(tile, 10 * NR);
        c101.intoArray(tile, 10 * NR + L);
        c110.intoArray(tile, 11 * NR);
        c111.intoArray(tile, 11 * NR + L);
        c120.intoArray(tile, 12 * NR);
        c121.intoArray(tile, 12 * NR + L);
        c130.intoArray(tile, 13 * NR);
        c131.intoArray(tile, 13 * NR + L);
    }

    private static void k8(float[] ap, int aOff, float[] bp, int bOff, int kc, MemorySegment c, long cOff,
            long ldcBytes, boolean accumulate, int mr, int cols, TileBuffer tile, float[] bias, int biasOff, boolean relu) {
        loop8(ap, aOff, bp, bOff, kc, tile.values);
        flush(tile.values, c, cOff, ldcBytes, accumulate, mr, cols, bias, biasOff, relu);
    }

    private static void loop8(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] tile) {
        FloatVector z = FloatVector.zero(S);
        FloatVector c00 = z, c01 = z;
        FloatVector c10 = z, c11 = z;
        FloatVector c20 = z, c21 = z;
        FloatVector c30 = z, c31 = z;
        FloatVector c40 = z, c41 = z;
        FloatVector c50 = z, c51 = z;
        FloatVector c60 = z, c61 = z;
        FloatVector c70 = z, c71 = z;
        for (int kk = 0; kk < kc; kk++) {
            int ai = aOff + kk * MR; // from the loop counter: C2 drops their range checks
            int bi = bOff + kk * NR;
            FloatVector b0 = FloatVector.fromArray(S, bp, bi);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + L);
            FloatVector a0 = FloatVector.broadcast(S, ap[ai + 0]);
            c00 = b0.fma(a0, c00);
            c01 = b1.fma(a0, c01);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c10 = b0.fma(a1, c10);
            c11 = b1.fma(a1, c11);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c20 = b0.fma(a2, c20);
            c21 = b1.fma(a2, c21);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c30 = b0.fma(a3, c30);
            c31 = b1.fma(a3, c31);
            FloatVector a4 = FloatVector.broadcast(S, ap[ai + 4]);
            c40 = b0.fma(a4, c40);
            c41 = b1.fma(a4, c41);
            FloatVector a5 = FloatVector.broadcast(S, ap[ai + 5]);
            c50 = b0.fma(a5, c50);
            c51 = b1.fma(a5, c51);
            FloatVector a6 = FloatVector.broadcast(S, ap[ai + 6]);
            c60 = b0.fma(a6, c60);
            c61 = b1.fma(a6, c61);
            FloatVector a7 = FloatVector.broadcast(S, ap[ai + 7]);
            c70 = b0.fma(a7, c70);
            c71 = b1.fma(a7, c71);
        }
        c00.intoArray(tile, 0);
        c01.intoArray(tile, L);
        c10.intoArray(tile, NR);
        c11.intoArray(tile, NR + L);
        c20.intoArray(tile, 2 * NR);
        c21.intoArray(tile, 2 * NR + L);
        c30.intoArray(tile, 3 * NR);
        c31.intoArray(tile, 3 * NR + L);
        c40.intoArray(tile, 4 * NR);
        c41.intoArray(tile, 4 * NR + L);
        c50.intoArray(tile, 5 * NR);
        c51.intoArray(tile, 5 * NR + L);
        c60.intoArray(tile, 6 * NR);
        c61.intoArray(tile, 6 * NR + L);
        c70.intoArray(tile, 7 * NR);
        c71.intoArray(tile, 7 * NR + L);
    }

    private static void k4(float[] ap, int aOff, float[] bp, int bOff, int kc, MemorySegment c, long cOff,
            long ldcBytes, boolean accumulate, int mr, int cols, TileBuffer tile, float[] bias, int biasOff, boolean relu) {
        if (mr == 4 && cols == NR) {
            loop4Direct(ap, aOff, bp, bOff, kc, c, cOff, ldcBytes, accumulate ? null : bias, biasOff, null, 0,
                    accumulate ? c : null, cOff, relu);
            return;
        }
        // a partial tile through the tile array, from which flush writes its rows and columns
        loop4(ap, aOff, bp, bOff, kc, tile.values, 0, NR, false);
        flush(tile.values, c, cOff, ldcBytes, accumulate, mr, cols, bias, biasOff, relu);
    }

    /**
     * As {@link #run} into a staging block (a heap array, {@code ld} floats per row) instead of C,
     * without bias or ReLU: whole tiles, added to what the block holds when {@code accumulate}.
     * Heap arrays, never a heap segment: the Vector API's segment stores share one type profile in
     * the JDK, and once a heap segment had gone through it, every store to a tensor in native
     * memory paid a type check and lost its scheduling (a 1024^3 product spent 10% of its time
     * storing C instead of 3%).
     */
    public static void runStaged(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] staged, int off, int ld,
            boolean accumulate, int mr, TileBuffer tile) {
        if (MR == 4) {
            loop4(ap, aOff, bp, bOff, kc, staged, off, ld, accumulate);
            return;
        }
        if (mr > 8) {
            loop14(ap, aOff, bp, bOff, kc, tile.values);
        } else if (mr > 4) {
            loop8(ap, aOff, bp, bOff, kc, tile.values);
        } else {
            loop4(ap, aOff, bp, bOff, kc, tile.values, 0, NR, false);
        }
        float[] t = tile.values;
        for (int r = 0; r < mr; r++) {
            for (int q = 0; q < NR; q += L) {
                FloatVector v = FloatVector.fromArray(S, t, r * NR + q);
                int o = off + r * ld + q;
                if (accumulate) {
                    v = v.add(FloatVector.fromArray(S, staged, o));
                }
                v.intoArray(staged, o);
            }
        }
    }

    /**
     * A 4 x NR tile into a heap array ({@code ld} floats per row from {@code off}), added to what it
     * holds when {@code accumulate}: the partial-tile and staging form of {@link #loop4Direct}.
     */
    static void loop4(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] out, int off, int ld,
            boolean accumulate) {
        FloatVector z = FloatVector.zero(S);
        FloatVector c00 = z, c01 = z;
        FloatVector c10 = z, c11 = z;
        FloatVector c20 = z, c21 = z;
        FloatVector c30 = z, c31 = z;
        for (int kk = 0; kk < kc; kk++) {
            int ai = aOff + kk * MR; // from the loop counter: C2 drops their range checks
            int bi = bOff + kk * NR;
            FloatVector b0 = FloatVector.fromArray(S, bp, bi);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + L);
            FloatVector a0 = FloatVector.broadcast(S, ap[ai + 0]);
            c00 = b0.fma(a0, c00);
            c01 = b1.fma(a0, c01);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c10 = b0.fma(a1, c10);
            c11 = b1.fma(a1, c11);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c20 = b0.fma(a2, c20);
            c21 = b1.fma(a2, c21);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c30 = b0.fma(a3, c30);
            c31 = b1.fma(a3, c31);
        }
        int o1 = off + ld;
        int o2 = o1 + ld;
        int o3 = o2 + ld;
        if (accumulate) {
            c00 = c00.add(FloatVector.fromArray(S, out, off));
            c01 = c01.add(FloatVector.fromArray(S, out, off + L));
            c10 = c10.add(FloatVector.fromArray(S, out, o1));
            c11 = c11.add(FloatVector.fromArray(S, out, o1 + L));
            c20 = c20.add(FloatVector.fromArray(S, out, o2));
            c21 = c21.add(FloatVector.fromArray(S, out, o2 + L));
            c30 = c30.add(FloatVector.fromArray(S, out, o3));
            c31 = c31.add(FloatVector.fromArray(S, out, o3 + L));
        }
        c00.intoArray(out, off);
        c01.intoArray(out, off + L);
        c10.intoArray(out, o1);
        c11.intoArray(out, o1 + L);
        c20.intoArray(out, o2);
        c21.intoArray(out, o2 + L);
        c30.intoArray(out, o3);
        c31.intoArray(out, o3 + L);
    }

    /**
     * A whole 4 x NR tile, stored from the accumulators straight to C, through an epilogue: plus
     * the column bias {@code bias[biasOff..]} (null: none), plus the row bias
     * {@code rowBias[rowBiasOff + r]} for row r (null: none; {@link ChannelGemm}, whose rows are a
     * convolution's output channels), plus the tile at byte {@code addOff} of {@code addend} (rows
     * {@code ldcBytes} apart: C itself when accumulating over K blocks, or a residual; null: none),
     * then ReLU if asked (NaN to 0, as the reference). Through the tile array, each call's eight
     * vector stores and reloads cost more than a third of a 64-deep K loop (1 thread, AVX2: a
     * 64 -> 256 channel 1x1 convolution at 56x56 took 2.21 ms that way, 1.85 ms direct).
     */
    static void loop4Direct(float[] ap, int aOff, float[] bp, int bOff, int kc, MemorySegment c, long cOff,
            long ldcBytes, float[] bias, int biasOff, float[] rowBias, int rowBiasOff, MemorySegment addend,
            long addOff, boolean relu) {
        FloatVector z = FloatVector.zero(S);
        FloatVector c00 = z, c01 = z;
        FloatVector c10 = z, c11 = z;
        FloatVector c20 = z, c21 = z;
        FloatVector c30 = z, c31 = z;
        for (int kk = 0; kk < kc; kk++) {
            int ai = aOff + kk * MR; // from the loop counter: C2 drops their range checks
            int bi = bOff + kk * NR;
            FloatVector b0 = FloatVector.fromArray(S, bp, bi);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + L);
            FloatVector a0 = FloatVector.broadcast(S, ap[ai + 0]);
            c00 = b0.fma(a0, c00);
            c01 = b1.fma(a0, c01);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c10 = b0.fma(a1, c10);
            c11 = b1.fma(a1, c11);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c20 = b0.fma(a2, c20);
            c21 = b1.fma(a2, c21);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c30 = b0.fma(a3, c30);
            c31 = b1.fma(a3, c31);
        }
        if (bias != null) {
            FloatVector bias0 = FloatVector.fromArray(S, bias, biasOff);
            FloatVector bias1 = FloatVector.fromArray(S, bias, biasOff + L);
            c00 = c00.add(bias0);
            c01 = c01.add(bias1);
            c10 = c10.add(bias0);
            c11 = c11.add(bias1);
            c20 = c20.add(bias0);
            c21 = c21.add(bias1);
            c30 = c30.add(bias0);
            c31 = c31.add(bias1);
        }
        if (rowBias != null) {
            FloatVector r0 = FloatVector.broadcast(S, rowBias[rowBiasOff]);
            FloatVector r1 = FloatVector.broadcast(S, rowBias[rowBiasOff + 1]);
            FloatVector r2 = FloatVector.broadcast(S, rowBias[rowBiasOff + 2]);
            FloatVector r3 = FloatVector.broadcast(S, rowBias[rowBiasOff + 3]);
            c00 = c00.add(r0);
            c01 = c01.add(r0);
            c10 = c10.add(r1);
            c11 = c11.add(r1);
            c20 = c20.add(r2);
            c21 = c21.add(r2);
            c30 = c30.add(r3);
            c31 = c31.add(r3);
        }
        long h = 4L * L;
        // written out rather than through a helper taking a vector: a call C2 has not inlined (as in
        // its first compilations, before the helper is hot) boxes every vector it passes
        if (addend != null) {
            long a1 = addOff + ldcBytes;
            long a2 = a1 + ldcBytes;
            long a3 = a2 + ldcBytes;
            c00 = c00.add(FloatVector.fromMemorySegment(S, addend, addOff, ORDER));
            c01 = c01.add(FloatVector.fromMemorySegment(S, addend, addOff + h, ORDER));
            c10 = c10.add(FloatVector.fromMemorySegment(S, addend, a1, ORDER));
            c11 = c11.add(FloatVector.fromMemorySegment(S, addend, a1 + h, ORDER));
            c20 = c20.add(FloatVector.fromMemorySegment(S, addend, a2, ORDER));
            c21 = c21.add(FloatVector.fromMemorySegment(S, addend, a2 + h, ORDER));
            c30 = c30.add(FloatVector.fromMemorySegment(S, addend, a3, ORDER));
            c31 = c31.add(FloatVector.fromMemorySegment(S, addend, a3 + h, ORDER));
        }
        if (relu) { // NaN to 0, as the reference
            c00 = z.blend(c00, c00.compare(VectorOperators.GT, 0f));
            c01 = z.blend(c01, c01.compare(VectorOperators.GT, 0f));
            c10 = z.blend(c10, c10.compare(VectorOperators.GT, 0f));
            c11 = z.blend(c11, c11.compare(VectorOperators.GT, 0f));
            c20 = z.blend(c20, c20.compare(VectorOperators.GT, 0f));
            c21 = z.blend(c21, c21.compare(VectorOperators.GT, 0f));
            c30 = z.blend(c30, c30.compare(VectorOperators.GT, 0f));
            c31 = z.blend(c31, c31.compare(VectorOperators.GT, 0f));
        }
        long o1 = cOff + ldcBytes;
        long o2 = o1 + ldcBytes;
        long o3 = o2 + ldcBytes;
        c00.intoMemorySegment(c, cOff, ORDER);
        c01.intoMemorySegment(c, cOff + h, ORDER);
        c10.intoMemorySegment(c, o1, ORDER);
        c11.intoMemorySegment(c, o1 + h, ORDER);
        c20.intoMemorySegment(c, o2, ORDER);
        c21.intoMemorySegment(c, o2 + h, ORDER);
        c30.intoMemorySegment(c, o3, ORDER);
        c31.intoMemorySegment(c, o3 + h, ORDER);
    }

    /** Writes (or adds) the first mr rows and cols columns of a tile (rows of NR floats) to C. */
    private static void flush(float[] tile, MemorySegment c, long cOff, long ldcBytes, boolean accumulate, int mr,
            int cols, float[] bias, int biasOff, boolean relu) {
        boolean biased = bias != null && !accumulate;
        for (int r = 0; r < mr; r++) {
            long row = cOff + r * ldcBytes;
            for (int q = 0; q < cols; q += L) {
                FloatVector v = FloatVector.fromArray(S, tile, r * NR + q);
                if (biased) {
                    v = v.add(FloatVector.fromArray(S, bias, biasOff + q));
                }
                long o = row + 4L * q;
                if (q + L <= cols) {
                    if (accumulate) {
                        v = v.add(FloatVector.fromMemorySegment(S, c, o, ORDER));
                    }
                    if (relu) {
                        v = ZERO.blend(v, v.compare(VectorOperators.GT, 0f)); // NaN to 0, as the reference
                    }
                    v.intoMemorySegment(c, o, ORDER);
                } else {
                    VectorMask<Float> mask = S.indexInRange(q, cols);
                    if (accumulate) {
                        v = v.add(FloatVector.fromMemorySegment(S, c, o, ORDER, mask));
                    }
                    if (relu) {
                        v = ZERO.blend(v, v.compare(VectorOperators.GT, 0f)); // NaN to 0, as the reference
                    }
                    v.intoMemorySegment(c, o, ORDER, mask);
                }
            }
        }
    }
}
