package io.partita.backend.dnnl.internal.gemm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.runtime.threads.WorkerTeam;

/** The blocked kernel against a plain triple loop in double, for sizes around every block edge. */
class SgemmTest {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT;
    private static final WorkerTeam POOL = new WorkerTeam(2, "sgemm-test");

    @AfterAll
    static void close() {
        POOL.close();
    }

    @ParameterizedTest(name = "{0}x{1}x{2} transposeA={3} threads={4}")
    @CsvSource({
        "1,1,1,false,1", "1,3,5,false,2", "3,17,63,false,2", "5,64,64,false,1", "6,65,65,false,2",
        "7,100,130,true,2", "17,2,1,false,2", "63,33,200,true,1", "65,129,127,false,2", "96,64,64,false,2", "128,768,100,true,2",
        "97,300,70,false,2", "200,50,8,false,2", "400,20,300,true,2", "2,2100,3,false,2", "13,2049,65,true,2",
        // around the 14 x 32 kernel, its 8- and 4-row variants, K blocks of <= 1024, row blocks (A <= 1 MiB)
        "14,32,32,false,1", "15,257,33,true,2", "28,256,64,false,2", "8,512,31,false,2", "4,513,96,true,2",
        "5,100,17,false,1", "9,300,1,false,2", "13,784,10,false,2", "3,0,5,false,1", "63,1,65,false,2",
        "65,3,63,true,2", "224,100,40,false,2", "225,70,33,true,2", "600,20,35,false,2", "1130,3,33,false,1",
        "20,1025,40,false,2", "30,3000,33,true,2", "300,1100,70,false,1", "500,600,65,false,2",
        // few rows, deep K: each thread's copy of A outgrows L2, K blocks run outermost
        "100,3000,70,false,2", "100,3000,70,true,2",
        // one row (the GEMV kernel): K tails of the 4-step unroll, K blocks, partial and single panels
        "1,1030,1000,false,2", "1,2051,33,false,2", "1,7,31,false,1", "1,1024,1024,false,2", "1,4097,70,false,1",
        "1,2,2,false,2"
    })
    void matchesTheNaiveProduct(int m, int k, int n, boolean transposeA, int threads) {
        try (Arena arena = Arena.ofShared()) {
            Operands o = new Operands(arena, m, k, n, new SplittableRandom(m * 31L + k * 7L + n));
            MemorySegment a = o.a;
            MemorySegment b = o.b;
            MemorySegment c = o.c;
            float[] av = o.av;
            float[] bv = o.bv;
            // A is [m, k] row-major, or stored transposed as [k, m] (element (i, kk) at kk * m + i).
            long aRs = transposeA ? 1 : k;
            long aCs = transposeA ? m : 1;
            PackedB pb = PackedB.pack(b, 0, n, 1, k, n);
            Sgemm.multiply(a, 0, aRs, aCs, m, pb, c, 0, n, (seg, rowOff, row, col, cols) -> {
                for (int j = 0; j < cols; j++) { // epilogue: + row index, then ReLU
                    float v = seg.get(F, rowOff + 4L * (col + j)) + row;
                    seg.set(F, rowOff + 4L * (col + j), Math.max(v, 0));
                }
            }, threads == 1 ? null : POOL);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int kk = 0; kk < k; kk++) {
                        s += (double) av[(int) (i * aRs + kk * aCs)] * bv[kk * n + j];
                    }
                    double expected = Math.max(s + i, 0);
                    float actual = c.get(F, 4L * (i * n + j));
                    assertEquals(expected, actual, 1e-4 * (1 + Math.abs(expected)) + 1e-5 * k,
                            "C(" + i + "," + j + ")");
                }
            }
        }
    }

    /**
     * Few rows on two threads: each thread packs A for itself once per call. Calls back to back
     * with new A of the same shape, and calls from two threads at once, must each use their own A
     * (a thread keeping the previous call's packing would compute with stale rows).
     */
    @Test
    void eachCallPacksItsOwnRowsEvenWhenTheShapeRepeats() throws Exception {
        int m = 128;
        int k = 300;
        int n = 256;
        try (Arena arena = Arena.ofShared()) {
            Operands first = new Operands(arena, m, k, n, new SplittableRandom(1));
            PackedB pb = PackedB.pack(first.b, 0, n, 1, k, n);
            for (int call = 0; call < 3; call++) {
                Operands o = new Operands(arena, m, k, n, new SplittableRandom(100 + call));
                Sgemm.multiply(o.a, 0, k, 1, m, pb, o.c, 0, n, null, POOL);
                assertProduct(o.av, first.bv, o.c, m, k, n, "call " + call);
            }
            java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    int seed = 200 + t;
                    done.add(callers.submit(() -> {
                        for (int call = 0; call < 20; call++) {
                            Operands o = new Operands(arena, m, k, n, new SplittableRandom(seed * 1000L + call));
                            Sgemm.multiply(o.a, 0, k, 1, m, pb, o.c, 0, n, null, POOL);
                            assertProduct(o.av, first.bv, o.c, m, k, n, "thread " + seed + " call " + call);
                        }
                    }));
                }
                for (java.util.concurrent.Future<?> f : done) {
                    f.get();
                }
            } finally {
                callers.shutdownNow();
            }
        }
    }

    private static void assertProduct(float[] av, float[] bv, MemorySegment c, int m, int k, int n, String what) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int kk = 0; kk < k; kk++) {
                    s += (double) av[i * k + kk] * bv[kk * n + j];
                }
                assertEquals(s, c.get(F, 4L * (i * n + j)), 1e-4 * (1 + Math.abs(s)) + 1e-5 * k,
                        what + ": C(" + i + "," + j + ")");
            }
        }
    }

    /** A [m, k] and B [k, n] filled in [-1, 1), C [m, n]; the values also as arrays. */
    private static final class Operands {
        final MemorySegment a;
        final MemorySegment b;
        final MemorySegment c;
        final float[] av;
        final float[] bv;

        Operands(Arena arena, int m, int k, int n, SplittableRandom r) {
            a = arena.allocate(4L * m * k, 64);
            b = arena.allocate(4L * k * n, 64);
            c = arena.allocate(4L * m * n, 64);
            av = fill(a, m * k, r);
            bv = fill(b, k * n, r);
        }
    }

    private static float[] fill(MemorySegment s, int count, SplittableRandom r) {
        float[] v = new float[count];
        for (int i = 0; i < count; i++) {
            v[i] = (float) (r.nextDouble() * 2 - 1);
            s.set(F, 4L * i, v[i]);
        }
        return v;
    }

    /**
     * A per-column bias is added exactly once and an activation applied once, to the final sum (K
     * spans blocks), before the epilogue; one row or many.
     */
    @ParameterizedTest(name = "{0}x{1}x{2} threads={3} relu={4}")
    @CsvSource({"1,2100,70,2,false", "1,5,33,1,true", "20,1500,65,2,true", "3,10,31,1,false", "1,1024,1024,2,true",
        "40,2500,40,2,true",
        "100,3000,70,2,true", "100,2100,40,2,false"})
    void addsTheColumnBiasOnceAndActivatesTheFinalSum(int m, int k, int n, int threads, boolean relu) {
        try (Arena arena = Arena.ofShared()) {
            Operands o = new Operands(arena, m, k, n, new SplittableRandom(m * 13L + k + n));
            MemorySegment a = o.a;
            MemorySegment b = o.b;
            MemorySegment c = o.c;
            float[] av = o.av;
            float[] bv = o.bv;
            float[] bias = new float[(n + Sgemm.NR - 1) / Sgemm.NR * Sgemm.NR];
            for (int j = 0; j < n; j++) {
                bias[j] = j - n / 2f;
            }
            Sgemm.multiply(a, 0, k, 1, m, PackedB.pack(b, 0, n, 1, k, n), c, 0, n, bias, relu,
                    (seg, rowOff, row, col, cols) -> {
                        for (int j = 0; j < cols; j++) { // epilogue after the bias: doubles
                            seg.set(F, rowOff + 4L * (col + j), 2 * seg.get(F, rowOff + 4L * (col + j)));
                        }
                    }, threads == 1 ? null : POOL);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = bias[j];
                    for (int kk = 0; kk < k; kk++) {
                        s += (double) av[i * k + kk] * bv[kk * n + j];
                    }
                    double v = relu ? Math.max(s, 0) : s;
                    assertEquals(2 * v, c.get(F, 4L * (i * n + j)), 2e-4 * (1 + Math.abs(s)) + 2e-5 * k,
                            "C(" + i + "," + j + ")");
                }
            }
        }
    }

    /**
     * Staged output: every element handed to the stage exactly once (row blocks, panel groups and
     * both thread splits), with the full sum over K blocks, and C itself never written.
     */
    @ParameterizedTest(name = "{0}x{1}x{2} threads={3}")
    @CsvSource({"4,64,3136,1", "256,64,3136,2", "7,33,100,1", "9,300,129,2", "200,1100,70,2", "100,3000,70,2",
        "30,3000,33,2", "5,7,17,2", "161,20,300,2", "130,200,70,2"})
    void stagesEachFinishedElementOnce(int m, int k, int n, int threads) {
        try (Arena arena = Arena.ofShared()) {
            Operands o = new Operands(arena, m, k, n, new SplittableRandom(m * 5L + k * 3L + n));
            float[] staged = new float[m * n];
            int[] visits = new int[m * n];
            Sgemm.multiply(new StridedRows(o.a, 0, k, 1, m, k), PackedB.pack(o.b, 0, n, 1, k, n),
                    (src, srcOff, row, col, cols) -> {
                        for (int j = 0; j < cols; j++) { // each element is staged by one thread
                            staged[row * n + col + j] = src[srcOff + j];
                            visits[row * n + col + j]++;
                        }
                    }, threads == 1 ? null : POOL);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int kk = 0; kk < k; kk++) {
                        s += (double) o.av[i * k + kk] * o.bv[kk * n + j];
                    }
                    assertEquals(1, visits[i * n + j], "visits of C(" + i + "," + j + ")");
                    assertEquals(s, staged[i * n + j], 1e-4 * (1 + Math.abs(s)) + 1e-5 * k, "C(" + i + "," + j + ")");
                    assertEquals(0f, o.c.get(F, 4L * (i * n + j)), "C(" + i + "," + j + ") written");
                }
            }
        }
    }

    /**
     * Weights packed once ({@link PackedA}) against panels packed on the fly: the product is the
     * same whichever way threads split it (rows with several row blocks each, panels with A shared,
     * K blocks outermost), staged or stored; one thread packs each panel once per K block however
     * many of its row blocks read it.
     */
    @ParameterizedTest(name = "{0}x{1}x{2} threads={3} staged={4}")
    @CsvSource({"1024,256,196,2,true", "1024,256,196,1,false", "256,64,3136,2,true", "256,64,3136,2,false",
        "1030,1100,70,2,true", "6,3000,40,2,false", "300,3000,70,2,false", "100,3000,70,2,true", "7,5,9,1,true",
        "300,3000,70,1,true", "1030,1100,70,1,false"})
    void prepackedRowsMatchPackingPerCall(int m, int k, int n, int threads, boolean staged) {
        try (Arena arena = Arena.ofShared()) {
            Operands o = new Operands(arena, m, k, n, new SplittableRandom(m * 11L + k * 5L + n));
            PackedA a = PackedA.pack(new StridedRows(o.a, 0, k, 1, m, k), new float[(int) PackedA.packedLength(m, k)]);
            CountingPanels b = new CountingPanels(o.bv, k, n);
            float[] staged2 = new float[m * n];
            int[] visits = new int[m * n];
            if (staged) {
                Sgemm.multiply(a, b, (src, srcOff, row, col, cols) -> {
                    for (int j = 0; j < cols; j++) {
                        staged2[row * n + col + j] = src[srcOff + j];
                        visits[row * n + col + j]++;
                    }
                }, threads == 1 ? null : POOL);
                for (int i = 0; i < m * n; i++) {
                    assertEquals(1, visits[i], "visits of C(" + i / n + "," + i % n + ")");
                    o.c.set(F, 4L * i, staged2[i]);
                }
            } else {
                Sgemm.multiply(a, b, o.c, 0, n, Sgemm.Epilogue.NONE, threads == 1 ? null : POOL);
            }
            assertProduct(o.av, o.bv, o.c, m, k, n, "prepacked A");
            if (threads == 1) {
                // (with two, a thread that takes over part of the other's rows packs their panels again)
                int kBlocks = Sgemm.kBlocks(k);
                long packs = b.packs.get();
                assertTrue(packs <= (long) b.panels() * kBlocks, packs
                        + " panel packings, expected at most one per panel and K block (" + b.panels() * kBlocks + ")");
            }
        }
    }
}
