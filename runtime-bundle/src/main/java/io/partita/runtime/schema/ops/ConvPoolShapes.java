package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;
import static io.partita.graph.LogicalTensor.dimsToString;
import static io.partita.runtime.schema.ops.ConvPoolGeometry.channelAxis;
import static io.partita.runtime.schema.ops.ConvPoolGeometry.dataDims;
import static io.partita.runtime.schema.ops.ConvPoolGeometry.dataSpatial;
import static io.partita.runtime.schema.ops.ConvPoolGeometry.weightsAxis;
import static io.partita.runtime.schema.ops.ConvPoolGeometry.weightsDims;
import static io.partita.runtime.schema.ops.ConvPoolGeometry.weightsSpatial;

import java.util.Arrays;

import io.partita.graph.Op;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.ShapeContext;

/**
 * Shape inference of convolutions, transposed convolutions, pooling and interpolation (forward
 * and backward), following oneDNN's rules: output spatial sizes from the input sizes, kernel,
 * strides, dilations and paddings ({@code auto_pad} resolved by {@link ConvPoolGeometry}); the
 * backward ops whose output cannot be derived from their inputs take it from a shape input
 * (values when known, else dynamic), a shape attribute, or the declared output.
 */
final class ConvPoolShapes {
    private ConvPoolShapes() {
    }

    /** The spatial attributes of one op, checked against the spatial rank of its data. */
    record Spatial(int ns, long[] strides, long[] dilations, long[] padsBegin, long[] padsEnd, String autoPad) {
    }

    private static Spatial spatial(ShapeContext ctx, int ns, String dataWhat, long[] dataDims, boolean hasKernelAttr) {
        Op op = ctx.op();
        long[] strides = lengthChecked(ctx, "strides", op.longsAttr("strides"), ns, dataWhat, dataDims, false);
        long[] dil = op.hasAttr("dilations")
                ? lengthChecked(ctx, "dilations", op.longsAttr("dilations"), ns, dataWhat, dataDims, true)
                : ones(ns);
        long[] pb = lengthChecked(ctx, "pads_begin", op.longsAttr("pads_begin"), ns, dataWhat, dataDims, false);
        long[] pe = lengthChecked(ctx, "pads_end", op.longsAttr("pads_end"), ns, dataWhat, dataDims, false);
        if (hasKernelAttr) {
            lengthChecked(ctx, "kernel", op.longsAttr("kernel"), ns, dataWhat, dataDims, false);
        }
        return new Spatial(ns, strides, dil, pb, pe, op.stringAttr("auto_pad"));
    }

    /**
     * An attribute with one value per spatial dim. Empty pads mean zeros (as oneDNN); a longer
     * list is accepted for {@code neutralTail} attributes (oneDNN's 12-long defaults) when the
     * extra values are neutral.
     */
    private static long[] lengthChecked(ShapeContext ctx, String name, long[] v, int ns, String dataWhat,
            long[] dataDims, boolean neutralTail) {
        if (v.length == ns) {
            return v;
        }
        if (v.length == 0 && name.startsWith("pads")) {
            return new long[ns];
        }
        if (neutralTail && v.length > ns) {
            return Arrays.copyOf(v, ns);
        }
        throw ctx.error("attribute " + name + " " + Arrays.toString(v) + " has " + v.length + " values but " + dataWhat
                + " " + dimsToString(dataDims) + " has " + ns + " spatial dims");
    }

    private static long[] ones(int n) {
        long[] a = new long[n];
        Arrays.fill(a, 1);
        return a;
    }

    private static long[] filled(int n, long v) {
        long[] a = new long[n];
        Arrays.fill(a, v);
        return a;
    }

    /** Checks a data input's rank is 3 to 5 (1 to 3 spatial dims). */
    private static void requireDataRank(ShapeContext ctx, int input, String what) {
        int r = ctx.rank(input);
        if (r != -1 && (r < 3 || r > 5)) {
            throw ctx.error(what + " (input " + input + ", tensor " + ctx.input(input).id() + ") has rank " + r + " "
                    + dimsToString(ctx.dims(input)) + "; expected rank 3 to 5 (N, C and 1 to 3 spatial dims)");
        }
    }

    private static void requireSameRank(ShapeContext ctx, int a, String aWhat, int b, String bWhat) {
        int ra = ctx.rank(a);
        int rb = ctx.rank(b);
        if (ra != -1 && rb != -1 && ra != rb) {
            throw ctx.error(aWhat + " " + dimsToString(ctx.dims(a)) + " and " + bWhat + " " + dimsToString(ctx.dims(b))
                    + " must have the same rank");
        }
    }

    /** Whether a computed size is a number (possibly a non-positive one), not a placeholder. */
    private static boolean isSize(long v) {
        return v != UNKNOWN_DIM && v != DYNAMIC_DIM;
    }

    /** A known output spatial size must be positive. */
    private static void requirePositive(ShapeContext ctx, long[] out, String what, long[] in) {
        for (int i = 0; i < out.length; i++) {
            if (isSize(out[i]) && out[i] < 1) {
                throw ctx.error(what + " spatial dim " + i + " would be " + out[i] + " (input spatial dims "
                        + dimsToString(in) + ", attributes strides/kernel/dilations/pads leave no window)");
            }
        }
    }

    private static void requireEqualDim(ShapeContext ctx, long a, long b, String message) {
        if (a >= 0 && b >= 0 && a != b) {
            throw ctx.error(message);
        }
    }

    private static long groups(ShapeContext ctx) {
        return ctx.op().hasAttr("groups") ? ctx.op().longAttr("groups") : 1;
    }

    /** Channels c split into g groups: c / g, or an error naming who has c. */
    private static long perGroup(ShapeContext ctx, long c, long g, String who) {
        if (c < 0) {
            return c;
        }
        if (c % g != 0) {
            throw ctx.error(who + " has " + c + " channels, not divisible by groups=" + g);
        }
        return c / g;
    }

    private static long times(long a, long b) {
        return Dims.combine(a, b, (x, y) -> x * y);
    }

    private static void checkBias(ShapeContext ctx, long channels) {
        if (!ctx.hasInput(2) || ctx.dims(2) == null) {
            return;
        }
        long[] b = ctx.dims(2);
        if (b.length != 1) {
            throw ctx.error("bias (input 2) " + dimsToString(b) + " must be 1-D with one value per output channel");
        }
        requireEqualDim(ctx, b[0], channels, "bias (input 2) " + dimsToString(b) + " has " + b[0]
                + " values but the output has " + channels + " channels");
    }

    // ---------------------------------------------------------------------------------------------
    // Convolution family

    /** Convolution: src [N, IC, X] (*) weights [OC, IC/g, K] -> dst [N, OC, convOut(X)]. */
    static void convolution(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "src");
        requireSameRank(ctx, 0, "src", 1, "weights");
        long[] src = ctx.dims(0);
        long[] w = ctx.dims(1);
        if (src == null) {
            return;
        }
        String fmt = op.stringAttr("data_format");
        String wfmt = op.stringAttr("weights_format");
        int rank = src.length;
        Spatial a = spatial(ctx, rank - 2, "src", src, false);
        long g = groups(ctx);
        long ic = src[channelAxis(fmt, rank)];
        long oc = w == null ? UNKNOWN_DIM : w[weightsAxis(wfmt, 'O', rank)];
        long wi = w == null ? UNKNOWN_DIM : w[weightsAxis(wfmt, 'I', rank)];
        long[] k = w == null ? filled(a.ns, UNKNOWN_DIM) : weightsSpatial(w, wfmt);
        long icg = perGroup(ctx, ic, g, "src " + dimsToString(src));
        requireEqualDim(ctx, icg, wi, "src " + dimsToString(src) + " has " + ic + " channels, so with groups=" + g
                + " the weights (" + wfmt + ") " + dimsToString(w) + " need " + icg + " input channels, not " + wi);
        perGroup(ctx, oc, g, "weights (" + wfmt + ") " + dimsToString(w) + " output-channel dim");
        checkBias(ctx, oc);
        long[] in = dataSpatial(src, fmt);
        long[] out = convOutputs(a, in, k);
        requirePositive(ctx, out, "dst", in);
        ctx.setOutput(0, dataDims(fmt, src[0], oc, out));
    }

    private static long[] convOutputs(Spatial a, long[] in, long[] k) {
        long[][] p = ConvPoolGeometry.resolvePads(a.autoPad, in, k, a.strides, a.dilations, a.padsBegin, a.padsEnd,
                false);
        long[] out = new long[a.ns];
        for (int i = 0; i < a.ns; i++) {
            out[i] = ConvPoolGeometry.convOut(in[i], k[i], a.strides[i], a.dilations[i], p[0][i], p[1][i]);
        }
        return out;
    }

    /**
     * Checks that convolving {@code srcSp} gives {@code dstSp} (the sizes a backward op's two
     * sides must agree on).
     */
    private static void checkConvSides(ShapeContext ctx, Spatial a, long[] srcSp, long[] k, long[] dstSp,
            String srcWhat, String dstWhat) {
        long[] expect = convOutputs(a, srcSp, k);
        for (int i = 0; i < a.ns; i++) {
            if (isSize(expect[i]) && dstSp[i] >= 0 && expect[i] != dstSp[i]) {
                throw ctx.error(dstWhat + " has spatial dims " + dimsToString(dstSp) + " but convolving " + srcWhat
                        + " spatial dims " + dimsToString(srcSp) + " with kernel " + dimsToString(k)
                        + " (strides, dilations, pads, auto_pad=" + a.autoPad + ") gives " + dimsToString(expect));
            }
        }
    }

    /**
     * The shape an op takes from a shape input or attribute: the input's values when known
     * (dynamic dims when not), else the attribute unless it is absent or all zeros (oneDNN's "not
     * given" default), else null.
     */
    private static long[] givenShape(ShapeContext ctx, int input, String attr, int rank) {
        if (ctx.hasInput(input)) {
            long[] d = ctx.dims(input);
            if (d != null && (d.length != 1 || rank != -1 && d[0] >= 0 && d[0] != rank)) {
                throw ctx.error(attr + " (input " + input + ") " + dimsToString(d) + " must be 1-D with "
                        + (rank == -1 ? "one value per output dim" : rank + " values"));
            }
            long[] v = ctx.values(input);
            if (v == null) {
                // Resolved by the declared output, else dynamic: see resolveOpen.
                return rank == -1 ? null : filled(rank, UNKNOWN_DIM);
            }
            checkShapeValues(ctx, v, attr + " (input " + input + ")", rank);
            return v.clone();
        }
        if (ctx.op().hasAttr(attr)) {
            long[] v = ctx.op().longsAttr(attr);
            if (Arrays.stream(v).allMatch(x -> x == 0)) {
                return null;
            }
            checkShapeValues(ctx, v, "attribute " + attr, rank);
            return v;
        }
        return null;
    }

    private static void checkShapeValues(ShapeContext ctx, long[] v, String what, int rank) {
        if (rank != -1 && v.length != rank) {
            throw ctx.error(what + " " + Arrays.toString(v) + " has " + v.length + " values; expected " + rank);
        }
        for (long x : v) {
            if (x <= 0) {
                throw ctx.error(what + " " + Arrays.toString(v) + " must hold positive sizes");
            }
        }
    }

    /**
     * Merges the dims an op's inputs imply for its output ({@code implied}, placeholders where they
     * say nothing) with a given shape: a contradiction is an error.
     */
    private static long[] mergeGiven(ShapeContext ctx, long[] implied, long[] given, String givenWhat) {
        if (given == null) {
            return implied;
        }
        if (given.length != implied.length) {
            throw ctx.error(givenWhat + " " + dimsToString(given) + " has rank " + given.length + " but the inputs give rank "
                    + implied.length);
        }
        long[] out = new long[given.length];
        for (int i = 0; i < given.length; i++) {
            if (given[i] == DYNAMIC_DIM) {
                out[i] = implied[i] >= 0 ? implied[i] : DYNAMIC_DIM;
                continue;
            }
            Long m = Dims.merge(implied[i], given[i]);
            if (m == null) {
                throw ctx.error(givenWhat + " " + dimsToString(given) + " contradicts the inputs, which give "
                        + dimsToString(implied) + " (dim " + i + ")");
            }
            out[i] = m;
        }
        return out;
    }

    private static int firstKnownRank(ShapeContext ctx, int... inputs) {
        for (int i : inputs) {
            if (ctx.hasInput(i) && ctx.rank(i) != -1) {
                return ctx.rank(i);
            }
        }
        return -1;
    }

    /** ConvolutionBackwardData: diff_dst, weights (, dst_shape) -> diff_src of the forward src's shape. */
    static void convolutionBackwardData(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "diff_dst");
        requireSameRank(ctx, 0, "diff_dst", 1, "weights");
        long[] dd = ctx.dims(0);
        long[] w = ctx.dims(1);
        int rank = firstKnownRank(ctx, 0, 1);
        long[] given = givenShape(ctx, 2, "dst_shape", rank);
        if (rank == -1) {
            rank = given == null ? -1 : given.length;
        }
        if (rank == -1) {
            return;
        }
        if (rank < 3 || rank > 5) {
            throw ctx.error("dst_shape " + dimsToString(given) + " has rank " + rank + "; expected 3 to 5");
        }
        String fmt = op.stringAttr("data_format");
        String wfmt = op.stringAttr("weights_format");
        Spatial a = spatial(ctx, rank - 2, dd != null ? "diff_dst" : "dst_shape", dd != null ? dd : given, false);
        if (op.hasAttr("output_padding")) {
            // Accepted and checked; the output sizes come from dst_shape, so it changes nothing.
            outputPadding(ctx, a.ns, dd != null ? "diff_dst" : "dst_shape", dd != null ? dd : given);
        }
        long g = groups(ctx);
        long oc = w == null ? UNKNOWN_DIM : w[weightsAxis(wfmt, 'O', rank)];
        long wi = w == null ? UNKNOWN_DIM : w[weightsAxis(wfmt, 'I', rank)];
        long[] k = w == null ? filled(a.ns, UNKNOWN_DIM) : weightsSpatial(w, wfmt);
        perGroup(ctx, oc, g, "weights (" + wfmt + ") " + dimsToString(w) + " output-channel dim");
        long n = dd == null ? UNKNOWN_DIM : dd[0];
        if (dd != null) {
            long ddc = dd[channelAxis(fmt, rank)];
            requireEqualDim(ctx, ddc, oc, "diff_dst " + dimsToString(dd) + " has " + ddc
                    + " channels but the weights (" + wfmt + ") " + dimsToString(w) + " have " + oc + " output channels");
        }
        long[] implied = dataDims(fmt, n, times(wi, g), filled(a.ns, UNKNOWN_DIM));
        long[] out = mergeGiven(ctx, implied, given, ctx.hasInput(2) ? "dst_shape (input 2)" : "attribute dst_shape");
        out = resolveOpen(ctx, out, 2);
        if (dd != null) {
            checkConvSides(ctx, a, dataSpatial(out, fmt), k, dataSpatial(dd, fmt), "diff_src", "diff_dst");
        }
        ctx.setOutput(0, out);
    }

    /**
     * Dims neither the inputs nor a given shape decide ({@code UNKNOWN_DIM}) come from the declared
     * output when it knows them (as oneDNN, where a known output shape wins over the shape input);
     * those still open are dynamic when a shape input will give them at execution.
     */
    private static long[] resolveOpen(ShapeContext ctx, long[] out, int shapeInput) {
        long[] d = ctx.declaredOutput(0).dims();
        boolean pending = ctx.hasInput(shapeInput) && ctx.values(shapeInput) == null;
        long[] r = out.clone();
        for (int i = 0; i < r.length; i++) {
            if (r[i] != UNKNOWN_DIM) {
                continue;
            }
            if (d != null && d.length == r.length && d[i] >= 0) {
                r[i] = d[i];
            } else if (pending) {
                r[i] = DYNAMIC_DIM;
            }
        }
        return r;
    }

    /** ConvolutionBackwardWeights: src, diff_dst (, weights_shape) -> diff_weights. */
    static void convolutionBackwardWeights(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "src");
        requireDataRank(ctx, 1, "diff_dst");
        requireSameRank(ctx, 0, "src", 1, "diff_dst");
        long[] src = ctx.dims(0);
        long[] dd = ctx.dims(1);
        int rank = firstKnownRank(ctx, 0, 1);
        long[] given = givenShape(ctx, 2, "weights_shape", rank);
        if (rank == -1) {
            rank = given == null ? -1 : given.length;
        }
        if (rank == -1) {
            return;
        }
        String fmt = op.stringAttr("data_format");
        String wfmt = op.stringAttr("weights_format");
        Spatial a = spatial(ctx, rank - 2, src != null ? "src" : "diff_dst", src != null ? src : dd, false);
        long g = groups(ctx);
        long ic = src == null ? UNKNOWN_DIM : src[channelAxis(fmt, rank)];
        long oc = dd == null ? UNKNOWN_DIM : dd[channelAxis(fmt, rank)];
        long icg = perGroup(ctx, ic, g, "src " + dimsToString(src));
        perGroup(ctx, oc, g, "diff_dst " + dimsToString(dd));
        if (src != null && dd != null) {
            requireEqualDim(ctx, src[0], dd[0], "src " + dimsToString(src) + " and diff_dst " + dimsToString(dd)
                    + " have different batch sizes");
        }
        long[] implied = weightsDims(wfmt, oc, icg, filled(a.ns, UNKNOWN_DIM));
        long[] out = mergeGiven(ctx, implied, given,
                ctx.hasInput(2) ? "weights_shape (input 2)" : "attribute weights_shape");
        out = resolveOpen(ctx, out, 2);
        if (src != null && dd != null) {
            checkConvSides(ctx, a, dataSpatial(src, fmt), weightsSpatial(out, wfmt), dataSpatial(dd, fmt), "src",
                    "diff_dst");
        }
        ctx.setOutput(0, out);
    }

    /**
     * ConvTranspose: src [N, IC, X] with weights IOX [IC, OC/g, K] (XOI [K, OC/g, IC]) -> dst
     * [N, OC, stride * (X - 1) + dilatedK + output_padding - pads].
     */
    static void convTranspose(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "src");
        requireSameRank(ctx, 0, "src", 1, "weights");
        long[] src = ctx.dims(0);
        long[] w = ctx.dims(1);
        if (src == null) {
            return;
        }
        String fmt = op.stringAttr("data_format");
        String wfmt = op.stringAttr("weights_format");
        int rank = src.length;
        Spatial a = spatial(ctx, rank - 2, "src", src, false);
        long[] op0 = outputPadding(ctx, a.ns, "src", src);
        long g = groups(ctx);
        long ic = src[channelAxis(fmt, rank)];
        long wi = w == null ? UNKNOWN_DIM : w[weightsAxis(wfmt, 'I', rank)];
        long wo = w == null ? UNKNOWN_DIM : w[weightsAxis(wfmt, 'O', rank)];
        long[] k = w == null ? filled(a.ns, UNKNOWN_DIM) : weightsSpatial(w, wfmt);
        perGroup(ctx, ic, g, "src " + dimsToString(src));
        requireEqualDim(ctx, ic, wi, "src " + dimsToString(src) + " has " + ic + " channels but the weights (" + wfmt
                + ") " + dimsToString(w) + " have " + wi + " input channels");
        long oc = times(wo, g);
        checkBias(ctx, oc);
        long[] in = dataSpatial(src, fmt);
        long[][] p = ConvPoolGeometry.resolvePads(a.autoPad, in, k, a.strides, a.dilations, a.padsBegin, a.padsEnd,
                true);
        long[] out = new long[a.ns];
        for (int i = 0; i < a.ns; i++) {
            out[i] = ConvPoolGeometry.convTransposeOut(in[i], k[i], a.strides[i], a.dilations[i], p[0][i], p[1][i],
                    op0[i]);
        }
        requirePositive(ctx, out, "dst", in);
        ctx.setOutput(0, dataDims(fmt, src[0], oc, out));
    }

    private static long[] outputPadding(ShapeContext ctx, int ns, String dataWhat, long[] data) {
        if (!ctx.op().hasAttr("output_padding")) {
            return new long[ns];
        }
        long[] v = ctx.op().longsAttr("output_padding");
        if (v.length > ns && Arrays.stream(v, ns, v.length).allMatch(x -> x == 0)) {
            return Arrays.copyOf(v, ns);
        }
        return lengthChecked(ctx, "output_padding", v, ns, dataWhat, data, false);
    }

    /** ConvTransposeBackwardData: diff_dst [N, OC, Y], weights -> diff_src [N, IC, convOut(Y)]. */
    static void convTransposeBackwardData(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "diff_dst");
        requireSameRank(ctx, 0, "diff_dst", 1, "weights");
        long[] dd = ctx.dims(0);
        long[] w = ctx.dims(1);
        if (dd == null) {
            return;
        }
        String fmt = op.stringAttr("data_format");
        String wfmt = op.stringAttr("weights_format");
        int rank = dd.length;
        Spatial a = spatial(ctx, rank - 2, "diff_dst", dd, false);
        if (op.hasAttr("output_padding")) {
            outputPadding(ctx, a.ns, "diff_dst", dd);
        }
        long g = groups(ctx);
        long occ = dd[channelAxis(fmt, rank)];
        long wi = w == null ? UNKNOWN_DIM : w[weightsAxis(wfmt, 'I', rank)];
        long wo = w == null ? UNKNOWN_DIM : w[weightsAxis(wfmt, 'O', rank)];
        long[] k = w == null ? filled(a.ns, UNKNOWN_DIM) : weightsSpatial(w, wfmt);
        long ocg = perGroup(ctx, occ, g, "diff_dst " + dimsToString(dd));
        requireEqualDim(ctx, ocg, wo, "diff_dst " + dimsToString(dd) + " has " + occ + " channels, so with groups=" + g
                + " the weights (" + wfmt + ") " + dimsToString(w) + " need " + ocg + " output channels, not " + wo);
        perGroup(ctx, wi, g, "weights (" + wfmt + ") " + dimsToString(w) + " input-channel dim");
        long[] in = dataSpatial(dd, fmt);
        long[] out = convOutputs(a, in, k);
        requirePositive(ctx, out, "diff_src", in);
        ctx.setOutput(0, dataDims(fmt, dd[0], wi, out));
    }

    /** ConvTransposeBackwardWeights: src, diff_dst (, weights_shape) -> diff_weights (IOX/XOI). */
    static void convTransposeBackwardWeights(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "src");
        requireDataRank(ctx, 1, "diff_dst");
        requireSameRank(ctx, 0, "src", 1, "diff_dst");
        long[] src = ctx.dims(0);
        long[] dd = ctx.dims(1);
        int rank = firstKnownRank(ctx, 0, 1);
        long[] given = givenShape(ctx, 2, "weights_shape", rank);
        if (rank == -1) {
            rank = given == null ? -1 : given.length;
        }
        if (rank == -1) {
            return;
        }
        String fmt = op.stringAttr("data_format");
        String wfmt = op.stringAttr("weights_format");
        Spatial a = spatial(ctx, rank - 2, src != null ? "src" : "diff_dst", src != null ? src : dd, false);
        if (op.hasAttr("output_padding")) {
            outputPadding(ctx, a.ns, src != null ? "src" : "diff_dst", src != null ? src : dd);
        }
        long g = groups(ctx);
        long ic = src == null ? UNKNOWN_DIM : src[channelAxis(fmt, rank)];
        long oc = dd == null ? UNKNOWN_DIM : dd[channelAxis(fmt, rank)];
        perGroup(ctx, ic, g, "src " + dimsToString(src));
        long ocg = perGroup(ctx, oc, g, "diff_dst " + dimsToString(dd));
        if (src != null && dd != null) {
            requireEqualDim(ctx, src[0], dd[0], "src " + dimsToString(src) + " and diff_dst " + dimsToString(dd)
                    + " have different batch sizes");
        }
        long[] implied = weightsDims(wfmt, ocg, ic, filled(a.ns, UNKNOWN_DIM));
        long[] out = mergeGiven(ctx, implied, given,
                ctx.hasInput(2) ? "weights_shape (input 2)" : "attribute weights_shape");
        out = resolveOpen(ctx, out, 2);
        if (src != null && dd != null) {
            checkConvSides(ctx, a, dataSpatial(dd, fmt), weightsSpatial(out, wfmt), dataSpatial(src, fmt), "diff_dst",
                    "src");
        }
        ctx.setOutput(0, out);
    }

    // ---------------------------------------------------------------------------------------------
    // Pooling

    private static long[] poolOutputs(Spatial a, long[] in, long[] kernel, boolean ceil) {
        long[][] p = ConvPoolGeometry.resolvePads(a.autoPad, in, kernel, a.strides, a.dilations, a.padsBegin,
                a.padsEnd, false);
        long[] out = new long[a.ns];
        for (int i = 0; i < a.ns; i++) {
            out[i] = ConvPoolGeometry.poolOut(in[i], kernel[i], a.strides[i], a.dilations[i], p[0][i], p[1][i], ceil);
        }
        return out;
    }

    /** AvgPool / MaxPool: src [N, C, X] -> dst [N, C, poolOut(X)]. */
    static void pool(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "src");
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        String fmt = op.stringAttr("data_format");
        Spatial a = spatial(ctx, src.length - 2, "src", src, true);
        long[] in = dataSpatial(src, fmt);
        long[] out = poolOutputs(a, in, op.longsAttr("kernel"), "ceil".equals(op.stringAttr("rounding_type")));
        requirePositive(ctx, out, "dst", in);
        ctx.setOutput(0, dataDims(fmt, src[0], src[channelAxis(fmt, src.length)], out));
    }

    /**
     * Checks a pooling backward's diff_dst against its src sizes: diff_dst must have the floor- or
     * ceil-rounded pooled sizes (the backward ops have no rounding_type).
     */
    private static void checkPoolSides(ShapeContext ctx, Spatial a, long[] srcSp, long[] kernel, long[] ddSp) {
        long[] floor = poolOutputs(a, srcSp, kernel, false);
        long[] ceil = poolOutputs(a, srcSp, kernel, true);
        for (int i = 0; i < a.ns; i++) {
            if (ddSp[i] >= 0 && isSize(floor[i]) && ddSp[i] != floor[i] && ddSp[i] != ceil[i]) {
                throw ctx.error("diff_dst has spatial dims " + dimsToString(ddSp) + " but pooling src spatial dims "
                        + dimsToString(srcSp) + " with kernel " + dimsToString(kernel) + " (strides, pads, auto_pad="
                        + a.autoPad + ") gives " + dimsToString(floor)
                        + (Arrays.equals(floor, ceil) ? "" : " (or " + dimsToString(ceil) + " rounding up)"));
            }
        }
    }

    /** AvgPoolBackward: diff_dst (, src_shape) -> diff_src of the forward src's shape. */
    static void avgPoolBackward(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "diff_dst");
        long[] dd = ctx.dims(0);
        int rank = firstKnownRank(ctx, 0);
        long[] given = givenShape(ctx, 1, "src_shape", rank);
        if (rank == -1) {
            rank = given == null ? -1 : given.length;
        }
        if (rank == -1) {
            return;
        }
        if (rank < 3 || rank > 5) {
            throw ctx.error("src_shape " + dimsToString(given) + " has rank " + rank + "; expected 3 to 5");
        }
        String fmt = op.stringAttr("data_format");
        Spatial a = spatial(ctx, rank - 2, dd != null ? "diff_dst" : "src_shape", dd != null ? dd : given, true);
        long[] implied = dd == null ? filled(rank, UNKNOWN_DIM)
                : dataDims(fmt, dd[0], dd[channelAxis(fmt, rank)], filled(a.ns, UNKNOWN_DIM));
        long[] out = mergeGiven(ctx, implied, given, ctx.hasInput(1) ? "src_shape (input 1)" : "attribute src_shape");
        out = resolveOpen(ctx, out, 1);
        if (dd != null) {
            checkPoolSides(ctx, a, dataSpatial(out, fmt), op.longsAttr("kernel"), dataSpatial(dd, fmt));
        }
        ctx.setOutput(0, out);
    }

    /** MaxPoolBackward: src, diff_dst -> diff_src with src's dims. */
    static void maxPoolBackward(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "src");
        requireDataRank(ctx, 1, "diff_dst");
        requireSameRank(ctx, 0, "src", 1, "diff_dst");
        long[] src = ctx.dims(0);
        long[] dd = ctx.dims(1);
        if (src == null) {
            return;
        }
        String fmt = op.stringAttr("data_format");
        Spatial a = spatial(ctx, src.length - 2, "src", src, true);
        if (dd != null) {
            int c = channelAxis(fmt, src.length);
            requireEqualDim(ctx, src[0], dd[0], "src " + dimsToString(src) + " and diff_dst " + dimsToString(dd)
                    + " have different batch sizes");
            requireEqualDim(ctx, src[c], dd[c], "src " + dimsToString(src) + " and diff_dst " + dimsToString(dd)
                    + " have different channel counts");
            checkPoolSides(ctx, a, dataSpatial(src, fmt), op.longsAttr("kernel"), dataSpatial(dd, fmt));
        }
        ctx.sameAsInput(0, 0);
    }

    // ---------------------------------------------------------------------------------------------
    // Interpolation

    /** Interpolate: src [N, C, X] (, sizes) -> dst [N, C, sizes or floor(X * scales)]. */
    static void interpolate(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "src");
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        String fmt = op.stringAttr("data_format");
        int ns = src.length - 2;
        long[] in = dataSpatial(src, fmt);
        long[] out = interpolatedSizes(ctx, ns, in, src, 1);
        requirePositive(ctx, out, "dst", in);
        ctx.setOutput(0, resolveOpen(ctx, dataDims(fmt, src[0], src[channelAxis(fmt, src.length)], out), 1));
    }

    /** The output spatial sizes of an interpolation: sizes input, sizes attribute, or scales. */
    private static long[] interpolatedSizes(ShapeContext ctx, int ns, long[] in, long[] src, int sizesInput) {
        Op op = ctx.op();
        if (ctx.hasInput(sizesInput)) {
            long[] d = ctx.dims(sizesInput);
            if (d != null && (d.length != 1 || d[0] >= 0 && d[0] != ns)) {
                throw ctx.error("sizes (input " + sizesInput + ") " + dimsToString(d) + " must be 1-D with " + ns
                        + " values, one per spatial dim of src " + dimsToString(src));
            }
            long[] v = ctx.values(sizesInput);
            if (v == null) {
                return filled(ns, UNKNOWN_DIM);
            }
            checkShapeValues(ctx, v, "sizes (input " + sizesInput + ")", ns);
            return v.clone();
        }
        if (op.hasAttr("sizes")) {
            long[] v = op.longsAttr("sizes");
            if (v.length != ns) {
                throw ctx.error("attribute sizes " + Arrays.toString(v) + " has " + v.length + " values but src "
                        + dimsToString(src) + " has " + ns + " spatial dims");
            }
            return v.clone();
        }
        float[] s = op.floatsAttr("scales");
        if (s.length != ns) {
            throw ctx.error("attribute scales " + Arrays.toString(s) + " has " + s.length + " values but src "
                    + dimsToString(src) + " has " + ns + " spatial dims");
        }
        long[] out = new long[ns];
        for (int i = 0; i < ns; i++) {
            out[i] = ConvPoolGeometry.scaledSize(in[i], s[i]);
        }
        return out;
    }

    /** InterpolateBackward: src, diff_dst (, sizes) -> diff_src with src's dims. */
    static void interpolateBackward(ShapeContext ctx) {
        Op op = ctx.op();
        requireDataRank(ctx, 0, "src");
        requireDataRank(ctx, 1, "diff_dst");
        requireSameRank(ctx, 0, "src", 1, "diff_dst");
        long[] src = ctx.dims(0);
        long[] dd = ctx.dims(1);
        if (src == null) {
            return;
        }
        String fmt = op.stringAttr("data_format");
        int ns = src.length - 2;
        if (dd != null) {
            int c = channelAxis(fmt, src.length);
            requireEqualDim(ctx, src[0], dd[0], "src " + dimsToString(src) + " and diff_dst " + dimsToString(dd)
                    + " have different batch sizes");
            requireEqualDim(ctx, src[c], dd[c], "src " + dimsToString(src) + " and diff_dst " + dimsToString(dd)
                    + " have different channel counts");
            // Sizes (exact) must match diff_dst; scales only decide the forward's sizes up to
            // rounding, and the computation uses the actual sizes, as oneDNN's.
            if (ctx.hasInput(2) || op.hasAttr("sizes")) {
                long[] sizes = interpolatedSizes(ctx, ns, dataSpatial(src, fmt), src, 2);
                long[] ddSp = dataSpatial(dd, fmt);
                for (int i = 0; i < ns; i++) {
                    requireEqualDim(ctx, sizes[i], ddSp[i], "diff_dst " + dimsToString(dd) + " has spatial dims "
                            + dimsToString(ddSp) + " but sizes are " + dimsToString(sizes));
                }
            }
        }
        ctx.sameAsInput(0, 0);
    }
}
