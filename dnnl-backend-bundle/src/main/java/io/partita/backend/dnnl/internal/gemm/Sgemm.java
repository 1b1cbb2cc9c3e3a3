package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

import io.partita.spi.CpuTeam;

/**
 * C[M, N] = A[M, K] x B[K, N] in single precision, with an epilogue applied to finished output
 * while it is still in cache (bias, activations, binary post-ops).
 *
 * <p>Blocking (figures for 512-bit vectors; {@link MicroKernels} gives the narrower ones): B is
 * packed in panels of {@link #NR} = 32 columns; A is packed per block of rows
 * (all of K, at most ~1 MiB, so it stays in L2) into groups of {@link #MR} = 14 rows interleaved
 * by k (or once for every call: {@link PackedA}, constant weights). Each panel then runs through
 * K in blocks of at most {@link #KC} = 1024 against every row group of the block: the panel's K
 * block (128 KiB) stays in L2 and streams through the kernel (128 B per 28 FMAs, well within L2
 * bandwidth), and the output tile is read and written once per K block while it is still in L1/L2
 * (with 256-deep blocks so that B stayed in L1, the extra output tile flushes cost more than they
 * saved). Threads take either a contiguous range of row
 * groups (many rows: each packs only its rows) or of column panels (few rows: each thread packs
 * all of A for itself, so no thread waits for another's packing).
 */
public final class Sgemm {
    public static final int NR = MicroKernels.NR;
    public static final int MR = MicroKernels.MR;
    public static final int KC = 1024;
    static final int MC_MAX = 40 * MR;
    /** Bytes of packed A per row block: half the 2 MiB L2, the rest is for B panels and output tiles. */
    private static final long A_BUDGET = 1L << 20;
    /** Panels whose output the epilogue processes at once: enough columns to amortise its per-call cost. */
    private static final int EPILOGUE_PANELS = 8;
    /**
     * Row groups per thread from which threads split rows rather than panels: below it the panels
     * divide more evenly, and each thread would otherwise stream all of B for few rows. In a network
     * B (the weights) comes from memory, evicted by the other layers: with weights cold, BERT's
     * 128-row products ran 5-10% faster split by panels (128x768x768 0.88-0.89 against 0.97-0.99 ms,
     * 128x768x3072 3.42-3.55 against 3.67-3.74, two threads, AVX2) though 3-8% slower with them hot,
     * and the BERT layer's median fell in five of five alternating runs (13.2-14.4 against 14.1-15.8 ms).
     */
    private static final int ROW_SPLIT_GROUPS = 32;
    /** Floats of on-the-fly B panels a thread keeps for its later row blocks (8 MB). */
    private static final long KEPT_B_MAX = 2L << 20;

    private Sgemm() {
    }

    /** Post-processing of finished output rows: {@code cols} values of row {@code row} from column {@code col}. */
    @FunctionalInterface
    public interface Epilogue {
        Epilogue NONE = null;

        void apply(MemorySegment c, long rowOffset, int row, int col, int cols);
    }

    /**
     * Takes finished output from a staging block instead of C: {@code cols} values of row {@code row}
     * from column {@code col}, at {@code src[srcOff..]}; it writes them (post-processed) to C itself.
     */
    @FunctionalInterface
    public interface Stage {
        void store(float[] src, int srcOff, int row, int col, int cols);
    }

    /**
     * Computes C = A x B (+ epilogue) with A in strided memory: element (i, kk) at byte
     * {@code aOff + 4 * (i * aRowStride + kk * aColStride)}; C's element (i, j) at byte
     * {@code cOff + 4 * (i * ldc + j)}.
     */
    public static void multiply(MemorySegment a, long aOff, long aRowStride, long aColStride, int m, PanelSource b,
            MemorySegment c, long cOff, long ldc, Epilogue epilogue, CpuTeam pool) {
        multiply(a, aOff, aRowStride, aColStride, m, b, c, cOff, ldc, null, false, epilogue, pool);
    }

    /**
     * As above, with C = A x B + bias, then ReLU if {@code relu}, before the epilogue: bias has one
     * value per column (at least {@code b.panels() * NR} floats; null for none), added as each tile
     * is first stored; ReLU applies as each tile is last stored (its final K block).
     */
    public static void multiply(MemorySegment a, long aOff, long aRowStride, long aColStride, int m, PanelSource b,
            MemorySegment c, long cOff, long ldc, float[] bias, boolean relu, Epilogue epilogue, CpuTeam pool) {
        multiply(new StridedRows(a, aOff, aRowStride, aColStride, m, b.k()), b, c, cOff, ldc, bias, relu, epilogue,
                pool);
    }

    /** Computes C = A x B (+ epilogue) for any row and panel sources. */
    public static void multiply(RowSource a, PanelSource b, MemorySegment c, long cOff, long ldc, Epilogue epilogue,
            CpuTeam pool) {
        multiply(a, b, c, cOff, ldc, null, false, epilogue, pool);
    }

    /**
     * Computes A x B for any row and panel sources without writing C: the kernels store each block
     * of rows x {@value #EPILOGUE_PANELS} panels into a per-thread staging block (in L2), which
     * {@code stage} then writes out row by row. Where C's rows are far apart (a convolution's
     * channels), tiles stored straight to C scattered 64-byte writes over as many rows as the block
     * has; staged, each row is written as one run.
     */
    public static void multiply(RowSource a, PanelSource b, Stage stage, CpuTeam pool) {
        multiply(a, b, null, 0, 0, null, false, null, stage, pool);
    }

    /** Computes C = A x B + bias per column, ReLU if asked (+ epilogue), for any row and panel sources. */
    public static void multiply(RowSource a, PanelSource b, MemorySegment c, long cOff, long ldc, float[] bias,
            boolean relu, Epilogue epilogue, CpuTeam pool) {
        multiply(a, b, c, cOff, ldc, bias, relu, epilogue, null, pool);
    }

    private static void multiply(RowSource a, PanelSource b, MemorySegment c, long cOff, long ldc, float[] bias,
            boolean relu, Epilogue epilogue, Stage stage, CpuTeam pool) {
        int m = a.m();
        if (m == 0 || b.n() == 0) {
            return;
        }
        if (m == 1 && stage == null && a instanceof StridedRows row) {
            Gemv.multiply(row, b, c, cOff, bias, relu, epilogue, pool); // memory-bound: its own kernel
            return;
        }
        int panels = b.panels();
        int groups = (m + MR - 1) / MR;
        int threads = pool == null ? 1 : pool.threads();
        Job job = new Job(JOBS.incrementAndGet(), a, m, b, c, cOff, ldc, bias, relu, epilogue, stage);
        if (threads == 1) {
            job.run(0, m, 0, panels, null);
        } else if (!sharedA(a, b, threads)
                && (groups >= threads * ROW_SPLIT_GROUPS || panels < threads || m > MC_MAX)) {
            // A share per call: each call streams all of B once, so it is split only when taken over.
            pool.parallelFor(groups, Math.ceilDiv(groups, threads),
                    (g0, g1) -> job.run(g0 * MR, Math.min(m, g1 * MR), 0, panels, null));
        } else {
            // Each thread packs all of A into its own scratch, once per call, then takes panels. Packed
            // together into one shared array, each call's stores met the lines the other core had
            // read in the previous call: packing took 4x as long as alone, plus a barrier.
            pool.parallelFor(panels, (p0, p1) -> job.run(0, m, p0, p1, job.ownPackedA()));
        }
    }

    /**
     * A packed once and small enough to stay in L2 beside B, with B packed on the fly: threads take
     * panels, each packing only its own, and all read the same A. Split by rows, each thread packed
     * all of B: a 1x1 convolution 256 -> 128 at 56x56 took 1.52 ms against 1.39 ms, two threads.
     */
    private static boolean sharedA(RowSource a, PanelSource b, int threads) {
        return a instanceof PackedA && !(b instanceof PackedB) && 4L * a.m() * a.k() <= A_BUDGET / 2
                && b.panels() >= 4 * threads;
    }

    static int kBlocks(int k) {
        return Math.max(1, (k + KC - 1) / KC);
    }

    /** Rows per block whose packed A, all of K, fits the L2 budget (whole groups, at least one). */
    private static int rowLimit(int k) {
        long rows = A_BUDGET / (4L * Math.max(1, k)) / MR * MR;
        return (int) Math.max(MR, Math.min(MC_MAX, rows));
    }

    /** Where K block kb starts: blocks of even size, so no block is a sliver. */
    static int kStart(int k, int kBlocks, int kb) {
        return (int) ((long) k * kb / kBlocks);
    }

    /** One multiplication's operands, shared by the threads working on it. */
    private record Job(long id, RowSource a, int m, PanelSource b, MemorySegment c, long cOff, long ldc, float[] bias,
            boolean relu, Epilogue epilogue, Stage stage) {

        /** All of A packed as one row block in the calling thread's scratch: packed by its first call in this job. */
        float[] ownPackedA() {
            if (a instanceof PackedA pa) {
                return pa.data();
            }
            Scratch s = SCRATCH.get();
            if (s.packedJob == id) {
                return s.a;
            }
            int k = b.k();
            int padded = (m + MR - 1) / MR * MR;
            float[] ap = s.a(padded * k);
            int kBlocks = kBlocks(k);
            for (int kb = 0; kb < kBlocks; kb++) {
                int k0 = kStart(k, kBlocks, kb);
                a.pack(0, m, k0, kStart(k, kBlocks, kb + 1) - k0, ap, padded * k0);
            }
            s.packedJob = id;
            return ap;
        }

        /**
         * Rows [i0, i1) x panels [p0, p1), row block by row block. A row block is packed for all of K
         * (K block by K block) and then each panel runs through every K block before the next: the
         * output tile column stays in L1/L2 while it accumulates, instead of being fetched back from
         * L3 once per K block. {@code packed} is all of A already packed that way (one row block), or null.
         */
        void run(int i0, int i1, int p0, int p1, float[] packed) {
            Scratch s = SCRATCH.get();
            int k = b.k();
            int kBlocks = kBlocks(k);
            int limit = packed != null ? i1 - i0 : rowLimit(k);
            int rowBlocks = (i1 - i0 + limit - 1) / limit;
            // Even blocks (whole groups): a remainder block of a few rows would waste a pass over B.
            int mc = ((i1 - i0 + rowBlocks - 1) / rowBlocks + MR - 1) / MR * MR;
            // Panels packed on the fly are kept for the thread's later row blocks: packing them again
            // per block was a tenth of a 1x1 convolution (1024 x 256 x 196, four blocks per thread).
            boolean keepB = mc < i1 - i0 && !(b instanceof PackedB) && (long) (p1 - p0) * k * NR <= KEPT_B_MAX;
            float[] kept = keepB ? s.kept((p1 - p0) * k * NR) : null;
            PackedA pre = a instanceof PackedA pa ? pa : null;
            for (int r0 = i0; r0 < i1; r0 += mc) {
                int rows = Math.min(mc, i1 - r0);
                int padded = (rows + MR - 1) / MR * MR;
                float[] ap = packed;
                if (pre != null) {
                    ap = pre.data();
                } else if (ap == null) {
                    ap = s.a(padded * k);
                    for (int kb = 0; kb < kBlocks; kb++) {
                        int k0 = kStart(k, kBlocks, kb);
                        a.pack(r0, rows, k0, kStart(k, kBlocks, kb + 1) - k0, ap, padded * k0);
                    }
                }
                // A thread's own copy of all rows can outgrow the L2 budget (deep K): then K blocks go
                // outermost, so each block of A stays in L2 across the panels, and the output tiles
                // are revisited once per block instead (128x3072x768: A was re-read from L3 per panel).
                // (Not when staging: the staging block holds one group of panels through all of K.)
                boolean kOuter = stage == null && packed != null && kBlocks > 1 && 4L * padded * k > A_BUDGET;
                // prepacked A: the block's rows sit among all of M's in each K block
                int aRows = pre != null ? 0 : padded;
                for (int ko = 0; ko < (kOuter ? kBlocks : 1); ko++) {
                    int kb0 = kOuter ? ko : 0;
                    int kb1 = kOuter ? ko + 1 : kBlocks;
                    for (int q0 = p0; q0 < p1; q0 += EPILOGUE_PANELS) {
                        int q1 = Math.min(p1, q0 + EPILOGUE_PANELS);
                        for (int p = q0; p < q1; p++) {
                            for (int kb = kb0; kb < kb1; kb++) {
                                int k0 = kStart(k, kBlocks, kb);
                                int kc = kStart(k, kBlocks, kb + 1) - k0;
                                int apOff = pre != null ? pre.offset(r0, k0, kc) : aRows * k0;
                                float[] bp;
                                int bOff;
                                int keptAt = ((p - p0) * k + k0) * NR;
                                if (keepB && r0 > i0) {
                                    bp = kept;
                                    bOff = keptAt;
                                } else {
                                    bp = b.panel(p, k0, kc, s.b(kc));
                                    bOff = b.offset(p, k0);
                                    if (keepB) {
                                        System.arraycopy(bp, bOff, kept, keptAt, kc * NR);
                                    }
                                }
                                sweep(ap, apOff, bp, bOff, r0, rows, p, p - q0, k0, kc, s);
                            }
                        }
                        if (stage != null) {
                            int j0 = q0 * NR;
                            int cols = Math.min(q1 * NR, b.n()) - j0;
                            for (int r = 0; r < rows; r++) {
                                stage.store(s.staged, r * STAGE_WIDTH, r0 + r, j0, cols);
                            }
                        } else if (epilogue != null && kb1 == kBlocks) {
                            int j0 = q0 * NR;
                            int cols = Math.min(q1 * NR, b.n()) - j0;
                            for (int r = r0; r < r0 + rows; r++) {
                                epilogue.apply(c, cOff + 4L * r * ldc, r, j0, cols);
                            }
                        }
                    }
                }
            }
        }

        /**
         * Rows [r0, r0 + rows) (packed in ap from apOff) against panel p's K block [k0, k0 + kc) (packed
         * in bp from bOff), into C or, when staging, into column panel {@code sp} of the staging block.
         */
        private void sweep(float[] ap, int apOff, float[] bp, int bOff, int r0, int rows, int p, int sp, int k0, int kc,
                Scratch s) {
            int j0 = p * NR;
            // The staging block has room for whole tiles, so a partial one is computed whole there and
            // the stage takes only its valid part: the partial path (tile array, masked flush) cost more
            // than the idle lanes (1024x256x196 took longer than 1024x256x208, one thread, AVX2). Rows
            // too below 512 bits, where a short last group runs the same four-row kernel anyway.
            int cols = Math.min(NR, b.n() - j0);
            boolean accumulate = k0 > 0;
            boolean last = relu && k0 + kc == b.k();
            if (stage != null) {
                float[] staged = s.staging((rows + MR - 1) / MR * MR);
                for (int g = 0; g * MR < rows; g++) {
                    int mr = MR == 4 ? MR : Math.min(MR, rows - g * MR);
                    MicroKernels.runStaged(ap, apOff + g * kc * MR, bp, bOff, kc, staged,
                            g * MR * STAGE_WIDTH + sp * NR, STAGE_WIDTH, accumulate, mr, s.tile);
                }
                return;
            }
            for (int g = 0; g * MR < rows; g++) {
                int gr = r0 + g * MR;
                int mr = Math.min(MR, r0 + rows - gr);
                long cTile = cOff + 4L * ((long) gr * ldc + j0);
                MicroKernels.run(ap, apOff + g * kc * MR, bp, bOff, kc, c, cTile, 4L * ldc, accumulate, mr, cols, s.tile,
                        bias, j0, last);
            }
        }
    }

    /** Floats per row of a staging block: the panels an epilogue or stage takes at once. */
    private static final int STAGE_WIDTH = EPILOGUE_PANELS * NR;

    /** Per-thread buffers: packed A, a B panel packed on the fly, the output tile, the staging block. */
    private static final class Scratch {
        float[] staged = new float[0];

        float[] a = new float[MC_MAX * 64];
        /** The call whose A {@link #a} holds, packed whole ({@link Job#ownPackedA}); 0: none. */
        long packedJob;
        float[] b = new float[NR * KC];
        final TileBuffer tile = new TileBuffer();

        float[] a(int need) {
            if (a.length < need) {
                a = new float[need];
            }
            packedJob = 0; // whoever asks for the array is about to overwrite it
            return a;
        }

        /** The staging block for {@code rows} rows. */
        float[] staging(int rows) {
            if (staged.length < rows * STAGE_WIDTH) {
                staged = new float[rows * STAGE_WIDTH];
            }
            return staged;
        }

        float[] kept = new float[0];

        float[] kept(int need) {
            if (kept.length < need) {
                kept = new float[need];
            }
            return kept;
        }

        float[] b(int kc) {
            if (b.length < kc * NR) {
                b = new float[kc * NR];
            }
            return b;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
    /** Identifies a call, so a thread packs A once per call however many panel ranges it takes. */
    private static final AtomicLong JOBS = new AtomicLong();
}
