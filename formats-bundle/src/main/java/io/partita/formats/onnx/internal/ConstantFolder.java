package io.partita.formats.onnx.internal;

import java.util.Arrays;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.MemoryLimitException;

/**
 * Evaluates at import the nodes whose inputs are all constant and whose result is a small shape
 * or scalar computation (Constant, ConstantOfShape, Slice, Concat, Cast, reshapes, elementwise
 * arithmetic): the "Shape → Slice → Concat → Reshape" chains exported models use to compute
 * shapes, which oneDNN's op set could not express on s64 tensors anyway. Values are computed in
 * double and stored in the node's output type (exact for every integer below 2^53 and for float
 * values, which are rounded once to the output type as ONNX's float32 arithmetic would).
 */
final class ConstantFolder {
    /** The most elements a folded value holds: the largest array the JVM allocates. */
    static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;

    private ConstantFolder() {
    }

    /**
     * The element count of a value to fold, checked before any array is made: it must fit in one
     * Java array, and its doubles plus its encoded bytes in half the maximum heap (the import
     * holds the model and its other values beside it). A model may compute huge dims from small
     * constants (ConstantOfShape, broadcasting).
     */
    static int foldedElements(ImportContext ctx, DataType dt, long[] dims) {
        long n = 1;
        for (long d : dims) {
            if (d < 0) {
                throw ctx.invalid("the result would have dims " + Arrays.toString(dims) + "; expected dims >= 0");
            }
            n = n == 0 || d <= Long.MAX_VALUE / n ? n * d : Long.MAX_VALUE;
        }
        String item = "the value of " + ctx.where() + ", " + dt + LogicalTensor.dimsToString(dims) + ",";
        long perElement = Double.BYTES + Math.max(1, dt.bits() / 8);
        long bytes = n > Long.MAX_VALUE / perElement ? Long.MAX_VALUE : n * perElement;
        if (n > MAX_ELEMENTS) {
            throw new MemoryLimitException(item, bytes, MAX_ELEMENTS * perElement, item + " has "
                    + (n == Long.MAX_VALUE ? "more than " + Long.MAX_VALUE : Long.toString(n))
                    + " elements; a value folded at import is held in one Java array, at most " + MAX_ELEMENTS
                    + " elements");
        }
        long heap = Runtime.getRuntime().maxMemory() / 2;
        if (bytes > heap) {
            throw new MemoryLimitException(item, bytes, heap, item + " needs " + MemoryLimitException.formatBytes(bytes)
                    + " of heap to fold at import; at most half the maximum heap, "
                    + MemoryLimitException.formatBytes(heap) + ", is allowed (raise the heap with -Xmx)");
        }
        return (int) n;
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
                    ctx.hasInput(1) ? ctx.constant(1).toLongArray() : null));
            case "Unsqueeze" -> withDims(ctx.constant(0), ShapeTranslators.unsqueezeDims(ctx, ctx.constant(0).dims(),
                    ctx.constant(1).toLongArray()));
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
        long[] dims = ctx.constant(0).toLongArray();
        OnnxTensor v = ctx.tensorAttr("value");
        DataType dt = v == null ? DataType.F32 : v.dataType();
        double fill = v == null ? 0 : v.toDoubleArray()[0];
        double[] values = new double[foldedElements(ctx, dt, dims)];
        Arrays.fill(values, fill);
        return OnnxTensor.of("c", dt, dims, values);
    }

    private static OnnxTensor slice(ImportContext ctx) {
        OnnxTensor data = ctx.constant(0);
        long[] d = data.dims();
        long[] starts = ctx.constant(1).toLongArray();
        long[] ends = ctx.constant(2).toLongArray();
        long[] axes = ctx.hasInput(3) ? ctx.constant(3).toLongArray() : null;
        long[] steps = ctx.hasInput(4) ? ctx.constant(4).toLongArray() : null;
        int rank = d.length;
        long[] st = new long[rank];
        long[] step = new long[rank];
        long[] count = d.clone();
        Arrays.fill(step, 1);
        for (int k = 0; k < starts.length; k++) {
            int ax = (int) (axes == null ? k : axes[k] < 0 ? axes[k] + rank : axes[k]);
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

    private static OnnxTensor concat(ImportContext ctx) {
        long axis = ctx.intAttr("axis", 0);
        OnnxTensor first = ctx.constant(0);
        int rank = first.dims().length;
        int a = (int) (axis < 0 ? axis + rank : axis);
        long[] outDims = first.dims();
        outDims[a] = 0;
        for (int i = 0; i < ctx.inputCount(); i++) {
            outDims[a] += ctx.constant(i).dims()[a];
        }
        double[] out = new double[foldedElements(ctx, first.dataType(), outDims)];
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
        long[] shape = ctx.constant(1).toLongArray();
        boolean allowZero = ctx.intAttr("allowzero", 0) != 0;
        long[] d = x.dims();
        long known = 1;
        int infer = -1;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] == 0 && !allowZero) {
                shape[i] = d[i];
            }
            if (shape[i] == -1) {
                infer = i;
            } else {
                known *= shape[i];
            }
        }
        if (infer >= 0) {
            shape[infer] = known == 0 ? 0 : x.elementCount() / known;
        }
        return withDims(x, shape);
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
        long[] ad = a.dims();
        long[] bd = b.dims();
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
        double[] out = new double[foldedElements(ctx, a.dataType(), od)];
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
