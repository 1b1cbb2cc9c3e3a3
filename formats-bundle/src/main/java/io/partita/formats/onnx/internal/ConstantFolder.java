package io.partita.formats.onnx.internal;

import java.util.Arrays;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;

/**
 * Evaluates at import the nodes whose inputs are all constant and whose result is a small shape
 * or scalar computation (Constant, ConstantOfShape, Slice, Concat, Cast, reshapes, elementwise
 * arithmetic): the "Shape → Slice → Concat → Reshape" chains exported models use to compute
 * shapes, which oneDNN's op set could not express on s64 tensors anyway. Values are computed in
 * double and stored in the node's output type (exact for every integer below 2^53 and for float
 * values, which are rounded once to the output type as ONNX's float32 arithmetic would).
 */
final class ConstantFolder {
    /** The folds that compute on their inputs' values (the others only relabel dims). */
    private static final java.util.Set<String> COMPUTED = java.util.Set.of("Slice", "Concat", "Cast", "CastLike",
            "Add", "Sub", "Mul", "Div", "Neg", "Sqrt", "Reciprocal", "Gather", "Range");

    private ConstantFolder() {
    }

    /** Folds the current node if it can; false leaves it to its translator. */
    static boolean fold(ImportContext ctx) {
        String op = ctx.node().opType();
        if (op.equals("Constant")) {
            ctx.setConstantOutput(0, constant(ctx));
            return true;
        }
        if (!ctx.allInputsConstant() || ctx.inputCount() == 0) {
            return false;
        }
        if (COMPUTED.contains(op)) {
            for (int i = 0; i < ctx.inputCount(); i++) {
                if (ctx.hasInput(i) && ctx.constant(i).elementCount() > ImportContext.MAX_FOLDED_ELEMENTS) {
                    if (Translators.known(op)) {
                        return false; // computed at execution instead
                    }
                    throw ctx.unsupported("constant input " + i + " has " + ctx.constant(i).elementCount()
                            + " elements; at most " + ImportContext.MAX_FOLDED_ELEMENTS + " are computed on at import");
                }
            }
        }
        OnnxTensor r = switch (op) {
            case "ConstantOfShape" -> constantOfShape(ctx);
            case "Slice" -> slice(ctx);
            case "Concat" -> concat(ctx);
            case "Cast" -> cast(ctx, ShapeTranslators.castTarget(ctx, (int) ctx.intAttr("to", 0)));
            case "CastLike" -> cast(ctx, ctx.inputType(1));
            case "Identity" -> ctx.constant(0);
            case "Reshape" -> reshape(ctx);
            case "Flatten" -> withDims(ctx.constant(0), ShapeTranslators.flattenDims(ctx, ctx.constant(0).dims()));
            case "Squeeze" -> withDims(ctx.constant(0), ShapeTranslators.squeezeDims(ctx, ctx.constant(0).dims(),
                    ShapeTranslators.squeezeAxes(ctx, "Squeeze")));
            case "Unsqueeze" -> withDims(ctx.constant(0), ShapeTranslators.unsqueezeDims(ctx, ctx.constant(0).dims(),
                    ShapeTranslators.unsqueezeAxes(ctx)));
            case "Gather" -> gather(ctx);
            case "Range" -> range(ctx);
            case "Add" -> binary(ctx, Double::sum);
            case "Sub" -> binary(ctx, (a, b) -> a - b);
            case "Mul" -> binary(ctx, (a, b) -> a * b);
            case "Div" -> binary(ctx, (a, b) -> a / b);
            case "Neg" -> unary(ctx, a -> -a);
            case "Sqrt" -> unary(ctx, Math::sqrt);
            case "Reciprocal" -> unary(ctx, a -> 1 / a);
            default -> null;
        };
        if (r == null) {
            return false;
        }
        ctx.setConstantOutput(0, r);
        return true;
    }

    private static OnnxTensor constant(ImportContext ctx) {
        OnnxTensor v = ctx.tensorAttr("value");
        if (v != null) {
            return v;
        }
        if (ctx.hasAttr("value_float")) {
            return OnnxTensor.of("c", DataType.F32, new long[0], new double[] {ctx.floatAttr("value_float", 0)});
        }
        if (ctx.hasAttr("value_floats")) {
            float[] f = ctx.floatsAttr("value_floats", null);
            double[] d = new double[f.length];
            for (int i = 0; i < f.length; i++) {
                d[i] = f[i];
            }
            return OnnxTensor.of("c", DataType.F32, new long[] {f.length}, d);
        }
        if (ctx.hasAttr("value_int")) {
            return OnnxTensor.ofLongs("c", new long[0], new long[] {ctx.intAttr("value_int", 0)});
        }
        if (ctx.hasAttr("value_ints")) {
            long[] v2 = ctx.intsAttr("value_ints", null);
            return OnnxTensor.ofLongs("c", new long[] {v2.length}, v2);
        }
        throw ctx.unsupported("no value, value_float(s) or value_int(s) attribute (string and sparse constants "
                + "are not supported)");
    }

    private static OnnxTensor constantOfShape(ImportContext ctx) {
        long[] dims = ctx.intsInput(0, "shape");
        int n = (int) ctx.foldedCount(dims, "the output");
        OnnxTensor v = ctx.tensorAttr("value");
        if (v != null && v.elementCount() != 1) {
            throw ctx.invalid("attribute value " + v + " must hold exactly one element");
        }
        DataType dt = v == null ? DataType.F32 : v.dataType();
        double fill = v == null ? 0 : v.toDoubleArray()[0];
        double[] values = new double[n];
        Arrays.fill(values, fill);
        return OnnxTensor.of("c", dt, dims, values);
    }

    private static OnnxTensor slice(ImportContext ctx) {
        OnnxTensor data = ctx.constant(0);
        long[] d = data.dims();
        long[] starts;
        long[] ends;
        long[] axes;
        long[] steps;
        if (ctx.opset() < 10) { // Slice 1: attributes, no steps
            starts = ctx.intsAttr("starts", null);
            ends = ctx.intsAttr("ends", null);
            axes = ctx.intsAttr("axes", null);
            steps = null;
            if (starts == null || ends == null) {
                throw ctx.invalid("attributes starts and ends are required");
            }
        } else {
            starts = ctx.intsInput(1, "starts");
            ends = ctx.intsInput(2, "ends");
            axes = ctx.hasInput(3) ? ctx.intsInput(3, "axes") : null;
            steps = ctx.hasInput(4) ? ctx.intsInput(4, "steps") : null;
        }
        if (ends.length != starts.length || axes != null && axes.length != starts.length
                || steps != null && steps.length != starts.length) {
            throw ctx.invalid("starts " + Arrays.toString(starts) + ", ends " + Arrays.toString(ends)
                    + (axes != null ? ", axes " + Arrays.toString(axes) : "")
                    + (steps != null ? ", steps " + Arrays.toString(steps) : "") + " must have as many values");
        }
        int rank = d.length;
        long[] st = new long[rank];
        long[] step = new long[rank];
        long[] count = d.clone();
        boolean[] seen = new boolean[rank];
        Arrays.fill(step, 1);
        for (int k = 0; k < starts.length; k++) {
            int ax = ctx.axis(axes == null ? k : axes[k], rank, "axis");
            if (seen[ax]) {
                throw ctx.invalid("axes " + Arrays.toString(axes) + " name axis " + ax + " twice");
            }
            seen[ax] = true;
            long s = steps == null ? 1 : steps[k];
            if (s == 0) {
                throw ctx.invalid("steps must not be 0");
            }
            long dim = d[ax];
            long b = starts[k] < 0 ? starts[k] + dim : starts[k];
            long e = ends[k] < 0 ? ends[k] + dim : ends[k];
            if (s > 0) {
                b = Math.clamp(b, 0, dim);
                e = Math.clamp(e, 0, dim);
                count[ax] = Math.max(0, Math.ceilDiv(e - b, s));
            } else {
                b = Math.clamp(b, -1, dim - 1);
                e = Math.clamp(e, -1, dim - 1);
                count[ax] = Math.max(0, Math.ceilDiv(b - e, -s));
            }
            st[ax] = b;
            step[ax] = s;
        }
        double[] src = data.toDoubleArray();
        long n = 1;
        for (long c : count) {
            n *= c;
        }
        double[] out = new double[Math.toIntExact(n)];
        long[] strides = io.partita.graph.LogicalTensor.denseStrides(d);
        long[] idx = new long[rank];
        for (int i = 0; i < out.length; i++) {
            long off = 0;
            for (int k = 0; k < rank; k++) {
                off += (st[k] + idx[k] * step[k]) * strides[k];
            }
            out[i] = src[(int) off];
            for (int k = rank - 1; k >= 0; k--) {
                if (++idx[k] < count[k]) {
                    break;
                }
                idx[k] = 0;
            }
        }
        return encode(data.dataType(), count, out, data);
    }

    /** Gather of constants (shape arithmetic: Shape -> Gather): numpy's take along an axis. */
    /**
     * Range (11): start + i * delta for i in [0, max(ceil((limit - start) / delta), 0)); start, limit
     * and delta are scalars of one type. Integer arithmetic is exact in double below 2^53.
     */
    private static OnnxTensor range(ImportContext ctx) {
        IndexTranslators.checkStashType(ctx);
        String[] names = {"start", "limit", "delta"};
        double[] v = new double[3];
        DataType dt = ctx.constant(0).dataType();
        for (int i = 0; i < 3; i++) {
            OnnxTensor t = ctx.constant(i);
            if (t.elementCount() != 1 || t.dims().length > 1) {
                throw ctx.invalid(names[i] + " has dims " + io.partita.graph.LogicalTensor.dimsToString(t.dims())
                        + "; expected a scalar");
            }
            if (t.dataType() != dt) {
                throw ctx.invalid(names[i] + " is " + t.dataType() + " but start is " + dt
                        + "; expected one data type");
            }
            v[i] = t.toDoubleArray()[0];
        }
        if (v[2] == 0 || !Double.isFinite(v[0]) || !Double.isFinite(v[1]) || !Double.isFinite(v[2])) {
            throw ctx.invalid("start " + v[0] + ", limit " + v[1] + ", delta " + v[2]
                    + ": expected finite values and a delta other than 0");
        }
        long n = (long) Math.max(Math.ceil((v[1] - v[0]) / v[2]), 0);
        long[] dims = {n};
        double[] out = new double[(int) ctx.foldedCount(dims, "the output")];
        for (int i = 0; i < out.length; i++) {
            out[i] = v[0] + i * v[2];
        }
        return encode(dt, dims, out, ctx.constant(0));
    }

    private static OnnxTensor gather(ImportContext ctx) {
        OnnxTensor data = ctx.constant(0);
        OnnxTensor indices = ctx.constant(1);
        if (indices.dataType() != DataType.S64 && indices.dataType() != DataType.S32) {
            throw ctx.invalid("indices are " + indices.dataType() + "; expected int64 or int32");
        }
        long[] d = data.dims();
        if (d.length == 0) {
            throw ctx.invalid("data is a scalar; Gather needs rank >= 1");
        }
        int a = ctx.axis(ctx.intAttr("axis", 0), d.length, "axis");
        long[] id = indices.dims();
        long[] od = new long[d.length - 1 + id.length];
        System.arraycopy(d, 0, od, 0, a);
        System.arraycopy(id, 0, od, a, id.length);
        System.arraycopy(d, a + 1, od, a + id.length, d.length - a - 1);
        double[] out = new double[(int) ctx.foldedCount(od, "the output")];
        long[] idx = indices.toLongArray();
        double[] src = data.toDoubleArray();
        long outer = 1;
        for (int k = 0; k < a; k++) {
            outer *= d[k];
        }
        long inner = 1;
        for (int k = a + 1; k < d.length; k++) {
            inner *= d[k];
        }
        int pos = 0;
        for (long o = 0; o < outer; o++) {
            for (long i : idx) {
                long j = i < 0 ? i + d[a] : i;
                if (j < 0 || j >= d[a]) {
                    throw ctx.invalid("index " + i + " is out of range for axis " + a + " of size " + d[a]);
                }
                System.arraycopy(src, (int) ((o * d[a] + j) * inner), out, pos, (int) inner);
                pos += (int) inner;
            }
        }
        return encode(data.dataType(), od, out, data);
    }

    private static OnnxTensor concat(ImportContext ctx) {
        long axis = ctx.intAttr("axis", Long.MIN_VALUE);
        if (axis == Long.MIN_VALUE) {
            throw ctx.invalid("attribute axis is required");
        }
        OnnxTensor first = ctx.constant(0);
        int rank = first.dims().length;
        if (rank == 0) {
            throw ctx.invalid("input 0 is a scalar; Concat needs inputs of rank >= 1");
        }
        int a = ctx.axis(axis, rank, "axis");
        long[] outDims = first.dims();
        outDims[a] = 0;
        for (int i = 0; i < ctx.inputCount(); i++) {
            OnnxTensor c = ctx.constant(i);
            long[] cd = c.dims();
            boolean fits = cd.length == rank && c.dataType() == first.dataType();
            for (int k = 0; fits && k < rank; k++) {
                fits = k == a || cd[k] == outDims[k];
            }
            if (!fits) {
                throw ctx.invalid("input " + i + " " + c.dataType() + LogicalTensor.dimsToString(cd)
                        + " does not fit input 0 " + first.dataType() + LogicalTensor.dimsToString(first.dims())
                        + ": Concat needs one data type and equal dims except on axis " + a);
            }
            outDims[a] = cd[a] > Long.MAX_VALUE - outDims[a] ? Long.MAX_VALUE : outDims[a] + cd[a];
        }
        double[] out = new double[(int) ctx.foldedCount(outDims, "the output")];
        long outer = 1;
        for (int k = 0; k < a; k++) {
            outer *= outDims[k]; // at most the element count checked above
        }
        int pos = 0;
        double[][] parts = new double[ctx.inputCount()][];
        long[] inner = new long[ctx.inputCount()];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = ctx.constant(i).toDoubleArray();
            inner[i] = outer == 0 ? 0 : parts[i].length / outer;
        }
        for (long o = 0; o < outer; o++) {
            for (int i = 0; i < parts.length; i++) {
                System.arraycopy(parts[i], (int) (o * inner[i]), out, pos, (int) inner[i]);
                pos += (int) inner[i];
            }
        }
        return encode(first.dataType(), outDims, out, first);
    }

    /** Float to integer casts truncate toward zero (C semantics, as ONNX's reference). */
    private static OnnxTensor cast(ImportContext ctx, DataType to) {
        ctx.intAttr("saturate", 1);
        ctx.stringAttr("round_mode", "up");
        OnnxTensor x = ctx.constant(0);
        double[] v = x.toDoubleArray();
        if (!to.isFloatingPoint() && to != DataType.BOOLEAN) {
            for (int i = 0; i < v.length; i++) {
                v[i] = v[i] < 0 ? Math.ceil(v[i]) : Math.floor(v[i]);
            }
        }
        if (to == DataType.S64 && x.dataType() == DataType.S64) {
            return x;
        }
        return OnnxTensor.of("c", to, x.dims(), v);
    }

    private static OnnxTensor reshape(ImportContext ctx) {
        OnnxTensor x = ctx.constant(0);
        long[] shape = ctx.intsInput(1, "shape");
        boolean allowZero = ctx.intAttr("allowzero", 0) != 0;
        return withDims(x, ShapeTranslators.reshapeDims(ctx, x.dims(), shape, allowZero));
    }

    private static OnnxTensor withDims(OnnxTensor x, long[] dims) {
        return new OnnxTensor(x.name(), x.dataType(), dims, x.data());
    }

    private static OnnxTensor unary(ImportContext ctx, DoubleUnaryOperator f) {
        OnnxTensor x = ctx.constant(0);
        double[] v = x.toDoubleArray();
        for (int i = 0; i < v.length; i++) {
            v[i] = f.applyAsDouble(v[i]);
        }
        return encode(x.dataType(), x.dims(), v, x);
    }

    /** numpy broadcasting of two constants; integer results truncate toward zero (ONNX integer Div). */
    private static OnnxTensor binary(ImportContext ctx, DoubleBinaryOperator f) {
        OnnxTensor a = ctx.constant(0);
        OnnxTensor b = ctx.constant(1);
        if (a.dataType() != b.dataType()) {
            throw ctx.invalid("inputs have data types " + a.dataType() + " and " + b.dataType()
                    + "; ONNX requires them equal");
        }
        long[] ad = a.dims();
        long[] bd = b.dims();
        if (ctx.opVersion() >= 0 && ctx.opVersion() < 7) {
            bd = ElementwiseTranslators.legacyBroadcastDims(ctx, ad, bd, ctx.intAttr("broadcast", 0) != 0,
                    ctx.intAttr("axis", Long.MIN_VALUE));
        }
        int rank = Math.max(ad.length, bd.length);
        long[] od = new long[rank];
        for (int i = 0; i < rank; i++) {
            long x = i - (rank - ad.length) >= 0 ? ad[i - (rank - ad.length)] : 1;
            long y = i - (rank - bd.length) >= 0 ? bd[i - (rank - bd.length)] : 1;
            if (x != y && x != 1 && y != 1) {
                throw ctx.invalid("shapes " + Arrays.toString(ad) + " and " + Arrays.toString(bd) + " do not broadcast");
            }
            od[i] = Math.max(x, y) == 1 ? Math.min(x, y) : Math.max(x, y);
        }
        double[] out = new double[(int) ctx.foldedCount(od, "the output")];
        double[] av = a.toDoubleArray();
        double[] bv = b.toDoubleArray();
        long[] idx = new long[rank];
        boolean integer = !a.dataType().isFloatingPoint();
        for (int i = 0; i < out.length; i++) {
            double r = f.applyAsDouble(av[(int) offset(idx, ad, rank)], bv[(int) offset(idx, bd, rank)]);
            out[i] = integer ? (r < 0 ? Math.ceil(r) : Math.floor(r)) : r;
            for (int k = rank - 1; k >= 0; k--) {
                if (++idx[k] < od[k]) {
                    break;
                }
                idx[k] = 0;
            }
        }
        return encode(a.dataType(), od, out, a);
    }

    private static long offset(long[] idx, long[] dims, int rank) {
        long off = 0;
        int shift = rank - dims.length;
        for (int k = 0; k < dims.length; k++) {
            off = off * dims[k] + (dims[k] == 1 ? 0 : idx[k + shift]);
        }
        return off;
    }

    /** s64 results go through longs so values above 2^53 that were not computed on stay exact. */
    private static OnnxTensor encode(DataType dt, long[] dims, double[] v, OnnxTensor like) {
        if (dt == DataType.S64) {
            long[] l = new long[v.length];
            for (int i = 0; i < v.length; i++) {
                l[i] = (long) v[i];
            }
            return OnnxTensor.ofLongs(like.name(), dims, l);
        }
        return OnnxTensor.of(like.name(), dt, dims, v);
    }
}
