package io.partita.backend.dnnl.internal.ops;

import java.util.Arrays;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

import io.partita.backend.dnnl.internal.gemm.RowSource;
import io.partita.backend.dnnl.internal.gemm.Sgemm;

/**
 * One image's input planes (see {@link NcxConv}) as the GEMM's A[M = output pixels, K = channels x
 * taps]: row p is what output pixel p's window reads, gathered from the planes as the rows are packed.
 * The transposed form of {@link PlanePanels}, for small images, where panels of pixels would leave
 * columns idle or cross rows.
 */
final class PlaneRows implements RowSource {
    private static final VectorSpecies<Float> QUAD = FloatVector.SPECIES_128;
    private final float[] planes;
    private final int base;
    private final int[] pos;
    private final int[] kOff;

    PlaneRows(PlaneView v) {
        this.planes = v.planes();
        this.base = v.base();
        this.pos = v.pos();
        this.kOff = v.kOff();
    }

    @Override
    public int m() {
        return pos.length;
    }

    @Override
    public int k() {
        return kOff.length;
    }

    @Override
    public void pack(int i0, int rows, int k0, int kc, float[] ap, int apOff) {
        int mr = Sgemm.MR;
        for (int g = 0; g * mr < rows; g++) {
            int at = apOff + g * kc * mr;
            int live = Math.min(mr, rows - g * mr);
            if (live < mr) {
                Arrays.fill(ap, at, at + kc * mr, 0f);
            }
            int q = i0 + g * mr;
            if (mr == QUAD.length() && live == mr && pos[q + 3] - pos[q] == 3 && pos[q + 2] - pos[q] == 2
                    && pos[q + 1] - pos[q] == 1) {
                // four pixels side by side in a row: each step's values are four consecutive plane floats,
                // and the group's interleave stores them consecutively (one vector copy instead of four
                // gathers; the gathers were 14% of a 128-channel 3x3 convolution at 28x28)
                int p = base + pos[q];
                for (int kk = 0, o = at; kk < kc; kk++, o += mr) {
                    FloatVector.fromArray(QUAD, planes, p + kOff[k0 + kk]).intoArray(ap, o);
                }
                continue;
            }
            for (int r = 0; r < live; r++) {
                int p = base + pos[q + r];
                for (int kk = 0, o = at + r; kk < kc; kk++, o += mr) {
                    ap[o] = planes[p + kOff[k0 + kk]];
                }
            }
        }
    }
}
