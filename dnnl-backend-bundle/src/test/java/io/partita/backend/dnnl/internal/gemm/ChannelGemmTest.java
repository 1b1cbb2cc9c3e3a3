package io.partita.backend.dnnl.internal.gemm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.runtime.threads.WorkerTeam;

/**
 * The channel GEMM against a plain triple loop in double, through its epilogue (row bias, residual,
 * ReLU), around its chunk, tile and thread-split edges.
 */
class ChannelGemmTest {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT;
    private static final WorkerTeam POOL = new WorkerTeam(2, "channel-gemm-test");

    @AfterAll
    static void close() {
        POOL.close();
    }

    @ParameterizedTest(name = "{0}x{1}x{2} threads={3} bias={4} residual={5} relu={6}")
    @CsvSource({
        // a 1x1 convolution 64 -> 256 at 56x56: 196 panels, 64 per chunk
        "256,64,3136,2,true,true,true", "256,64,3136,1,true,false,false",
        // 256 -> 1024 at 14x14 (a partial last panel of 4 pixels), 16 panels per chunk
        "1024,256,196,2,true,true,true",
        // K at the limit: chunks of four panels; rows not a multiple of four
        "7,1024,70,1,true,true,true", "7,1024,70,2,false,false,true", "13,1024,300,2,true,false,false",
        // K of one and odd sizes
        "5,1,33,2,true,true,false", "3,17,15,1,false,true,true", "1,9,16,2,true,false,true",
        // a 3x3 convolution's K (64 x 9) at 56x56
        "64,576,3136,2,true,true,true"
    })
    void matchesTheNaiveProductThroughTheEpilogue(int m, int k, int n, int threads, boolean withBias,
            boolean withResidual, boolean relu) {
        assumeFourRowKernel();
        SplittableRandom r = new SplittableRandom(m * 31L + k * 7L + n);
        float[] av = random(m * k, r);
        float[] bv = random(k * n, r);
        float[] bias = withBias ? random(m + 3, r) : null;
        float[] res = withResidual ? random(m * n, r) : null;
        PackedA a = packed(av, m, k);
        // C and the residual inside larger segments, at offsets: the epilogue must use each one's own
        MemorySegment c = MemorySegment.ofArray(new float[m * n + 40]);
        MemorySegment resSeg = res == null ? null : MemorySegment.ofArray(new float[m * n + 24]);
        for (int i = 0; res != null && i < res.length; i++) {
            resSeg.set(F, 4L * (24 + i), res[i]);
        }
        CountingPanels b = new CountingPanels(bv, k, n);
        ChannelGemm.multiply(a, b, c, 4L * 40, n,
                new ChannelGemm.RowEpilogue(bias, 3, resSeg, 4L * 24, relu), threads == 1 ? null : POOL);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int kk = 0; kk < k; kk++) {
                    s += (double) av[i * k + kk] * bv[kk * n + j];
                }
                s += bias == null ? 0 : bias[3 + i];
                s += res == null ? 0 : res[i * n + j];
                if (relu) {
                    s = Math.max(0, s);
                }
                assertEquals(s, c.get(F, 4L * (40 + i * n + j)), 1e-4 * (1 + Math.abs(s)) + 1e-5 * k,
                        "C(" + i + "," + j + ")");
            }
        }
        for (int i = 0; i < 40; i++) {
            assertEquals(0f, c.get(F, 4L * i), "C's segment before its start was written at " + i);
        }
        if (threads == 1) {
            assertEquals(b.panels(), b.packs.get(), "panel packings with one thread: each panel once");
        }
    }

    /** The residual may be the output itself (a sum post-op computed in place). */
    @Test
    void addsAResidualThatIsTheOutputItself() {
        assumeFourRowKernel();
        int m = 12;
        int k = 40;
        int n = 100;
        SplittableRandom r = new SplittableRandom(5);
        float[] av = random(m * k, r);
        float[] bv = random(k * n, r);
        float[] before = random(m * n, r);
        MemorySegment c = MemorySegment.ofArray(before.clone());
        PackedA a = packed(av, m, k);
        ChannelGemm.multiply(a, new CountingPanels(bv, k, n), c, 0, n,
                new ChannelGemm.RowEpilogue(null, 0, c, 0, false), POOL);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = before[i * n + j];
                for (int kk = 0; kk < k; kk++) {
                    s += (double) av[i * k + kk] * bv[kk * n + j];
                }
                assertEquals(s, c.get(F, 4L * (i * n + j)), 1e-4 * (1 + Math.abs(s)), "C(" + i + "," + j + ")");
            }
        }
    }

    /**
     * Callers on several threads share one packed A and the worker team: each result is its own
     * product (per-thread chunks and tiles must not leak between calls).
     */
    @Test
    void concurrentCallersEachGetTheirOwnProduct() throws Exception {
        assumeFourRowKernel();
        int m = 20;
        int k = 96;
        int n = 260;
        SplittableRandom r = new SplittableRandom(9);
        float[] av = random(m * k, r);
        PackedA a = packed(av, m, k);
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                float[] bv = random(k * n, new SplittableRandom(100 + t));
                done.add(callers.submit(() -> {
                    for (int it = 0; it < 30; it++) {
                        MemorySegment c = MemorySegment.ofArray(new float[m * n]);
                        ChannelGemm.multiply(a, new CountingPanels(bv, k, n), c, 0, n, ChannelGemm.RowEpilogue.NONE,
                                POOL);
                        for (int i = 0; i < m; i += 7) {
                            for (int j = 0; j < n; j += 13) {
                                double s = 0;
                                for (int kk = 0; kk < k; kk++) {
                                    s += (double) av[i * k + kk] * bv[kk * n + j];
                                }
                                assertEquals(s, c.get(F, 4L * (i * n + j)), 1e-4 * (1 + Math.abs(s)),
                                        "iteration " + it + ": C(" + i + "," + j + ")");
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void refusesAKDeeperThanOnePass() {
        assumeFourRowKernel();
        assertTrue(ChannelGemm.applies(Sgemm.KC));
        assertFalse(ChannelGemm.applies(Sgemm.KC + 1));
        int k = Sgemm.KC + 1;
        PackedA a = packed(new float[4 * k], 4, k);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ChannelGemm.multiply(a, new CountingPanels(new float[k * 16], k, 16),
                        MemorySegment.ofArray(new float[64]), 0, 16, ChannelGemm.RowEpilogue.NONE, null));
        assertTrue(e.getMessage().contains("K <= " + Sgemm.KC) && e.getMessage().contains("4x" + k), e.getMessage());
    }

    @Test
    void refusesAAndBOfDifferentK() {
        assumeFourRowKernel();
        PackedA a = packed(new float[4 * 8], 4, 8);
        MemorySegment c = MemorySegment.ofArray(new float[64]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ChannelGemm.multiply(a, new CountingPanels(new float[9 * 16], 9, 16), c, 0, 16,
                        ChannelGemm.RowEpilogue.NONE, null));
        assertTrue(e.getMessage().contains("A 4x8, B 9x16"), e.getMessage());
        for (int i = 0; i < 64; i++) {
            assertEquals(0f, c.get(F, 4L * i), "C written before the refusal at " + i);
        }
    }

    /** Below 512 bits, where the convolutions use it (the wider kernels' rows are not four). */
    private static void assumeFourRowKernel() {
        assumeTrue(Sgemm.MR == 4, "the channel GEMM runs with the four-row kernel only");
    }

    private static float[] random(int count, SplittableRandom r) {
        float[] v = new float[count];
        for (int i = 0; i < count; i++) {
            v[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return v;
    }

    /** A[m, k], row-major in {@code av}, packed as the convolution packs its weights. */
    private static PackedA packed(float[] av, int m, int k) {
        return PackedA.pack(new StridedRows(MemorySegment.ofArray(av), 0, k, 1, m, k),
                new float[(int) PackedA.packedLength(m, k)]);
    }
}
