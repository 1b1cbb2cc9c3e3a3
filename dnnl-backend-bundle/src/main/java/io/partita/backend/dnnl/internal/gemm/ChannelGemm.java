package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.partita.spi.CpuTeam;

/**
 * C[M, N] = packed weights A[M, K] x B[K, N] for a channels-first convolution (M output channels,
 * N pixels, K at most {@link Sgemm#KC}), with the epilogue a CNN block has — a bias per row, a
 * residual laid out as C, ReLU — applied in registers as each tile is stored.
 *
 * <p>The loop order is the transpose of {@link Sgemm}'s: each thread packs a chunk of its B panels
 * that stays in L2 (at most {@link #B_CHUNK} floats), then streams every row group of A past it,
 * panel by panel. A row group's tiles thus go to C as consecutive 64-byte pieces of four rows, one
 * K pass each, finished where they are stored. {@link Sgemm} instead sweeps all rows past one panel
 * and so must stage the block (a tile stored straight to C scatters 64 bytes over as many rows as
 * the block has) and then post-process it in a second pass: with 64-deep K that second pass and
 * the staging stores were a third of a 1x1 convolution 64 -> 256 at 56x56.
 *
 * <p>Only with the four-row kernel ({@link MicroKernels#MR} 4, below 512 bits): A's row group
 * (4 x K floats) stays in L1 across a chunk, and with at least {@link #MIN_CHUNK_PANELS} panels per
 * chunk, re-reading A per chunk costs about a byte per cycle.
 */
public final class ChannelGemm {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    /** Floats of packed B a thread keeps per chunk: 256 KB, half of a 512 KB L2. */
    static final int B_CHUNK = 64 * 1024;
    /** Fewest panels per chunk for which A's row groups are worth re-reading per chunk. */
    static final int MIN_CHUNK_PANELS = 4;

    private ChannelGemm() {
    }

    /**
     * What happens to a finished value of row i (output channel), in order: plus {@code bias[biasOff + i]}
     * (null: none), plus the residual's element (i, j) at byte {@code resOff + 4 * (i * ldc + j)} (null:
     * none), then ReLU (NaN to 0, as the reference).
     */
    public record RowEpilogue(float[] bias, int biasOff, MemorySegment residual, long resOff, boolean relu) {
        public static final RowEpilogue NONE = new RowEpilogue(null, 0, null, 0, false);
    }

    /** Whether {@link #multiply} takes a K this deep with this kernel family. */
    public static boolean applies(int k) {
        return MicroKernels.MR == 4 && k <= Sgemm.KC && chunkPanels(k) >= MIN_CHUNK_PANELS;
    }

    static int chunkPanels(int k) {
        return B_CHUNK / (Math.max(1, k) * Sgemm.NR);
    }

    /**
     * C = A x B with the epilogue: C's element (i, j) at byte {@code cOff + 4 * (i * ldc + j)}.
     * Threads take ranges of panels (pixels) and read A in place.
     */
    public static void multiply(PackedA a, PanelSource.Packing b, MemorySegment c, long cOff, long ldc, RowEpilogue e,
            CpuTeam pool) {
        int k = b.k();
        if (!applies(k) || a.k() != k) {
            throw new IllegalArgumentException("ChannelGemm takes K <= " + Sgemm.KC + " with the four-row kernel and "
                    + "A's K equal to B's; got A " + a.m() + "x" + a.k() + ", B " + k + "x" + b.n());
        }
        int panels = b.panels();
        if (a.m() == 0 || panels == 0) {
            return;
        }
        int chunk = chunkPanels(k);
        int m = a.m();
        int groups = Math.ceilDiv(m, Sgemm.MR);
        int threads = pool == null ? 1 : pool.threads();
        if (threads == 1) {
            run(a, b, c, cOff, ldc, e, 0, m, 0, panels, chunk);
        } else if (m > b.n() && panels <= chunk) {
            // more rows than columns and B one chunk: each thread packs all of B and reads only its rows
            // of A (split by panels, 256 -> 1024 at 14x14 ran 10% slower: both threads streamed all of A;
            // with B in several chunks, 1024 -> 256 at 14x14 ran 15% slower split by rows)
            pool.parallelFor(groups, Math.ceilDiv(groups, 2 * threads),
                    (g0, g1) -> run(a, b, c, cOff, ldc, e, g0 * Sgemm.MR, Math.min(m, g1 * Sgemm.MR), 0, panels,
                            chunk));
        } else {
            // Claimed MIN_CHUNK_PANELS at a time: each claim re-reads all of A, about a byte per 16
            // multiply-adds, while a finer claim lets a thread whose core the host took away be
            // relieved (claimed a chunk at a time, ResNet-50 ran bimodally on a noisy 2-vCPU VM)
            pool.parallelFor(panels, Math.min(MIN_CHUNK_PANELS, chunk),
                    (p0, p1) -> run(a, b, c, cOff, ldc, e, 0, m, p0, p1, chunk));
        }
    }

    /** Rows [i0, i1) (i0 a multiple of MR) x panels [p0, p1), B chunk by chunk. */
    private static void run(PackedA a, PanelSource.Packing b, MemorySegment c, long cOff, long ldc, RowEpilogue e, int i0,
            int i1, int p0, int p1, int chunk) {
        int k = b.k();
        int n = b.n();
        float[] ap = a.data();
        float[] bias = e.bias();
        MemorySegment res = e.residual();
        long ldcBytes = 4L * ldc;
        Scratch s = SCRATCH.get();
        for (int q0 = p0; q0 < p1; q0 += chunk) {
            int q1 = Math.min(p1, q0 + chunk);
            float[] bp = s.chunk((q1 - q0) * k * Sgemm.NR);
            for (int p = q0; p < q1; p++) {
                b.pack(p, 0, k, bp, (p - q0) * k * Sgemm.NR);
            }
            for (int r0 = i0; r0 < i1; r0 += Sgemm.MR) {
                int mr = Math.min(Sgemm.MR, i1 - r0);
                int aOff = r0 * k;
                for (int p = q0; p < q1; p++) {
                    int j0 = p * Sgemm.NR;
                    int cols = Math.min(Sgemm.NR, n - j0);
                    long tile = 4L * ((long) r0 * ldc + j0);
                    int bOff = (p - q0) * k * Sgemm.NR;
                    if (mr == Sgemm.MR && cols == Sgemm.NR) {
                        MicroKernels.loop4Direct(ap, aOff, bp, bOff, k, c, cOff + tile, ldcBytes, null, 0, bias,
                                e.biasOff() + r0, res, e.resOff() + tile, e.relu());
                    } else {
                        partial(ap, aOff, bp, bOff, k, c, cOff, tile, ldcBytes, e, r0, mr, cols, s.tile);
                    }
                }
            }
        }
    }

    /**
     * A tile of fewer rows or columns (at byte {@code tile} from C's and the residual's starts):
     * computed into {@code values}, then its mr x cols of them through the epilogue.
     */
    private static void partial(float[] ap, int aOff, float[] bp, int bOff, int k, MemorySegment c, long cOff,
            long tile, long ldcBytes, RowEpilogue e, int r0, int mr, int cols, TileBuffer t) {
        MicroKernels.loop4(ap, aOff, bp, bOff, k, t.values, 0, Sgemm.NR, false);
        float[] values = t.values;
        for (int r = 0; r < mr; r++) {
            float add = e.bias() == null ? 0f : e.bias()[e.biasOff() + r0 + r];
            long row = tile + r * ldcBytes;
            for (int j = 0; j < cols; j++) {
                float v = values[r * Sgemm.NR + j] + add;
                if (e.residual() != null) {
                    v += e.residual().get(F, e.resOff() + row + 4L * j);
                }
                if (e.relu() && !(v > 0f)) {
                    v = 0f;
                }
                c.set(F, cOff + row + 4L * j, v);
            }
        }
    }

    /** Per-thread buffers: the chunk of packed panels, a partial tile. */
    private static final class Scratch {
        float[] chunk = new float[0];
        final TileBuffer tile = new TileBuffer();

        float[] chunk(int need) {
            if (chunk.length < need) {
                chunk = new float[need];
            }
            return chunk;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
}
