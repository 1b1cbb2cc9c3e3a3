package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import io.partita.backend.dnnl.internal.gemm.PanelSource;
import io.partita.backend.dnnl.internal.gemm.Sgemm;
import jdk.incubator.vector.FloatVector;

/**
 * One image of an unpadded 1x1 convolution's input as the GEMM's B[K = input channels, N = output
 * pixels], packed panel by panel by the thread that uses it. Output pixel p reads input pixel
 * (oy * sh, ox * sw); with stride 1 over dense rows a panel row is consecutive floats of the
 * channel's plane (vector copies), otherwise it is gathered.
 */
final class ImagePanels implements PanelSource {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final int NR = Sgemm.NR;
    private static final int L = ConvKernels.L;

    private final MemorySegment src;
    private final long base;
    private final ConvShape s;
    /** Where output pixel p's input is within a channel plane, or null when it is p itself. */
    private final long[] gather;

    /** Image img of {@code src}, laid out by {@code s}'s strides; {@code gather} from {@link #gatherOffsets}. */
    ImagePanels(MemorySegment src, int img, ConvShape s, long[] gather) {
        this.src = src;
        this.base = img * s.sN();
        this.s = s;
        this.gather = gather;
    }

    /** For each output pixel, the element offset of its input within a channel; null when contiguous. */
    static long[] gatherOffsets(ConvShape s) {
        if (contiguous(s)) {
            return null;
        }
        long[] offs = new long[s.oh() * s.ow()];
        for (int p = 0; p < offs.length; p++) {
            int oy = p / s.ow();
            int ox = p - oy * s.ow();
            offs[p] = (long) oy * s.sh() * s.sH() + (long) ox * s.sw() * s.sW();
        }
        return offs;
    }

    /** Output pixel p is input element p of each channel plane: stride 1 over dense, full-width rows. */
    static boolean contiguous(ConvShape s) {
        return s.sh() == 1 && s.sw() == 1 && s.sW() == 1 && s.sH() == s.iw() && s.ow() == s.iw();
    }

    @Override
    public int k() {
        return s.ic();
    }

    @Override
    public int n() {
        return s.oh() * s.ow();
    }

    @Override
    public float[] panel(int panel, int k0, int kc, float[] scratch) {
        int j0 = panel * NR;
        int cols = Math.min(NR, n() - j0);
        if (gather == null && cols == NR) {
            for (int kk = 0; kk < kc; kk++) {
                long at = 4L * (base + (k0 + kk) * s.sC() + j0);
                for (int v = 0; v < NR; v += L) {
                    FloatVector.fromMemorySegment(ConvKernels.S, src, at + 4L * v, ORDER).intoArray(scratch,
                            kk * NR + v);
                }
            }
            return scratch;
        }
        for (int kk = 0; kk < kc; kk++) {
            long at = base + (k0 + kk) * s.sC();
            int row = kk * NR;
            // lanes past the last column are left as they are: the micro-kernel never stores them
            for (int j = 0; j < cols; j++) {
                scratch[row + j] = src.get(F, 4L * (at + (gather == null ? j0 + j : gather[j0 + j])));
            }
        }
        return scratch;
    }

    @Override
    public int offset(int panel, int k0) {
        return 0;
    }
}
