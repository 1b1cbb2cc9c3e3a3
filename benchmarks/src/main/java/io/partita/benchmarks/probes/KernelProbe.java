package io.partita.benchmarks.probes;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

import io.partita.backend.dnnl.internal.gemm.MicroKernels;
import io.partita.backend.dnnl.internal.gemm.Sgemm;
import io.partita.backend.dnnl.internal.gemm.TileBuffer;
import io.partita.backend.dnnl.internal.isa.Isa;

/**
 * Micro-kernel shapes on L1-resident data (not a test): java ... KernelProbe kc. The backend's
 * kernel ({@code mk}) at this JVM's width against the FMA peak; the hand-written 6x64 and 14x32
 * shapes are the 512-bit experiments and run only where 512 bits are in use.
 */
public final class KernelProbe {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_512;

    static void k6x64(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] tile) {
        FloatVector z = FloatVector.zero(S);
        FloatVector c0_0 = z, c0_1 = z, c0_2 = z, c0_3 = z;
        FloatVector c1_0 = z, c1_1 = z, c1_2 = z, c1_3 = z;
        FloatVector c2_0 = z, c2_1 = z, c2_2 = z, c2_3 = z;
        FloatVector c3_0 = z, c3_1 = z, c3_2 = z, c3_3 = z;
        FloatVector c4_0 = z, c4_1 = z, c4_2 = z, c4_3 = z;
        FloatVector c5_0 = z, c5_1 = z, c5_2 = z, c5_3 = z;
        int ai = aOff;
        int bi = bOff;
        for (int kk = 0; kk < kc; kk++, ai += 6, bi += 64) {
            FloatVector b0 = FloatVector.fromArray(S, bp, bi + 0);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + 16);
            FloatVector b2 = FloatVector.fromArray(S, bp, bi + 32);
            FloatVector b3 = FloatVector.fromArray(S, bp, bi + 48);
            FloatVector a0 = FloatVector.broadcast(S, ap[ai + 0]);
            c0_0 = b0.fma(a0, c0_0);
            c0_1 = b1.fma(a0, c0_1);
            c0_2 = b2.fma(a0, c0_2);
            c0_3 = b3.fma(a0, c0_3);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c1_0 = b0.fma(a1, c1_0);
            c1_1 = b1.fma(a1, c1_1);
            c1_2 = b2.fma(a1, c1_2);
            c1_3 = b3.fma(a1, c1_3);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c2_0 = b0.fma(a2, c2_0);
            c2_1 = b1.fma(a2, c2_1);
            c2_2 = b2.fma(a2, c2_2);
            c2_3 = b3.fma(a2, c2_3);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c3_0 = b0.fma(a3, c3_0);
            c3_1 = b1.fma(a3, c3_1);
            c3_2 = b2.fma(a3, c3_2);
            c3_3 = b3.fma(a3, c3_3);
            FloatVector a4 = FloatVector.broadcast(S, ap[ai + 4]);
            c4_0 = b0.fma(a4, c4_0);
            c4_1 = b1.fma(a4, c4_1);
            c4_2 = b2.fma(a4, c4_2);
            c4_3 = b3.fma(a4, c4_3);
            FloatVector a5 = FloatVector.broadcast(S, ap[ai + 5]);
            c5_0 = b0.fma(a5, c5_0);
            c5_1 = b1.fma(a5, c5_1);
            c5_2 = b2.fma(a5, c5_2);
            c5_3 = b3.fma(a5, c5_3);
        }
        c0_0.intoArray(tile, 0);
        c0_1.intoArray(tile, 16);
        c0_2.intoArray(tile, 32);
        c0_3.intoArray(tile, 48);
        c1_0.intoArray(tile, 64);
        c1_1.intoArray(tile, 80);
        c1_2.intoArray(tile, 96);
        c1_3.intoArray(tile, 112);
        c2_0.intoArray(tile, 128);
        c2_1.intoArray(tile, 144);
        c2_2.intoArray(tile, 160);
        c2_3.intoArray(tile, 176);
        c3_0.intoArray(tile, 192);
        c3_1.intoArray(tile, 208);
        c3_2.intoArray(tile, 224);
        c3_3.intoArray(tile, 240);
        c4_0.intoArray(tile, 256);
        c4_1.intoArray(tile, 272);
        c4_2.intoArray(tile, 288);
        c4_3.intoArray(tile, 304);
        c5_0.intoArray(tile, 320);
        c5_1.intoArray(tile, 336);
        c5_2.intoArray(tile, 352);
        c5_3.intoArray(tile, 368);
    }
    static void k14x32(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] tile) {
        FloatVector z = FloatVector.zero(S);
        FloatVector c0_0 = z, c0_1 = z;
        FloatVector c1_0 = z, c1_1 = z;
        FloatVector c2_0 = z, c2_1 = z;
        FloatVector c3_0 = z, c3_1 = z;
        FloatVector c4_0 = z, c4_1 = z;
        FloatVector c5_0 = z, c5_1 = z;
        FloatVector c6_0 = z, c6_1 = z;
        FloatVector c7_0 = z, c7_1 = z;
        FloatVector c8_0 = z, c8_1 = z;
        FloatVector c9_0 = z, c9_1 = z;
        FloatVector c10_0 = z, c10_1 = z;
        FloatVector c11_0 = z, c11_1 = z;
        FloatVector c12_0 = z, c12_1 = z;
        FloatVector c13_0 = z, c13_1 = z;
        int ai = aOff;
        int bi = bOff;
        for (int kk = 0; kk < kc; kk++, ai += 14, bi += 32) {
            FloatVector b0 = FloatVector.fromArray(S, bp, bi + 0);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + 16);
            FloatVector a0 = FloatVector.broadcast(S, ap[ai + 0]);
            c0_0 = b0.fma(a0, c0_0);
            c0_1 = b1.fma(a0, c0_1);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c1_0 = b0.fma(a1, c1_0);
            c1_1 = b1.fma(a1, c1_1);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c2_0 = b0.fma(a2, c2_0);
            c2_1 = b1.fma(a2, c2_1);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c3_0 = b0.fma(a3, c3_0);
            c3_1 = b1.fma(a3, c3_1);
            FloatVector a4 = FloatVector.broadcast(S, ap[ai + 4]);
            c4_0 = b0.fma(a4, c4_0);
            c4_1 = b1.fma(a4, c4_1);
            FloatVector a5 = FloatVector.broadcast(S, ap[ai + 5]);
            c5_0 = b0.fma(a5, c5_0);
            c5_1 = b1.fma(a5, c5_1);
            FloatVector a6 = FloatVector.broadcast(S, ap[ai + 6]);
            c6_0 = b0.fma(a6, c6_0);
            c6_1 = b1.fma(a6, c6_1);
            FloatVector a7 = FloatVector.broadcast(S, ap[ai + 7]);
            c7_0 = b0.fma(a7, c7_0);
            c7_1 = b1.fma(a7, c7_1);
            FloatVector a8 = FloatVector.broadcast(S, ap[ai + 8]);
            c8_0 = b0.fma(a8, c8_0);
            c8_1 = b1.fma(a8, c8_1);
            FloatVector a9 = FloatVector.broadcast(S, ap[ai + 9]);
            c9_0 = b0.fma(a9, c9_0);
            c9_1 = b1.fma(a9, c9_1);
            FloatVector a10 = FloatVector.broadcast(S, ap[ai + 10]);
            c10_0 = b0.fma(a10, c10_0);
            c10_1 = b1.fma(a10, c10_1);
            FloatVector a11 = FloatVector.broadcast(S, ap[ai + 11]);
            c11_0 = b0.fma(a11, c11_0);
            c11_1 = b1.fma(a11, c11_1);
            FloatVector a12 = FloatVector.broadcast(S, ap[ai + 12]);
            c12_0 = b0.fma(a12, c12_0);
            c12_1 = b1.fma(a12, c12_1);
            FloatVector a13 = FloatVector.broadcast(S, ap[ai + 13]);
            c13_0 = b0.fma(a13, c13_0);
            c13_1 = b1.fma(a13, c13_1);
        }
        c0_0.intoArray(tile, 0);
        c0_1.intoArray(tile, 16);
        c1_0.intoArray(tile, 32);
        c1_1.intoArray(tile, 48);
        c2_0.intoArray(tile, 64);
        c2_1.intoArray(tile, 80);
        c3_0.intoArray(tile, 96);
        c3_1.intoArray(tile, 112);
        c4_0.intoArray(tile, 128);
        c4_1.intoArray(tile, 144);
        c5_0.intoArray(tile, 160);
        c5_1.intoArray(tile, 176);
        c6_0.intoArray(tile, 192);
        c6_1.intoArray(tile, 208);
        c7_0.intoArray(tile, 224);
        c7_1.intoArray(tile, 240);
        c8_0.intoArray(tile, 256);
        c8_1.intoArray(tile, 272);
        c9_0.intoArray(tile, 288);
        c9_1.intoArray(tile, 304);
        c10_0.intoArray(tile, 320);
        c10_1.intoArray(tile, 336);
        c11_0.intoArray(tile, 352);
        c11_1.intoArray(tile, 368);
        c12_0.intoArray(tile, 384);
        c12_1.intoArray(tile, 400);
        c13_0.intoArray(tile, 416);
        c13_1.intoArray(tile, 432);
    }

    /** The register-only FMA loop (24 FMAs per step), the ceiling the kernels are compared with. */
    static void peak(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] tile) {
        SgemmProbe.peak(ap, kc, tile);
    }

    static final java.lang.foreign.MemorySegment CSEG = java.lang.foreign.Arena.global().allocate(4L * 14 * 1024, 64);

    /** The micro-kernel's own partial-tile buffer (whole tiles, as here, do not use it). */
    private static final TileBuffer TILE = new TileBuffer();

    static void mk(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] tile) {
        MicroKernels.run(ap, aOff, bp, bOff, kc, CSEG, 0, 4096, true, Sgemm.MR, Sgemm.NR, TILE);
    }

    static void mkNoAcc(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] tile) {
        MicroKernels.run(ap, aOff, bp, bOff, kc, CSEG, 0, 4096, false, Sgemm.MR, Sgemm.NR, TILE);
    }

    interface K { void run(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] tile); }

    public static void main(String[] args) {
        int kc = Integer.parseInt(args[0]);
        int reps = 6;
        float[] tile = new float[32 * 64];
        boolean wide = Isa.BITS == 512;
        String[] names = wide ? new String[] {"peak", "mk", "mkNoAcc", "6x64", "14x32"}
                : new String[] {"peak", "mk", "mkNoAcc"};
        int[] mrs = {1, Sgemm.MR, Sgemm.MR, 6, 14};
        int[] nrs = {24 * Isa.LANES, Sgemm.NR, Sgemm.NR, 64, 32};
        K[] all = {KernelProbe::peak, KernelProbe::mk, KernelProbe::mkNoAcc, KernelProbe::k6x64, KernelProbe::k14x32};
        K[] ks = java.util.Arrays.copyOf(all, names.length);
        float[][] aps = new float[ks.length][];
        float[][] bps = new float[ks.length][];
        for (int v = 0; v < ks.length; v++) {
            aps[v] = new float[mrs[v] * kc * 8];
            bps[v] = new float[nrs[v] * kc];
            java.util.Arrays.fill(aps[v], 0.5f);
            java.util.Arrays.fill(bps[v], 0.25f);
        }
        for (int rep = 0; rep < reps; rep++) {
            double[] bests = new double[ks.length];
            for (int trial = 0; trial < 40; trial++) {
              for (int v = 0; v < ks.length; v++) {
                float[] ap = aps[v];
                float[] bp = bps[v];
                double best = bests[v];
                {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < 200; i++) {
                        ks[v].run(ap, (i & 7) * mrs[v] * kc, bp, 0, kc, tile);
                    }
                    long flops = 200L * 2 * (names[v].endsWith("b") ? mrs[v] / 16 : mrs[v]) * nrs[v] * kc;
                    best = Math.max(best, flops / (double) (System.nanoTime() - t0));
                }
                bests[v] = best;
              }
            }
            StringBuilder sb = new StringBuilder();
            for (int v = 0; v < ks.length; v++) {
                sb.append(String.format("%s %.0f(%.2f)  ", names[v], bests[v], bests[v] / bests[0]));
            }
            System.out.println(sb);
        }
    }
}
