package io.partita.backend.reference.ops;

import java.util.Arrays;
import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.ops.ExtensionSchemas;

/**
 * Reference kernels of the Partita extension ops that select and index: PartitaArgMax /
 * PartitaArgMin, PartitaReduce (accumulating in double; log_sum_exp shifted by the maximum so a
 * large input does not overflow), PartitaGather and PartitaGatherElements (an index outside
 * [-n, n-1] is an error naming the op, never clamped), PartitaCompare (1 for true, 0 for false).
 */
public final class ExtensionKernels {
    private ExtensionKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.PartitaArgMax, ctx -> argExtreme(ctx, true));
        r.accept(OpKind.PartitaArgMin, ctx -> argExtreme(ctx, false));
        r.accept(OpKind.PartitaReduce, ExtensionKernels::reduce);
        r.accept(OpKind.PartitaGather, ExtensionKernels::gather);
        r.accept(OpKind.PartitaGatherElements, ExtensionKernels::gatherElements);
        r.accept(OpKind.PartitaSlice, ExtensionKernels::slice);
        r.accept(OpKind.PartitaSplit, ExtensionKernels::split);
        r.accept(OpKind.PartitaPad, ExtensionKernels::pad);
        r.accept(OpKind.PartitaTile, ExtensionKernels::tile);
        r.accept(OpKind.PartitaExpand, ExtensionKernels::expand);
        r.accept(OpKind.PartitaCompare, ctx -> compare(ctx.op().stringAttr("mode")).compute(ctx));
    }

    /** The comparison of a mode as a broadcast binary kernel giving 1 (true) or 0 (false); NaN compares false. */
    private static RefOp compare(String mode) {
        return switch (mode) {
            case "less" -> BinaryKernels.binary((a, b) -> a < b ? 1 : 0);
            case "less_equal" -> BinaryKernels.binary((a, b) -> a <= b ? 1 : 0);
            case "greater" -> BinaryKernels.binary((a, b) -> a > b ? 1 : 0);
            case "greater_equal" -> BinaryKernels.binary((a, b) -> a >= b ? 1 : 0);
            case "equal" -> BinaryKernels.binary((a, b) -> a == b ? 1 : 0);
            default -> throw new IllegalStateException("mode " + mode + " passed the schema");
        };
    }

    /** [outer, n, inner] around an axis of dims. */
    private static long[] around(long[] dims, int axis) {
        long outer = 1;
        long inner = 1;
        for (int i = 0; i < axis; i++) {
            outer *= dims[i];
        }
        for (int i = axis + 1; i < dims.length; i++) {
            inner *= dims[i];
        }
        return new long[] {outer, dims[axis], inner};
    }

    /** NaN counts as the extreme (the first NaN, or the last with select_last_index). */
    private static void argExtreme(RefContext ctx, boolean max) {
        RefTensor src = ctx.in(0);
        int axis = (int) Math.floorMod(ctx.op().longAttr("axis"), src.rank());
        boolean last = ctx.op().boolAttr("select_last_index");
        long[] v = around(src.dims(), axis);
        int n = (int) v[1];
        int inner = (int) v[2];
        double[] x = src.data();
        double[] y = ctx.out(0).data();
        for (int o = 0; o < v[0]; o++) {
            for (int i = 0; i < inner; i++) {
                int base = o * n * inner + i;
                int best = 0;
                double bv = x[base];
                for (int k = 1; k < n; k++) {
                    double c = x[base + k * inner];
                    if (Double.isNaN(bv) && !last) {
                        break;
                    }
                    boolean better = Double.isNaN(c) || (max ? c > bv : c < bv) || (last && c == bv);
                    if (better) {
                        best = k;
                        bv = c;
                    }
                }
                y[o * inner + i] = best;
            }
        }
    }

    private static void reduce(RefContext ctx) {
        RefTensor src = ctx.in(0);
        long[] dims = src.dims();
        int rank = dims.length;
        long[] axes = ctx.in(1).toLongs();
        boolean[] reduced = new boolean[rank];
        for (long a : axes) {
            if (a < -rank || a >= rank) {
                throw new InvalidArgumentException(ctx.op().describe() + ": axis " + a + " of axes "
                        + Arrays.toString(axes) + " is out of range for src " + Arrays.toString(dims));
            }
            reduced[(int) Math.floorMod(a, rank)] = true;
        }
        if (axes.length == 0) {
            Arrays.fill(reduced, true);
        }
        // Strides into the output (laid out as the keep_dims shape); reduced axes contribute 0.
        long[] outStride = new long[rank];
        long acc = 1;
        long count = 1;
        for (int d = rank - 1; d >= 0; d--) {
            outStride[d] = reduced[d] ? 0 : acc;
            acc *= reduced[d] ? 1 : dims[d];
            count *= reduced[d] ? dims[d] : 1;
        }
        double[] x = src.data();
        double[] y = ctx.out(0).data();
        int[] at = new int[x.length];
        long[] idx = new long[rank];
        long off = 0;
        for (int i = 0; i < x.length; i++) {
            at[i] = (int) off;
            for (int d = rank - 1; d >= 0; d--) {
                idx[d]++;
                off += outStride[d];
                if (idx[d] < dims[d]) {
                    break;
                }
                off -= outStride[d] * idx[d];
                idx[d] = 0;
            }
        }
        String mode = ctx.op().stringAttr("mode");
        switch (mode) {
            case "max", "min" -> {
                boolean max = mode.equals("max");
                Arrays.fill(y, max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
                for (int i = 0; i < x.length; i++) {
                    double c = x[i];
                    if (Double.isNaN(c) || Double.isNaN(y[at[i]])) {
                        y[at[i]] = Double.NaN;
                    } else {
                        y[at[i]] = max ? Math.max(y[at[i]], c) : Math.min(y[at[i]], c);
                    }
                }
            }
            case "prod" -> {
                Arrays.fill(y, 1);
                for (int i = 0; i < x.length; i++) {
                    y[at[i]] *= x[i];
                }
            }
            case "log_sum_exp" -> {
                double[] m = new double[y.length];
                Arrays.fill(m, Double.NEGATIVE_INFINITY);
                for (int i = 0; i < x.length; i++) {
                    m[at[i]] = Math.max(m[at[i]], x[i]);
                }
                for (int i = 0; i < x.length; i++) {
                    y[at[i]] += Double.isInfinite(m[at[i]]) ? Math.exp(x[i]) : Math.exp(x[i] - m[at[i]]);
                }
                for (int j = 0; j < y.length; j++) {
                    y[j] = Math.log(y[j]) + (Double.isInfinite(m[j]) ? 0 : m[j]);
                }
            }
            default -> {
                for (int i = 0; i < x.length; i++) {
                    double c = x[i];
                    y[at[i]] += switch (mode) {
                        case "l1" -> Math.abs(c);
                        case "l2", "sum_square" -> c * c;
                        default -> c; // sum, mean, log_sum
                    };
                }
                for (int j = 0; j < y.length; j++) {
                    y[j] = switch (mode) {
                        case "mean" -> y[j] / count;
                        case "l2" -> Math.sqrt(y[j]);
                        case "log_sum" -> Math.log(y[j]);
                        default -> y[j];
                    };
                }
            }
        }
    }

    /** An index into a dim of n, negative ones counted from the end; an error outside [-n, n-1]. */
    private static long index(RefContext ctx, double v, long n, int axis) {
        long k = (long) v;
        if (k < -n || k >= n) {
            throw new InvalidArgumentException(ctx.op().describe() + ": index " + k + " is out of range for axis "
                    + axis + " of size " + n + "; expected an index in [" + -n + ", " + (n - 1) + "]");
        }
        return k < 0 ? k + n : k;
    }

    private static void gather(RefContext ctx) {
        RefTensor src = ctx.in(0);
        int axis = (int) Math.floorMod(ctx.op().longAttr("axis"), src.rank());
        long[] v = around(src.dims(), axis);
        long n = v[1];
        int inner = (int) v[2];
        double[] ind = ctx.in(1).data();
        double[] x = src.data();
        double[] y = ctx.out(0).data();
        int at = 0;
        for (long o = 0; o < v[0]; o++) {
            for (double e : ind) {
                long k = index(ctx, e, n, axis);
                System.arraycopy(x, (int) ((o * n + k) * inner), y, at, inner);
                at += inner;
            }
        }
    }

    /** dst[i] = src[i with its axis coordinate replaced by indices[i]]. */
    private static void gatherElements(RefContext ctx) {
        RefTensor src = ctx.in(0);
        RefTensor ind = ctx.in(1);
        int rank = src.rank();
        int axis = (int) Math.floorMod(ctx.op().longAttr("axis"), rank);
        double[] y = ctx.out(0).data();
        long[] idx = new long[rank];
        for (int i = 0; i < y.length; i++) {
            ind.unravel(i, idx);
            idx[axis] = index(ctx, ind.data()[i], src.dim(axis), axis);
            y[i] = src.data()[(int) src.offset(idx)];
        }
    }

    private static InvalidArgumentException error(RefContext ctx, String what) {
        return new InvalidArgumentException(ctx.op().describe() + ": " + what);
    }

    /**
     * Fills the output by mapping each output coordinate to a source flat offset ({@code -1}: the
     * constant {@code fill}); {@code map} turns the output index along axis d into a source index.
     */
    private static void gatherBy(RefContext ctx, RefTensor src, AxisMap map, double fill) {
        RefTensor out = ctx.out(0);
        int rank = out.rank();
        long[] od = out.dims();
        long[] stride = src.strides();
        double[] x = src.data();
        double[] y = out.data();
        long[] idx = new long[rank];
        for (int i = 0; i < y.length; i++) {
            long off = 0;
            boolean outside = false;
            for (int d = 0; d < rank; d++) {
                long j = map.source(d, idx[d]);
                if (j < 0) {
                    outside = true;
                    break;
                }
                off += j * stride[d];
            }
            y[i] = outside ? fill : x[(int) off];
            for (int d = rank - 1; d >= 0; d--) {
                if (++idx[d] < od[d]) {
                    break;
                }
                idx[d] = 0;
            }
        }
    }

    @FunctionalInterface
    private interface AxisMap {
        /** The source index along axis d of output index o along it, or -1 for "outside" (a constant). */
        long source(int d, long o);
    }

    private static void slice(RefContext ctx) {
        RefTensor src = ctx.in(0);
        ExtensionSchemas.SliceAxis[] s = ExtensionSchemas.sliceAxes(src.dims(), ctx.in(1).toLongs(),
                ctx.in(2).toLongs(), ctx.in(3).toLongs(), ctx.in(4).toLongs(), w -> error(ctx, w));
        gatherBy(ctx, src, (d, o) -> s[d].start() + o * s[d].step(), 0);
    }

    private static void split(RefContext ctx) {
        RefTensor src = ctx.in(0);
        int axis = (int) Math.floorMod(ctx.op().longAttr("axis"), src.rank());
        long[] sizes = ExtensionSchemas.splitSizes(src.dim(axis), ctx.hasInput(1) ? ctx.in(1).toLongs() : null,
                ctx.op().longAttr("num_outputs"), w -> error(ctx, w));
        long first = 0;
        for (int i = 0; i < ctx.op().longAttr("index"); i++) {
            first += sizes[i];
        }
        long from = first;
        gatherBy(ctx, src, (d, o) -> d == axis ? from + o : o, 0);
    }

    private static void pad(RefContext ctx) {
        RefTensor src = ctx.in(0);
        long[] dims = src.dims();
        long[][] p = ExtensionSchemas.padsPerAxis(src.rank(), ctx.in(1).toLongs(),
                ctx.hasInput(3) ? ctx.in(3).toLongs() : new long[0],
                w -> error(ctx, w));
        double value = ctx.in(2).data()[0];
        String mode = ctx.op().stringAttr("mode");
        gatherBy(ctx, src, (d, o) -> {
            long n = dims[d];
            long j = o - p[d][0];
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
        }, value);
    }

    private static void tile(RefContext ctx) {
        RefTensor src = ctx.in(0);
        long[] dims = src.dims();
        gatherBy(ctx, src, (d, o) -> o % dims[d], 0);
    }

    /** Output axes beyond src's rank (on the left) have no source axis: src is viewed with leading 1s. */
    private static void expand(RefContext ctx) {
        RefTensor src = ctx.in(0);
        int rank = ctx.out(0).rank();
        long[] dims = new long[rank];
        java.util.Arrays.fill(dims, 1);
        System.arraycopy(src.dims(), 0, dims, rank - src.rank(), src.rank());
        RefTensor view = new RefTensor(src.type(), dims, src.data());
        gatherBy(ctx, view, (d, o) -> dims[d] == 1 ? 0 : o, 0);
    }
}
