package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import io.partita.backend.dnnl.internal.gemm.PanelSource;
import io.partita.backend.dnnl.internal.gemm.Sgemm;
import jdk.incubator.vector.FloatVector;

/**
 * One image of an unpadded 1x1 convolution's input as the GEMM's B[K = input channels, N = output
 * pixels], packed panel by panel by the thread that uses it: channel c's pixel p at element
 * {@code base + c * channelStride + p}. The image is the convolution's source when its output pixels
 * are consecutive input elements (stride 1 over dense rows), otherwise a dense copy of the pixels
 * the output reads ({@link NcxConv#subsample}).
 */
final class ImagePanels implements PanelSource.Packing {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final int NR = Sgemm.NR;
    private static final int L = ConvKernels.L;

    private final MemorySegment src;
    private final long base;
    private final long channelStride;
    private final int channels;
    private final int pixels;

    /** Image img of {@code src}, laid out by {@code s}'s strides: only where {@link #contiguous}. */
    ImagePanels(MemorySegment src, int img, ConvShape s) {
        this(src, img * s.sN(), s.sC(), s.ic(), s.oh() * s.ow());
    }

    /** {@code channels} planes of {@code pixels} floats, {@code channelStride} apart from element {@code base}. */
    ImagePanels(MemorySegment src, long base, long channelStride, int channels, int pixels) {
        this.src = src;
        this.base = base;
        this.channelStride = channelStride;
        this.channels = channels;
        this.pixels = pixels;
    }

    /** Output pixel p is input element p of each channel plane: stride 1 over dense, full-width rows. */
    static boolean contiguous(ConvShape s) {
        return s.sh() == 1 && s.sw() == 1 && s.sW() == 1 && s.sH() == s.iw() && s.ow() == s.iw();
    }

    @Override
    public int k() {
        return channels;
    }

    @Override
    public int n() {
        return pixels;
    }

    @Override
    public void pack(int panel, int k0, int kc, float[] scratch, int to) {
        int j0 = panel * NR;
        int cols = Math.min(NR, pixels - j0);
        for (int kk = 0; kk < kc; kk++) {
            long at = 4L * (base + (k0 + kk) * channelStride + j0);
            if (cols == NR) {
                for (int v = 0; v < NR; v += L) {
                    FloatVector.fromMemorySegment(ConvKernels.S, src, at + 4L * v, ORDER).intoArray(scratch,
                            to + kk * NR + v);
                }
            } else {
                // lanes past the last column are left as they are: the micro-kernel never stores them
                MemorySegment.copy(src, F, at, scratch, to + kk * NR, cols);
            }
        }
    }

}
