package io.partita.runtime.schema.ops;

import io.partita.graph.LogicalTensor;
import io.partita.runtime.schema.Dims;

/**
 * Spatial arithmetic of convolutions, transposed convolutions and pooling, shared by shape
 * inference and the reference kernels so both resolve {@code auto_pad} and output sizes the same
 * way. Dims may be {@code UNKNOWN_DIM}/{@code DYNAMIC_DIM}: a result derived from a placeholder is
 * that placeholder (dynamic wins).
 *
 * <p>Layouts: {@code data_format} {@code NCX} is {@code [N, C, X...]}, {@code NXC} is
 * {@code [N, X..., C]}. Weights formats name their two channel dims and where the spatial dims
 * sit: {@code OIX}/{@code IOX} are {@code [A, B, X...]}, {@code XIO}/{@code XOI} are
 * {@code [X..., A, B]}.
 */
public final class ConvPoolGeometry {
    /** {@code auto_pad} values, spelled as oneDNN's op schemas accept them. */
    public static final String PAD_NONE = "None";
    public static final String PAD_SAME_UPPER = "SAME_UPPER";
    public static final String PAD_SAME_LOWER = "SAME_LOWER";
    public static final String PAD_VALID = "VALID";

    private ConvPoolGeometry() {
    }

    /** Whether a data format is channels-first. */
    public static boolean channelsFirst(String dataFormat) {
        return "NCX".equals(dataFormat);
    }

    /** The channel axis of a data tensor of this rank. */
    public static int channelAxis(String dataFormat, int rank) {
        return channelsFirst(dataFormat) ? 1 : rank - 1;
    }

    /** The first spatial axis of a data tensor. */
    public static int firstSpatialAxis(String dataFormat) {
        return channelsFirst(dataFormat) ? 2 : 1;
    }

    /** The spatial dims of a data tensor. */
    public static long[] dataSpatial(long[] dims, String dataFormat) {
        long[] sp = new long[dims.length - 2];
        System.arraycopy(dims, firstSpatialAxis(dataFormat), sp, 0, sp.length);
        return sp;
    }

    /** A data tensor's dims in its data format. */
    public static long[] dataDims(String dataFormat, long n, long c, long[] spatial) {
        long[] d = new long[spatial.length + 2];
        d[0] = n;
        d[channelAxis(dataFormat, d.length)] = c;
        System.arraycopy(spatial, 0, d, firstSpatialAxis(dataFormat), spatial.length);
        return d;
    }

    /** Whether a weights format has its spatial dims first (XIO, XOI). */
    public static boolean weightsSpatialFirst(String weightsFormat) {
        return weightsFormat.charAt(0) == 'X';
    }

    /** The axis of channel letter {@code 'O'} or {@code 'I'} in weights of this rank. */
    public static int weightsAxis(String weightsFormat, char letter, int rank) {
        int pos = weightsFormat.indexOf(letter);
        return weightsSpatialFirst(weightsFormat) ? rank - 2 + (pos - 1) : pos;
    }

    /** The spatial (kernel) dims of a weights tensor. */
    public static long[] weightsSpatial(long[] dims, String weightsFormat) {
        long[] sp = new long[dims.length - 2];
        System.arraycopy(dims, weightsSpatialFirst(weightsFormat) ? 0 : 2, sp, 0, sp.length);
        return sp;
    }

    /** Weights dims in their format from the dims of the two channel letters and the kernel. */
    public static long[] weightsDims(String weightsFormat, long o, long i, long[] kernel) {
        long[] d = new long[kernel.length + 2];
        d[weightsAxis(weightsFormat, 'O', d.length)] = o;
        d[weightsAxis(weightsFormat, 'I', d.length)] = i;
        System.arraycopy(kernel, 0, d, weightsSpatialFirst(weightsFormat) ? 0 : 2, kernel.length);
        return d;
    }

    /** The extent of a dilated kernel ({@code dilation} is 1-based: 1 means no dilation). */
    public static long dilatedKernel(long kernel, long dilation) {
        return (kernel - 1) * dilation + 1;
    }

    /**
     * The paddings actually used on each spatial axis: {@code pads_begin}/{@code pads_end} for
     * {@code None}, zeros for {@code VALID}, and for {@code SAME_*} the total padding that keeps
     * {@code ceil(in / stride)} outputs ({@code dilatedKernel - stride} for a transposed
     * convolution), split with the odd element at the end ({@code SAME_UPPER}) or at the begin
     * ({@code SAME_LOWER}). A pad depending on an unknown size is that size's placeholder.
     *
     * @param in the input spatial sizes the padding is computed from
     * @return {begin pads, end pads}
     */
    public static long[][] resolvePads(String autoPad, long[] in, long[] kernel, long[] strides, long[] dilations,
            long[] padsBegin, long[] padsEnd, boolean transposed) {
        int ns = in.length;
        long[] b = new long[ns];
        long[] e = new long[ns];
        for (int i = 0; i < ns; i++) {
            switch (autoPad) {
                case PAD_VALID -> {
                    b[i] = 0;
                    e[i] = 0;
                }
                case PAD_SAME_UPPER, PAD_SAME_LOWER -> {
                    long k = kernel[i];
                    long x = transposed ? 0 : in[i];
                    if (k < 0 || x < 0) {
                        b[i] = Dims.placeholderOf(k, x);
                        e[i] = b[i];
                        continue;
                    }
                    long eff = dilatedKernel(k, dilations[i]);
                    long s = strides[i];
                    long total = transposed || x % s == 0 ? eff - s : eff - x % s;
                    total = Math.max(total, 0);
                    b[i] = PAD_SAME_LOWER.equals(autoPad) ? (total + 1) / 2 : total / 2;
                    e[i] = total - b[i];
                }
                default -> {
                    b[i] = padsBegin[i];
                    e[i] = padsEnd[i];
                }
            }
        }
        return new long[][] {b, e};
    }

    /** Output size of a convolution along one axis: {@code floor((in + pb + pe - dilatedK) / s) + 1}. */
    public static long convOut(long in, long kernel, long stride, long dilation, long padBegin, long padEnd) {
        if (in < 0 || kernel < 0 || isPlaceholder(padBegin) || isPlaceholder(padEnd)) {
            return Dims.placeholderOf(in, kernel, placeholderOrZero(padBegin), placeholderOrZero(padEnd));
        }
        return Math.floorDiv(in + padBegin + padEnd - dilatedKernel(kernel, dilation), stride) + 1;
    }

    /** Output size of a pooling along one axis, rounding the window count down or up. */
    public static long poolOut(long in, long kernel, long stride, long dilation, long padBegin, long padEnd,
            boolean ceil) {
        if (in < 0 || kernel < 0 || isPlaceholder(padBegin) || isPlaceholder(padEnd)) {
            return Dims.placeholderOf(in, kernel, placeholderOrZero(padBegin), placeholderOrZero(padEnd));
        }
        long span = in + padBegin + padEnd - dilatedKernel(kernel, dilation);
        return (ceil ? Math.ceilDiv(span, stride) : Math.floorDiv(span, stride)) + 1;
    }

    /**
     * Output size of a transposed convolution along one axis:
     * {@code stride * (in - 1) + dilatedK + outputPadding - pb - pe}.
     */
    public static long convTransposeOut(long in, long kernel, long stride, long dilation, long padBegin,
            long padEnd, long outputPadding) {
        if (in < 0 || kernel < 0 || isPlaceholder(padBegin) || isPlaceholder(padEnd)) {
            return Dims.placeholderOf(in, kernel, placeholderOrZero(padBegin), placeholderOrZero(padEnd));
        }
        return stride * (in - 1) + dilatedKernel(kernel, dilation) + outputPadding - padBegin - padEnd;
    }

    /** Interpolate's output size from a scale: {@code floor(in * scale)} in f32 arithmetic as oneDNN. */
    public static long scaledSize(long in, float scale) {
        if (in < 0) {
            return in;
        }
        return (long) ((float) in * scale);
    }

    private static boolean isPlaceholder(long d) {
        return d == LogicalTensor.UNKNOWN_DIM || d == LogicalTensor.DYNAMIC_DIM;
    }

    private static long placeholderOrZero(long d) {
        return isPlaceholder(d) ? d : 0;
    }
}
