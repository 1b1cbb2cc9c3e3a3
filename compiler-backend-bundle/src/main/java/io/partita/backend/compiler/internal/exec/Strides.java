package io.partita.backend.compiler.internal.exec;

import java.util.Arrays;

/**
 * Element strides through view ops and broadcasting: how fused code addresses a tensor that
 * reaches it through StaticReshape/StaticTranspose/Reorder without copying it.
 */
public final class Strides {
    private Strides() {
    }

    public static long[] dense(long[] dims) {
        long[] s = new long[dims.length];
        long acc = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= Math.max(dims[i], 1);
        }
        return s;
    }

    /** Strides of {@code transpose(x, order)} given x's. */
    public static long[] transpose(long[] strides, long[] order) {
        long[] r = new long[order.length];
        for (int i = 0; i < order.length; i++) {
            int o = (int) (order[i] < 0 ? order[i] + order.length : order[i]);
            r[i] = strides[o];
        }
        return r;
    }

    /** Strides of x given those of {@code y = transpose(x, order)}. */
    public static long[] untranspose(long[] yStrides, long[] order) {
        long[] r = new long[order.length];
        for (int i = 0; i < order.length; i++) {
            int o = (int) (order[i] < 0 ? order[i] + order.length : order[i]);
            r[o] = yStrides[i];
        }
        return r;
    }

    /**
     * Strides viewing memory with {@code dims}/{@code strides} as {@code newDims}, or null when
     * no strides can (a reshape across dims made non-contiguous by a transpose). Works from the
     * innermost dim out, matching contiguous chunks of the old dims with runs of new ones.
     */
    public static long[] reshape(long[] dims, long[] strides, long[] newDims) {
        long count = 1;
        for (long d : dims) {
            count *= d;
        }
        if (count == 0 || dims.length == 0) {
            return dense(newDims);
        }
        long[] r = new long[newDims.length];
        int view = newDims.length - 1;
        long chunkBase = strides[dims.length - 1];
        long tensorNumel = 1;
        long viewNumel = 1;
        for (int t = dims.length - 1; t >= 0; t--) {
            tensorNumel *= dims[t];
            if (t == 0 || (dims[t - 1] != 1 && strides[t - 1] != tensorNumel * chunkBase)) {
                while (view >= 0 && (viewNumel < tensorNumel || newDims[view] == 1)) {
                    r[view] = viewNumel * chunkBase;
                    viewNumel *= newDims[view];
                    view--;
                }
                if (viewNumel != tensorNumel) {
                    return null;
                }
                if (t > 0) {
                    chunkBase = strides[t - 1];
                    tensorNumel = 1;
                    viewNumel = 1;
                }
            }
        }
        return view == -1 ? r : null;
    }

    /**
     * Strides addressing a tensor broadcast (numpy rules, aligned right) to {@code target} dims:
     * 0 along dims it has as 1 or lacks.
     */
    public static long[] broadcast(long[] dims, long[] strides, long[] target) {
        long[] r = new long[target.length];
        int shift = target.length - dims.length;
        if (shift < 0) {
            throw new IllegalArgumentException("dims " + Arrays.toString(dims) + " do not broadcast to "
                    + Arrays.toString(target));
        }
        for (int i = 0; i < dims.length; i++) {
            long d = dims[i];
            long t = target[i + shift];
            if (d != t && d != 1) {
                throw new IllegalArgumentException("dims " + Arrays.toString(dims) + " do not broadcast to "
                        + Arrays.toString(target));
            }
            r[i + shift] = d == 1 && t != 1 ? 0 : strides[i];
        }
        return r;
    }

    /** Element offset of the flat index {@code flat} over {@code dims} (row-major) under {@code strides}. */
    public static long offset(long flat, long[] dims, long[] strides, int rank) {
        long off = 0;
        for (int i = rank - 1; i >= 0; i--) {
            long d = dims[i];
            long idx = flat % d;
            flat /= d;
            off += idx * strides[i];
        }
        return off;
    }
}
