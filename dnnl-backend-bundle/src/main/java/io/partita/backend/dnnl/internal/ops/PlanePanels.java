package io.partita.backend.dnnl.internal.ops;

import io.partita.backend.dnnl.internal.gemm.PanelSource;
import io.partita.backend.dnnl.internal.gemm.Sgemm;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;

/**
 * One image's input planes (see {@link NcxConv}) as the GEMM's B[K = channels x taps, N = output
 * pixels], packed panel by panel by the thread that uses it: row k of a panel is the tap's input for
 * the panel's pixels, consecutive plane floats when the panel lies in one output row (vector copies),
 * gathered when it crosses rows.
 */
final class PlanePanels implements PanelSource.Packing {
    private static final int NR = Sgemm.NR;
    private static final int L = ConvKernels.L;

    private final float[] planes;
    private final int base;
    private final int[] pos;
    private final int[] kOff;

    PlanePanels(PlaneView v) {
        this.planes = v.planes();
        this.base = v.base();
        this.pos = v.pos();
        this.kOff = v.kOff();
    }

    @Override
    public int k() {
        return kOff.length;
    }

    @Override
    public int n() {
        return pos.length;
    }

    @Override
    public void pack(int panel, int k0, int kc, float[] scratch, int to) {
        int j0 = panel * NR;
        int cols = Math.min(NR, pos.length - j0);
        int first = base + pos[j0];
        if (cols == NR && pos[j0 + NR - 1] == pos[j0] + NR - 1) {
            for (int kk = 0; kk < kc; kk++) {
                int at = first + kOff[k0 + kk];
                for (int v = 0; v < NR; v += L) {
                    FloatVector.fromArray(ConvKernels.S, planes, at + v).intoArray(scratch, to + kk * NR + v);
                }
            }
            return;
        }
        int split = runSplit(j0, cols);
        if (split > 0) {
            twoRuns(j0, split, k0, kc, scratch, to);
            return;
        }
        // lanes past the last column are left as they are: the micro-kernel never stores them
        for (int kk = 0; kk < kc; kk++) {
            int o = base + kOff[k0 + kk];
            int row = to + kk * NR;
            for (int j = 0; j < cols; j++) {
                scratch[row + j] = planes[o + pos[j0 + j]];
            }
        }
    }

    /**
     * A full panel whose pixels are two runs of consecutive plane positions (it crosses one output
     * row): where the second starts (1 .. NR-1), else 0.
     */
    private int runSplit(int j0, int cols) {
        if (cols != NR) {
            return 0;
        }
        int split = 0;
        for (int j = 1; j < NR; j++) {
            if (pos[j0 + j] != pos[j0 + j - 1] + 1) {
                if (split > 0) {
                    return 0;
                }
                split = j;
            }
        }
        return split;
    }

    /**
     * Packs a panel of two runs with whole-vector loads: lane j reads from the first run's start, or
     * (from the split on) from the second run's start shifted back by the split, blended per vector.
     * A crossing panel gathered value by value took a seventh of a 3x3 convolution at 56x56 (two of
     * every seven panels cross a row there). Both loads stay within the planes: the first run's
     * start plus NR is at most the second run's end, the rows between them being padding.
     */
    private void twoRuns(int j0, int split, int k0, int kc, float[] scratch, int at) {
        int first = base + pos[j0];
        int second = base + pos[j0 + split] - split;
        // the panel is two vectors (NR = 2L): lane i of vector v comes from the second run when
        // v * L + i >= split
        VectorMask<Float> low = ConvKernels.S.indexInRange(0, split).not();
        VectorMask<Float> high = ConvKernels.S.indexInRange(0, split - L).not();
        for (int kk = 0; kk < kc; kk++) {
            int off = kOff[k0 + kk];
            int to = at + kk * NR;
            FloatVector a0 = FloatVector.fromArray(ConvKernels.S, planes, first + off);
            FloatVector b0 = FloatVector.fromArray(ConvKernels.S, planes, second + off);
            a0.blend(b0, low).intoArray(scratch, to);
            FloatVector a1 = FloatVector.fromArray(ConvKernels.S, planes, first + off + L);
            FloatVector b1 = FloatVector.fromArray(ConvKernels.S, planes, second + off + L);
            a1.blend(b1, high).intoArray(scratch, to + L);
        }
    }

}
