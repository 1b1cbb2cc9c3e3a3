package io.partita.backend.dnnl.internal.ops;

import io.partita.backend.dnnl.internal.gemm.PanelSource;
import io.partita.backend.dnnl.internal.gemm.Sgemm;
import jdk.incubator.vector.FloatVector;

/**
 * One image's input planes (see {@link NcxConv}) as the GEMM's B[K = channels x taps, N = output
 * pixels], packed panel by panel by the thread that uses it: row k of a panel is the tap's input for
 * the panel's pixels, consecutive plane floats when the panel lies in one output row (vector copies),
 * gathered when it crosses rows.
 */
final class PlanePanels implements PanelSource {
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
    public float[] panel(int panel, int k0, int kc, float[] scratch) {
        int j0 = panel * NR;
        int cols = Math.min(NR, pos.length - j0);
        int first = base + pos[j0];
        if (cols == NR && pos[j0 + NR - 1] == pos[j0] + NR - 1) {
            for (int kk = 0; kk < kc; kk++) {
                int at = first + kOff[k0 + kk];
                for (int v = 0; v < NR; v += L) {
                    FloatVector.fromArray(ConvKernels.S, planes, at + v).intoArray(scratch, kk * NR + v);
                }
            }
            return scratch;
        }
        // lanes past the last column are left as they are: the micro-kernel never stores them
        for (int kk = 0; kk < kc; kk++) {
            int o = base + kOff[k0 + kk];
            int row = kk * NR;
            for (int j = 0; j < cols; j++) {
                scratch[row + j] = planes[o + pos[j0 + j]];
            }
        }
        return scratch;
    }

    @Override
    public int offset(int panel, int k0) {
        return 0;
    }
}
