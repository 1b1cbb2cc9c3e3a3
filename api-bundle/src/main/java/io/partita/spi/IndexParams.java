package io.partita.spi;

import java.util.Arrays;
import java.util.function.Function;

/**
 * The parameters of the Partita extension ops that index by values known only at execution
 * (PartitaSlice's starts/ends/axes/steps, PartitaPad's pads/axes), decoded one way for every
 * backend: the reference backend and any optimised backend that runs these ops read them through
 * here, so they clamp, count and refuse exactly alike.
 */
public final class IndexParams {
    private IndexParams() {
    }

    /** One axis of a slice: the first source index, the step, and how many elements it takes. */
    public record SliceAxis(long start, long step, long count) {
        /** ONNX's Slice rule for one axis of length {@code dim}: negative bounds count from the end, then clamp. */
        public static SliceAxis of(long dim, long start, long end, long step) {
            long b = start < 0 ? start + dim : start;
            long e = end < 0 ? Math.max(end, Long.MIN_VALUE + dim) + dim : end;
            if (step > 0) {
                b = Math.clamp(b, 0, dim);
                e = Math.clamp(e, 0, dim);
                return new SliceAxis(b, step, Math.max(0, ceilDiv(e - b, step)));
            }
            b = Math.clamp(b, 0, Math.max(dim - 1, 0));
            e = Math.clamp(e, -1, dim - 1);
            return new SliceAxis(b, step, dim == 0 ? 0 : Math.max(0, ceilDiv(b - e, -step)));
        }

        private static long ceilDiv(long a, long b) {
            return -Math.floorDiv(-a, b);
        }
    }

    /**
     * The sliced axes of src dims from the starts/ends/axes/steps values: one entry per src axis
     * (the whole axis when not sliced); {@code error} makes the exception for mismatched lengths,
     * bad or repeated axes, or a step of 0.
     */
    public static SliceAxis[] sliceAxes(long[] src, long[] starts, long[] ends, long[] axes, long[] steps,
            Function<String, RuntimeException> error) {
        int rank = src.length;
        if (ends.length != starts.length || axes.length != starts.length || steps.length != starts.length) {
            throw error.apply("starts " + Arrays.toString(starts) + ", ends " + Arrays.toString(ends) + ", axes "
                    + Arrays.toString(axes) + " and steps " + Arrays.toString(steps) + "; expected as many of each");
        }
        SliceAxis[] out = new SliceAxis[rank];
        for (int i = 0; i < rank; i++) {
            out[i] = new SliceAxis(0, 1, src[i]);
        }
        boolean[] seen = new boolean[rank];
        for (int k = 0; k < starts.length; k++) {
            int a = axis(axes[k], rank);
            if (a < 0 || seen[a]) {
                throw error.apply("axes " + Arrays.toString(axes) + ": axis " + axes[k] + (a < 0 ? " is out of range "
                        + "for rank " + rank : " is repeated") + "; expected unique axes in [" + -rank + ", "
                        + (rank - 1) + "]");
            }
            seen[a] = true;
            if (steps[k] == 0) {
                throw error.apply("steps " + Arrays.toString(steps) + " has a 0; expected non-zero steps");
            }
            out[a] = SliceAxis.of(src[a], starts[k], ends[k], steps[k]);
        }
        return out;
    }

    /**
     * Begin and end padding per axis ({@code [rank][2]}) from ONNX's pads layout (all begins, then
     * all ends) over {@code axes} (every axis when empty); {@code error} makes the exception for a
     * wrong count or a bad or repeated axis.
     */
    public static long[][] padsPerAxis(int rank, long[] pads, long[] axes, Function<String, RuntimeException> error) {
        long[] ax = axes;
        if (ax.length == 0) {
            ax = new long[rank];
            for (int i = 0; i < rank; i++) {
                ax[i] = i;
            }
        }
        if (pads.length != 2L * ax.length) {
            throw error.apply("pads " + Arrays.toString(pads) + " has " + pads.length + " values; expected "
                    + 2 * ax.length + " (begin and end for each of " + ax.length + " axes)");
        }
        long[][] out = new long[rank][2];
        boolean[] seen = new boolean[rank];
        for (int k = 0; k < ax.length; k++) {
            int a = axis(ax[k], rank);
            if (a < 0 || seen[a]) {
                throw error.apply("axes " + Arrays.toString(ax) + ": axis " + ax[k] + " is out of range or repeated "
                        + "for rank " + rank);
            }
            seen[a] = true;
            out[a][0] = pads[k];
            out[a][1] = pads[k + ax.length];
        }
        return out;
    }

    /**
     * The source index along an axis of length {@code n} that output index {@code o} reads under
     * PartitaPad's {@code mode} with {@code begin} padding, or -1 where the constant goes.
     */
    public static long padSource(String mode, long o, long begin, long n) {
        long j = o - begin;
        if (j >= 0 && j < n) {
            return j;
        }
        return switch (mode) {
            case "edge" -> j < 0 ? 0 : n - 1;
            case "wrap" -> Math.floorMod(j, n);
            case "reflect" -> {
                if (n == 1) {
                    yield 0;
                }
                long period = 2 * (n - 1);
                long r = Math.floorMod(j, period);
                yield r < n ? r : period - r;
            }
            default -> -1;
        };
    }

    private static int axis(long axis, int rank) {
        long a = axis < 0 ? axis + rank : axis;
        return a < 0 || a >= rank ? -1 : (int) a;
    }
}
