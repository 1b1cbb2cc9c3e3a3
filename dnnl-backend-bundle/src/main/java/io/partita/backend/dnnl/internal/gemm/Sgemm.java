package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import io.partita.backend.dnnl.internal.exec.WorkerPool;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * C[M, N] = A[M, K] x B[K, N] in single precision, with an epilogue applied to each finished
 * tile while it is still in cache (bias, activations, binary post-ops).
 *
 * <p>Blocking: B is packed in panels of {@link #NR} = 64 columns; A is packed per block of
 * {@link #MC} rows into groups of {@link #MR} = 6 rows interleaved by k, so the micro-kernel reads
 * six broadcast values and four 16-float vectors per k and keeps 24 accumulators in registers.
 * K is split into blocks of at most {@link #KC}, so a B panel (KC x 64 floats) and an A block stay
 * in the core's L2 while the kernel sweeps them. Threads take contiguous ranges of column panels
 * (or of row blocks when there are too few panels).
 */
public final class Sgemm {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_512;
    public static final int NR = 64;
    public static final int MR = 6;
    static final int MC = 96;
    static final int KC = 2048;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    private Sgemm() {
    }

    /** Post-processing of finished output rows: {@code cols} values of row {@code row} from column {@code col}. */
    @FunctionalInterface
    public interface Epilogue {
        Epilogue NONE = null;

        void apply(MemorySegment c, long rowOffset, int row, int col, int cols);
    }

    /**
     * Computes C = A x B (+ epilogue) with A in strided memory: element (i, kk) at byte
     * {@code aOff + 4 * (i * aRowStride + kk * aColStride)}; C's element (i, j) at byte
     * {@code cOff + 4 * (i * ldc + j)}.
     */
    public static void multiply(MemorySegment a, long aOff, long aRowStride, long aColStride, int m, PanelSource b,
            MemorySegment c, long cOff, long ldc, Epilogue epilogue, WorkerPool pool) {
        multiply(new StridedRows(a, aOff, aRowStride, aColStride, m, b.k()), b, c, cOff, ldc, epilogue, pool);
    }

    /** Computes C = A x B (+ epilogue) for any row and panel sources. */
    public static void multiply(RowSource a, PanelSource b, MemorySegment c, long cOff, long ldc, Epilogue epilogue,
            WorkerPool pool) {
        int m = a.m();
        int panels = b.panels();
        int rowBlocks = (m + MC - 1) / MC;
        int threads = pool == null ? 1 : pool.threads();
        Job job = new Job(a, m, b, c, cOff, ldc, epilogue);
        if (b instanceof PackedB && (rowBlocks >= 4 * threads || panels < threads)) {
            // Many rows over pre-packed panels: each thread packs only its rows and sweeps every panel.
            run(pool, rowBlocks, (r0, r1) -> job.rows(r0 * MC, Math.min(m, r1 * MC)));
        } else {
            // Few rows, or panels packed on the fly: split the panels; A is packed once per thread.
            run(pool, panels, job::panels);
        }
    }

    private static void run(WorkerPool pool, int tasks, WorkerPool.RangeBody body) {
        if (pool == null) {
            body.run(0, tasks);
        } else {
            pool.parallelFor(tasks, body);
        }
    }

    /** One multiplication's operands, shared by the threads working on it. */
    private record Job(RowSource a, int m, PanelSource b, MemorySegment c, long cOff, long ldc, Epilogue epilogue) {

        /** Rows [i0, i1) against every panel, row block by row block (B must be pre-packed). */
        void rows(int i0, int i1) {
            Scratch s = SCRATCH.get();
            int k = b.k();
            for (int r0 = i0; r0 < i1; r0 += MC) {
                int rows = Math.min(MC, i1 - r0);
                for (int k0 = 0; k0 < k; k0 += KC) {
                    int kc = Math.min(KC, k - k0);
                    float[] ap = s.a(rows, kc);
                    a.pack(r0, rows, k0, kc, ap, 0);
                    for (int p = 0; p < b.panels(); p++) {
                        sweep(ap, r0, rows, p, k0, kc, s);
                    }
                }
            }
        }

        /** Panels [p0, p1) against every row; A is packed once per K block. */
        void panels(int p0, int p1) {
            Scratch s = SCRATCH.get();
            int k = b.k();
            for (int k0 = 0; k0 < k; k0 += KC) {
                int kc = Math.min(KC, k - k0);
                float[] ap = s.a(m, kc);
                a.pack(0, m, k0, kc, ap, 0);
                for (int p = p0; p < p1; p++) {
                    sweep(ap, 0, m, p, k0, kc, s);
                }
            }
        }

        /** Rows [r0, r0 + rows) (packed in ap from group 0) against panel p's K block [k0, k0 + kc). */
        private void sweep(float[] ap, int r0, int rows, int p, int k0, int kc, Scratch s) {
            int j0 = p * NR;
            int cols = Math.min(NR, b.n() - j0);
            float[] bp = b.panel(p, k0, kc, s.b(kc));
            int bOff = b.offset(p, k0);
            boolean accumulate = k0 > 0;
            boolean last = k0 + kc == b.k();
            for (int g = 0; g * MR < rows; g++) {
                int gr = r0 + g * MR;
                int mr = Math.min(MR, r0 + rows - gr);
                long cTile = cOff + 4L * ((long) gr * ldc + j0);
                kernel(ap, g * kc * MR, bp, bOff, kc, c, cTile, 4L * ldc, accumulate, mr, cols, s.tile);
                if (last && epilogue != null) {
                    for (int r = 0; r < mr; r++) {
                        epilogue.apply(c, cOff + 4L * (long) (gr + r) * ldc, gr + r, j0, cols);
                    }
                }
            }
        }
    }

    /** Per-thread buffers: packed A, a B panel packed on the fly, the output tile. */
    private static final class Scratch {
        float[] a = new float[MC * 256];
        float[] b = new float[NR * 256];
        final float[] tile = new float[MR * NR];

        float[] a(int rows, int kc) {
            int need = ((rows + MR - 1) / MR) * MR * kc;
            if (a.length < need) {
                a = new float[need];
            }
            return a;
        }

        float[] b(int kc) {
            if (b.length < kc * NR) {
                b = new float[kc * NR];
            }
            return b;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /** The 6 x 64 micro-kernel: C tile (+)= packed A group x B panel rows. */
    static void kernel(float[] ap, int aOff, float[] bp, int bOff, int kc, MemorySegment c, long cOff, long ldcBytes,
            boolean accumulate, int mr, int cols, float[] tile) {
        FloatVector z = FloatVector.zero(S);
        FloatVector c00 = z, c01 = z, c02 = z, c03 = z;
        FloatVector c10 = z, c11 = z, c12 = z, c13 = z;
        FloatVector c20 = z, c21 = z, c22 = z, c23 = z;
        FloatVector c30 = z, c31 = z, c32 = z, c33 = z;
        FloatVector c40 = z, c41 = z, c42 = z, c43 = z;
        FloatVector c50 = z, c51 = z, c52 = z, c53 = z;
        int ai = aOff;
        int bi = bOff;
        for (int kk = 0; kk < kc; kk++, ai += MR, bi += NR) {
            FloatVector b0 = FloatVector.fromArray(S, bp, bi);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + 16);
            FloatVector b2 = FloatVector.fromArray(S, bp, bi + 32);
            FloatVector b3 = FloatVector.fromArray(S, bp, bi + 48);
            FloatVector a0 = FloatVector.broadcast(S, ap[ai]);
            c00 = b0.fma(a0, c00);
            c01 = b1.fma(a0, c01);
            c02 = b2.fma(a0, c02);
            c03 = b3.fma(a0, c03);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c10 = b0.fma(a1, c10);
            c11 = b1.fma(a1, c11);
            c12 = b2.fma(a1, c12);
            c13 = b3.fma(a1, c13);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c20 = b0.fma(a2, c20);
            c21 = b1.fma(a2, c21);
            c22 = b2.fma(a2, c22);
            c23 = b3.fma(a2, c23);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c30 = b0.fma(a3, c30);
            c31 = b1.fma(a3, c31);
            c32 = b2.fma(a3, c32);
            c33 = b3.fma(a3, c33);
            FloatVector a4 = FloatVector.broadcast(S, ap[ai + 4]);
            c40 = b0.fma(a4, c40);
            c41 = b1.fma(a4, c41);
            c42 = b2.fma(a4, c42);
            c43 = b3.fma(a4, c43);
            FloatVector a5 = FloatVector.broadcast(S, ap[ai + 5]);
            c50 = b0.fma(a5, c50);
            c51 = b1.fma(a5, c51);
            c52 = b2.fma(a5, c52);
            c53 = b3.fma(a5, c53);
        }
        // Accumulators go to a small tile in L1 first: passing vectors to another method would box them.
        c00.intoArray(tile, 0);
        c01.intoArray(tile, 16);
        c02.intoArray(tile, 32);
        c03.intoArray(tile, 48);
        c10.intoArray(tile, 64);
        c11.intoArray(tile, 80);
        c12.intoArray(tile, 96);
        c13.intoArray(tile, 112);
        c20.intoArray(tile, 128);
        c21.intoArray(tile, 144);
        c22.intoArray(tile, 160);
        c23.intoArray(tile, 176);
        c30.intoArray(tile, 192);
        c31.intoArray(tile, 208);
        c32.intoArray(tile, 224);
        c33.intoArray(tile, 240);
        c40.intoArray(tile, 256);
        c41.intoArray(tile, 272);
        c42.intoArray(tile, 288);
        c43.intoArray(tile, 304);
        c50.intoArray(tile, 320);
        c51.intoArray(tile, 336);
        c52.intoArray(tile, 352);
        c53.intoArray(tile, 368);
        flush(tile, c, cOff, ldcBytes, accumulate, mr, cols);
    }

    /** Writes (or adds) the first mr rows and cols columns of a 6 x 64 tile to C. */
    private static void flush(float[] tile, MemorySegment c, long cOff, long ldcBytes, boolean accumulate, int mr,
            int cols) {
        for (int r = 0; r < mr; r++) {
            long row = cOff + r * ldcBytes;
            for (int q = 0; q < NR; q += 16) {
                if (q >= cols) {
                    break;
                }
                FloatVector v = FloatVector.fromArray(S, tile, r * NR + q);
                long o = row + 4L * q;
                if (q + 16 <= cols) {
                    if (accumulate) {
                        v = v.add(FloatVector.fromMemorySegment(S, c, o, ORDER));
                    }
                    v.intoMemorySegment(c, o, ORDER);
                } else {
                    VectorMask<Float> mask = S.indexInRange(q, cols);
                    if (accumulate) {
                        v = v.add(FloatVector.fromMemorySegment(S, c, o, ORDER, mask));
                    }
                    v.intoMemorySegment(c, o, ORDER, mask);
                }
            }
        }
    }

}
