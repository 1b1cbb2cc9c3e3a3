package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A[M, K] in memory: element (i, kk) at byte {@code off + 4 * (i * rowStride + kk * colStride)}. */
public record StridedRows(MemorySegment a, long off, long rowStride, long colStride, int m, int k)
        implements RowSource {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    @Override
    public void pack(int i0, int rows, int k0, int kc, float[] ap, int apOff) {
        int mr = Sgemm.MR;
        int groups = (rows + mr - 1) / mr;
        long step = 4L * colStride;
        for (int g = 0; g < groups; g++) {
            int base = apOff + g * kc * mr;
            for (int r = 0; r < mr; r++) {
                int i = g * mr + r;
                if (i >= rows) {
                    for (int kk = 0; kk < kc; kk++) {
                        ap[base + kk * mr + r] = 0f;
                    }
                    continue;
                }
                long row = off + 4L * ((long) (i0 + i) * rowStride + (long) k0 * colStride);
                for (int kk = 0; kk < kc; kk++) {
                    ap[base + kk * mr + r] = a.get(F, row + step * kk);
                }
            }
        }
    }
}
