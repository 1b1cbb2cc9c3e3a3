package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/** A[M, K] in memory: element (i, kk) at byte {@code off + 4 * (i * rowStride + kk * colStride)}. */
public record StridedRows(MemorySegment a, long off, long rowStride, long colStride, int m, int k)
        implements RowSource {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    /** K columns packed at once from rows in memory: a group's share of them (7 KB at 14 rows) stays in L1. */
    private static final int PACK_CHUNK = 128;
    /** Rows of A copied out of memory in bulk: writing from a heap array avoids per-element segment checks. */
    private static final ThreadLocal<float[][]> ROW = ThreadLocal.withInitial(() -> new float[1][Sgemm.KC]);

    @Override
    public void pack(int i0, int rows, int k0, int kc, float[] ap, int apOff) {
        int mr = Sgemm.MR;
        int groups = (rows + mr - 1) / mr;
        for (int g = 0; g < groups; g++) {
            int base = apOff + g * kc * mr;
            int live = Math.min(mr, rows - g * mr);
            long first = off + 4L * ((long) (i0 + g * mr) * rowStride + (long) k0 * colStride);
            if (live < mr) {
                // the rows past the matrix are zero: one fill of the group, not one call per k
                // (that was 3.5% of a BERT layer, whose 128 rows leave a group of 2)
                Arrays.fill(ap, base, base + kc * mr, 0f);
            }
            if (rowStride == 1 && live > 1) {
                // A transposed in memory: the group's rows are contiguous for each k.
                for (int kk = 0; kk < kc; kk++) {
                    MemorySegment.copy(a, F, first + 4L * kk * colStride, ap, base + kk * mr, live);
                }
            } else if (colStride == 1) {
                // A chunk of every row is copied out in bulk, then the group is written k by k in
                // order: scattered row by row over all of K, the group (57 KB at 1024-deep K) fell
                // out of L1 between rows, and packing took 5-8% of a 1024^3 product.
                float[] rowsChunk = row(PACK_CHUNK * mr);
                for (int kk0 = 0; kk0 < kc; kk0 += PACK_CHUNK) {
                    int len = Math.min(PACK_CHUNK, kc - kk0);
                    for (int r = 0; r < live; r++) {
                        MemorySegment.copy(a, F, first + 4L * (r * rowStride + kk0), rowsChunk, r * PACK_CHUNK, len);
                    }
                    int o = base + kk0 * mr;
                    if (live == mr) { // a constant trip count: C2 writes the row loop out

                        for (int kk = 0; kk < len; kk++, o += mr) {
                            for (int r = 0; r < mr; r++) {
                                ap[o + r] = rowsChunk[r * PACK_CHUNK + kk];
                            }
                        }
                    } else {
                        for (int kk = 0; kk < len; kk++, o += mr) {
                            for (int r = 0; r < live; r++) {
                                ap[o + r] = rowsChunk[r * PACK_CHUNK + kk];
                            }
                        }
                    }
                }
            } else {
                long step = 4L * colStride;
                for (int r = 0; r < live; r++) {
                    long src = first + 4L * r * rowStride;
                    for (int kk = 0, o = base + r; kk < kc; kk++, o += mr) {
                        ap[o] = a.get(F, src + step * kk);
                    }
                }
            }
        }
    }

    private static float[] row(int kc) {
        float[][] holder = ROW.get();
        if (holder[0].length < kc) {
            holder[0] = new float[kc];
        }
        return holder[0];
    }
}
