package io.partita.backend.reference.ops;

import java.util.Arrays;
import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.ops.ExtensionSchemas;
import io.partita.spi.IndexParams;

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
        r.accept(OpKind.PartitaResize, ExtensionKernels::resize);
        r.accept(OpKind.PartitaTopK, ExtensionKernels::topK);
        r.accept(OpKind.PartitaLRN, ExtensionKernels::lrn);
        r.accept(OpKind.PartitaMaximum, BinaryKernels.binary(Math::max));
        r.accept(OpKind.PartitaMinimum, BinaryKernels.binary(Math::min));
        r.accept(OpKind.PartitaSelect, BinaryKernels::select);
        r.accept(OpKind.PartitaCumSum, ExtensionKernels::cumSum);
        r.accept(OpKind.PartitaFloor, ctx -> unary(ctx, Math::floor));
        r.accept(OpKind.PartitaCeil, ctx -> unary(ctx, Math::ceil));
        // Squeeze / Unsqueeze keep the row-major element order: the output shares src's elements.
        r.accept(OpKind.PartitaSqueeze, ExtensionKernels::share);
        r.accept(OpKind.PartitaUnsqueeze, ExtensionKernels::share);
        r.accept(OpKind.PartitaCopy, ctx -> {
            double[] x = ctx.in(0).data();
            System.arraycopy(x, 0, ctx.out(0).data(), 0, x.length);
        });
        r.accept(OpKind.PartitaCompare, ctx -> compare(ctx.op().stringAttr("mode")).compute(ctx));
        r.accept(OpKind.PartitaCast, ExtensionKernels::cast);
        r.accept(OpKind.PartitaRange, ExtensionKernels::range);
    }

    /**
     * ONNX's Cast: floating point to integer truncates toward zero (the write then saturates and
     * maps NaN to 0); every other conversion is the write's rounding to the destination type.
     */
    private static void cast(RefContext ctx) {
        double[] x = ctx.in(0).data();
        double[] y = ctx.out(0).data();
        boolean truncate = ctx.in(0).type().isFloatingPoint() && ctx.out(0).type().isInteger();
        for (int i = 0; i < x.length; i++) {
            y[i] = truncate && Double.isFinite(x[i]) ? (x[i] < 0 ? Math.ceil(x[i]) : Math.floor(x[i])) : x[i];
        }
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
        long count = 1;
        for (int d = 0; d < rank; d++) {
            count *= reduced[d] ? dims[d] : 1;
        }
        double[] x = src.data();
        double[] y = ctx.out(0).data();
        int[] at = ReductionKernels.outputOffsets(dims, reduced);
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
        IndexParams.SliceAxis[] s = IndexParams.sliceAxes(src.dims(), ctx.in(1).toLongs(),
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
        long[][] p = IndexParams.padsPerAxis(src.rank(), ctx.in(1).toLongs(),
                ctx.hasInput(3) ? ctx.in(3).toLongs() : new long[0],
                w -> error(ctx, w));
        double value = ctx.in(2).data()[0];
        String mode = ctx.op().stringAttr("mode");
        gatherBy(ctx, src, (d, o) -> IndexParams.padSource(mode, o, p[d][0], dims[d]), value);
    }

    /** start + i * delta; the length was checked against the bounds by the runtime's shape inference. */
    private static void range(RefContext ctx) {
        long start = ctx.in(0).toLongs()[0];
        long limit = ctx.in(1).toLongs()[0];
        long delta = ctx.in(2).toLongs()[0];
        long n = ExtensionSchemas.rangeLength(start, limit, delta, w -> error(ctx, w));
        double[] y = ctx.out(0).data();
        if (y.length != n) {
            throw error(ctx, "start " + start + ", limit " + limit + " and delta " + delta + " give " + n
                    + " elements but the output has " + y.length);
        }
        for (int i = 0; i < y.length; i++) {
            y[i] = start + (double) i * delta;
        }
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

    // ---------------------------------------------------------------- Resize

    /**
     * ONNX's Resize, one axis at a time from the last resized axis to the first (so an extrapolated
     * inner position feeds the outer interpolation as ONNX's recursive definition does); every output
     * position of an axis maps to a source coordinate and a set of taps with weights.
     */
    private static void resize(RefContext ctx) {
        RefTensor src = ctx.in(0);
        long[] dims = src.dims();
        int rank = dims.length;
        boolean scalesIn = ExtensionSchemas.scalesInput(ctx.op());
        float[] scales = ctx.op().floatsAttr("scales");
        if (scalesIn) {
            double[] v = ctx.in(1).data();
            scales = new float[v.length];
            for (int i = 0; i < v.length; i++) {
                scales[i] = (float) v[i];
                if (!(scales[i] > 0) || !Float.isFinite(scales[i])) {
                    throw error(ctx, "scales " + java.util.Arrays.toString(v) + "; expected positive finite scales");
                }
            }
        }
        ExtensionSchemas.ResizePlan plan = ExtensionSchemas.resizePlan(dims, ctx.op().longsAttr("axes"), scales,
                ctx.hasInput(1) && !scalesIn ? ctx.in(1).toLongs() : new long[0],
                ctx.op().stringAttr("keep_aspect_ratio_policy"), w -> error(ctx, w));
        if (scalesIn && !java.util.Arrays.equals(plan.out(), ctx.outputDims(0))) {
            throw error(ctx, "scales " + java.util.Arrays.toString(scales) + " give the dims "
                    + java.util.Arrays.toString(plan.out()) + " but the model declares "
                    + java.util.Arrays.toString(ctx.outputDims(0)));
        }
        long[] axes = ctx.op().longsAttr("axes");
        double[] roi = ctx.hasInput(2) ? ctx.in(2).data() : null;
        if (roi != null && roi.length != 2L * (axes.length == 0 ? rank : axes.length)) {
            throw error(ctx, "roi has " + roi.length + " values; expected " + 2 * (axes.length == 0 ? rank
                    : axes.length) + " (starts then ends per axis)");
        }
        double[] cur = src.data();
        long[] curDims = dims.clone();
        for (int a = rank - 1; a >= 0; a--) {
            int k = axisPosition(axes, a, rank);
            if (k < 0) {
                continue;
            }
            double start = roi == null ? 0 : roi[k];
            double end = roi == null ? 1 : roi[k + roi.length / 2];
            Taps taps = taps(ctx, (int) dims[a], (int) plan.out()[a], plan.scale()[a], start, end);
            long outer = 1;
            for (int i = 0; i < a; i++) {
                outer *= curDims[i];
            }
            long inner = 1;
            for (int i = a + 1; i < rank; i++) {
                inner *= curDims[i];
            }
            int in = (int) curDims[a];
            int out = (int) plan.out()[a];
            double[] next = new double[Math.toIntExact(outer * out * inner)];
            double extrapolation = ctx.op().floatAttr("extrapolation_value");
            for (long o = 0; o < outer; o++) {
                for (int j = 0; j < out; j++) {
                    for (long i = 0; i < inner; i++) {
                        double v;
                        if (taps.outside[j]) {
                            v = extrapolation;
                        } else {
                            v = 0;
                            for (int t = 0; t < taps.index[j].length; t++) {
                                v += taps.weight[j][t] * cur[(int) ((o * in + taps.index[j][t]) * inner + i)];
                            }
                        }
                        next[(int) ((o * out + j) * inner + i)] = v;
                    }
                }
            }
            cur = next;
            curDims[a] = out;
        }
        double[] y = ctx.out(0).data();
        System.arraycopy(cur, 0, y, 0, y.length);
    }

    /** The position of src axis a in the axes attribute (all axes when empty), or -1. */
    private static int axisPosition(long[] axes, int a, int rank) {
        if (axes.length == 0) {
            return a;
        }
        for (int k = 0; k < axes.length; k++) {
            if (Math.floorMod(axes[k], rank) == a) {
                return k;
            }
        }
        return -1;
    }

    /** Per output position of one axis: source indices (clamped), their weights, or "outside" (extrapolate). */
    private record Taps(int[][] index, double[][] weight, boolean[] outside) {
    }

    private static Taps taps(RefContext ctx, int in, int out, double scale, double roiStart, double roiEnd) {
        String mode = ctx.op().stringAttr("mode");
        String coord = ctx.op().stringAttr("coordinate_transformation_mode");
        boolean antialias = ctx.op().boolAttr("antialias");
        boolean exclude = ctx.op().boolAttr("exclude_outside");
        double a = ctx.op().floatAttr("cubic_coeff_a");
        int[][] index = new int[out][];
        double[][] weight = new double[out][];
        boolean[] outside = new boolean[out];
        for (int j = 0; j < out; j++) {
            double x = switch (coord) {
                case "half_pixel" -> (j + 0.5) / scale - 0.5;
                case "half_pixel_symmetric" -> {
                    double adjustment = out / (scale * in);
                    double center = in / 2.0;
                    yield center * (1 - adjustment) + (j + 0.5) / scale - 0.5;
                }
                case "pytorch_half_pixel" -> out > 1 ? (j + 0.5) / scale - 0.5 : 0;
                case "align_corners" -> out == 1 ? 0 : (double) j * (in - 1) / (out - 1);
                case "asymmetric" -> j / scale;
                default -> out > 1 ? roiStart * (in - 1) + j * (roiEnd - roiStart) * (in - 1) / (out - 1)
                        : 0.5 * (roiStart + roiEnd) * (in - 1);
            };
            if (coord.equals("tf_crop_and_resize") && (x < 0 || x > in - 1)) {
                outside[j] = true;
                index[j] = new int[0];
                weight[j] = new double[0];
                continue;
            }
            if (mode.equals("nearest")) {
                double f = Math.floor(x);
                double frac = x - f;
                double r = switch (ctx.op().stringAttr("nearest_mode")) {
                    case "round_prefer_ceil" -> frac >= 0.5 ? f + 1 : f;
                    case "floor" -> f;
                    case "ceil" -> Math.ceil(x);
                    default -> frac > 0.5 ? f + 1 : f; // round_prefer_floor
                };
                index[j] = new int[] {(int) Math.clamp((long) r, 0, in - 1)};
                weight[j] = new double[] {1};
                continue;
            }
            // Taps base + i, i in [start, 2 - start), with ratio in (0, 1]: an integer x counts as the
            // right end of the interval before it.
            double fl = Math.floor(x);
            boolean integer = fl == x;
            long base = integer ? (long) x - 1 : (long) fl;
            double ratio = integer ? 1 : x - fl;
            double s = antialias ? Math.min(scale, 1) : 1;
            boolean linear = mode.equals("linear");
            int start = (int) Math.floor((linear ? -1 : -2) / s) + 1;
            int n = 2 - 2 * start;
            int[] idx = new int[n];
            double[] w = new double[n];
            double sum = 0;
            for (int t = 0; t < n; t++) {
                int i = start + t;
                double d = Math.abs((i - ratio) * s);
                w[t] = linear ? Math.max(0, 1 - d) : cubic(d, a);
                sum += w[t];
                long src = base + i;
                idx[t] = (int) Math.clamp(src, 0, in - 1);
                if (exclude && (src < 0 || src >= in)) {
                    w[t] = 0;
                }
            }
            if (antialias) {
                for (int t = 0; t < n; t++) {
                    w[t] /= sum;
                }
            }
            if (exclude) {
                double kept = 0;
                for (double v : w) {
                    kept += v;
                }
                for (int t = 0; t < n; t++) {
                    w[t] /= kept;
                }
            }
            index[j] = idx;
            weight[j] = w;
        }
        return new Taps(index, weight, outside);
    }

    /** Keys' cubic convolution kernel with coefficient a at distance d >= 0. */
    private static double cubic(double d, double a) {
        if (d <= 1) {
            return ((a + 2) * d - (a + 3)) * d * d + 1;
        }
        if (d < 2) {
            return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
        }
        return 0;
    }

    private static void share(RefContext ctx) {
        ctx.setOut(0, new RefTensor(ctx.op().output(0).dataType(), ctx.outputDims(0), ctx.in(0).data()));
    }

    /** Each line along the axis sorted by value (descending when largest), equal values by index. */
    private static void topK(RefContext ctx) {
        RefTensor src = ctx.in(0);
        int axis = (int) Math.floorMod(ctx.op().longAttr("axis"), src.rank());
        boolean largest = ctx.op().boolAttr("largest");
        long[] v = around(src.dims(), axis);
        int n = (int) v[1];
        int inner = (int) v[2];
        int k = (int) ctx.in(1).toLongs()[0];
        double[] x = src.data();
        double[] values = ctx.out(0).data();
        double[] indices = ctx.out(1).data();
        Integer[] order = new Integer[n];
        for (int o = 0; o < v[0]; o++) {
            for (int i = 0; i < inner; i++) {
                int base = o * n * inner + i;
                for (int t = 0; t < n; t++) {
                    order[t] = t;
                }
                java.util.Arrays.sort(order, (p, q) -> {
                    int c = Double.compare(x[base + p * inner], x[base + q * inner]);
                    return c != 0 ? (largest ? -c : c) : Integer.compare(p, q);
                });
                for (int t = 0; t < k; t++) {
                    values[(o * k + t) * inner + i] = x[base + order[t] * inner];
                    indices[(o * k + t) * inner + i] = order[t];
                }
            }
        }
    }

    private static void unary(RefContext ctx, java.util.function.DoubleUnaryOperator f) {
        double[] x = ctx.in(0).data();
        double[] y = ctx.out(0).data();
        for (int i = 0; i < x.length; i++) {
            y[i] = f.applyAsDouble(x[i]);
        }
    }

    /** The channels c - floor((size - 1) / 2) to c + ceil((size - 1) / 2) (within range) around each channel. */
    private static void lrn(RefContext ctx) {
        RefTensor src = ctx.in(0);
        long[] v = around(src.dims(), 1);
        int c = (int) v[1];
        int inner = (int) v[2];
        long size = ctx.op().longAttr("size");
        double alpha = ctx.op().floatAttr("alpha");
        double beta = ctx.op().floatAttr("beta");
        double bias = ctx.op().floatAttr("bias");
        long before = (size - 1) / 2;
        long after = size - 1 - before;
        double[] x = src.data();
        double[] y = ctx.out(0).data();
        for (int o = 0; o < v[0]; o++) {
            for (int ch = 0; ch < c; ch++) {
                for (int i = 0; i < inner; i++) {
                    double sq = 0;
                    for (long k = Math.max(0, ch - before); k <= Math.min(c - 1, ch + after); k++) {
                        double e = x[(int) ((o * c + k) * inner + i)];
                        sq += e * e;
                    }
                    int at = (o * c + ch) * inner + i;
                    y[at] = x[at] / Math.pow(bias + alpha / size * sq, beta);
                }
            }
        }
    }

    private static void cumSum(RefContext ctx) {
        RefTensor src = ctx.in(0);
        int rank = src.rank();
        long a = ctx.in(1).toLongs()[0];
        if (a < -rank || a >= rank) {
            throw error(ctx, "axis " + a + " is out of range for src " + java.util.Arrays.toString(src.dims())
                    + "; expected an axis in [" + -rank + ", " + (rank - 1) + "]");
        }
        long[] v = around(src.dims(), (int) Math.floorMod(a, rank));
        int n = (int) v[1];
        int inner = (int) v[2];
        boolean exclusive = ctx.op().boolAttr("exclusive");
        boolean reverse = ctx.op().boolAttr("reverse");
        double[] x = src.data();
        double[] y = ctx.out(0).data();
        for (int o = 0; o < v[0]; o++) {
            for (int i = 0; i < inner; i++) {
                double acc = 0;
                for (int t = 0; t < n; t++) {
                    int k = reverse ? n - 1 - t : t;
                    int at = (o * n + k) * inner + i;
                    if (exclusive) {
                        y[at] = acc;
                        acc += x[at];
                    } else {
                        acc += x[at];
                        y[at] = acc;
                    }
                }
            }
        }
    }
}
