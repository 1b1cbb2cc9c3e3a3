package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.internal.Translators.v;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/**
 * Data movement and shape ops: Reshape (StaticReshape for a constant shape, DynamicReshape
 * otherwise), Flatten, Squeeze, Unsqueeze, Transpose, Concat, Cast, CastLike, Identity, and Shape /
 * Size, which become constants since every shape is known at import.
 */
final class ShapeTranslators {
    private ShapeTranslators() {
    }

    static void register(Map<String, NavigableMap<Integer, NodeTranslator>> m) {
        // Reshape 5 takes the shape as an input (1 had an attribute, before opset 5); allowzero from 14.
        Translators.add(m, "Reshape", v(5, 13, 14, 19, 21), ShapeTranslators::reshape);
        Translators.add(m, "Flatten", v(1, 9, 11, 13, 21), ShapeTranslators::flatten);
        // Squeeze / Unsqueeze before 13: axes attribute; from 13: axes input.
        Translators.add(m, "Squeeze", v(1, 11, 13, 21), ShapeTranslators::squeeze);
        Translators.add(m, "Unsqueeze", v(1, 11, 13, 21), ShapeTranslators::unsqueeze);
        Translators.add(m, "Transpose", v(1, 13, 21), ShapeTranslators::transpose);
        Translators.add(m, "Concat", v(4, 11, 13), ShapeTranslators::concat);
        Translators.add(m, "Cast", v(6, 9, 13, 19, 21), ShapeTranslators::cast);
        Translators.add(m, "CastLike", v(15, 19, 21), ShapeTranslators::castLike);
        Translators.add(m, "Identity", v(1, 13, 14, 16, 19, 21), ShapeTranslators::identity);
        Translators.add(m, "Shape", v(1, 13, 15, 19, 21), ShapeTranslators::shape);
        Translators.add(m, "Size", v(1, 13, 19, 21), ShapeTranslators::size);
    }

    static LogicalTensor staticReshape(ImportContext ctx, LogicalTensor x, long[] dims) {
        if (Arrays.equals(x.dims(), dims) && x.property() != io.partita.graph.PropertyType.CONSTANT) {
            return x;
        }
        return ctx.emit1(OpKind.StaticReshape, List.of(x), x.dataType(),
                b -> b.attr("shape", dims).attr("special_zero", false));
    }

    private static void reshape(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        boolean allowZero = ctx.intAttr("allowzero", 0) != 0;
        if (ctx.isConstant(1)) {
            long[] shape = ctx.intsInput(1, "shape");
            ctx.setOutput(0, ctx.emit1(OpKind.StaticReshape, List.of(x), x.dataType(),
                    b -> b.attr("shape", shape).attr("special_zero", !allowZero)));
        } else {
            LogicalTensor shape = ctx.input(1);
            ctx.setOutput(0, ctx.emit1(OpKind.DynamicReshape, List.of(x, shape), x.dataType(),
                    b -> b.attr("special_zero", !allowZero)));
        }
    }

    /**
     * The dims ONNX Reshape gives: 0 copies the input dim (unless allowzero), one -1 is inferred, the
     * element count must stay the same.
     */
    static long[] reshapeDims(ImportContext ctx, long[] d, long[] shape, boolean allowZero) {
        long[] out = shape.clone();
        int infer = -1;
        long known = 1;
        boolean overflow = false;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == 0 && !allowZero) {
                if (i >= d.length) {
                    throw ctx.invalid("shape " + Arrays.toString(shape) + " copies dim " + i + " (0) of an input of "
                            + "rank " + d.length);
                }
                out[i] = d[i];
            }
            if (out[i] == -1 && infer < 0) {
                infer = i;
            } else if (out[i] < 0) {
                throw ctx.invalid("shape " + Arrays.toString(shape) + " has dim " + out[i] + " at " + i
                        + "; expected >= 0 or one -1");
            } else if (out[i] != 0 && known > Long.MAX_VALUE / out[i]) {
                overflow = true;
            } else {
                known *= out[i];
            }
        }
        // A product with a zero factor is zero even where it wrapped, and a value's count fits a long.
        long count = 1;
        for (long x : d) {
            count *= x;
        }
        if (known == 0) {
            overflow = false;
        }
        if (infer >= 0 ? overflow || known == 0 || count % known != 0 : overflow || known != count) {
            throw ctx.invalid("input of dims " + LogicalTensor.dimsToString(d) + " (" + count + " elements) cannot "
                    + "be reshaped to " + Arrays.toString(shape));
        }
        if (infer >= 0) {
            out[infer] = count / known;
        }
        return out;
    }

    static long[] flattenDims(ImportContext ctx, long[] d) {
        long axis = ctx.intAttr("axis", 1);
        // Flatten's axis may equal the rank (everything goes to the outer dim).
        if (axis < -d.length || axis > d.length) {
            throw ctx.invalid("axis " + axis + " is out of range [" + -d.length + ", " + d.length + "] for rank "
                    + d.length);
        }
        int a = (int) (axis < 0 ? axis + d.length : axis);
        long outer = 1;
        long inner = 1;
        try {
            for (int i = 0; i < d.length; i++) {
                if (i < a) {
                    outer = Math.multiplyExact(outer, d[i]);
                } else {
                    inner = Math.multiplyExact(inner, d[i]);
                }
            }
        } catch (ArithmeticException e) {
            throw ctx.invalid("flattening " + LogicalTensor.dimsToString(d) + " at axis " + a
                    + " gives a dim above 2^63-1");
        }
        return new long[] {outer, inner};
    }

    private static void flatten(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        ctx.setOutput(0, staticReshape(ctx, x, flattenDims(ctx, ctx.rankedDims(x, "input"))));
    }

    static long[] squeezeDims(ImportContext ctx, long[] d, long[] axes) {
        List<Long> out = new ArrayList<>();
        boolean[] drop = new boolean[d.length];
        if (axes == null) {
            for (int i = 0; i < d.length; i++) {
                drop[i] = d[i] == 1;
            }
        } else {
            for (long ax : axes) {
                int a = ctx.axis(ax, d.length, "axis");
                if (d[a] != 1) {
                    throw ctx.invalid("cannot squeeze axis " + ax + " of " + LogicalTensor.dimsToString(d));
                }
                drop[a] = true;
            }
        }
        for (int i = 0; i < d.length; i++) {
            if (!drop[i]) {
                out.add(d[i]);
            }
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    static long[] unsqueezeDims(ImportContext ctx, long[] d, long[] axes) {
        int rank = d.length + axes.length;
        boolean[] added = new boolean[rank];
        for (long ax : axes) {
            int a = ctx.axis(ax, rank, "axis");
            if (added[a]) {
                throw ctx.invalid("axes " + Arrays.toString(axes) + " name axis " + a + " twice");
            }
            added[a] = true;
        }
        long[] out = new long[rank];
        for (int i = 0, k = 0; i < rank; i++) {
            out[i] = added[i] ? 1 : d[k++];
        }
        return out;
    }

    /** Squeeze's axes: the attribute before version 13, else the constant input (null: all 1 dims). */
    static long[] squeezeAxes(ImportContext ctx, String op) {
        if (ctx.opset() < 13) {
            return ctx.intsAttr("axes", null);
        }
        if (!ctx.hasInput(1)) {
            return null;
        }
        if (!ctx.isConstant(1)) {
            throw ctx.unsupported("axes given at run time: the output shape of " + op + " would be dynamic");
        }
        return ctx.intsInput(1, "axes");
    }

    static long[] unsqueezeAxes(ImportContext ctx) {
        long[] axes = squeezeAxes(ctx, "Unsqueeze");
        if (axes == null) {
            throw ctx.invalid(ctx.opset() < 13 ? "attribute axes is required" : "input axes is required");
        }
        return axes;
    }

    /** Squeeze / Unsqueeze from 13 with axes known only at execution: the extension op. */
    private static boolean runtimeAxes(ImportContext ctx, OpKind kind) {
        if (ctx.opset() < 13 || !ctx.hasInput(1) || ctx.isConstant(1)) {
            return false;
        }
        LogicalTensor x = ctx.input(0);
        ctx.rankedDims(x, "input");
        LogicalTensor axes = ctx.input(1);
        long[] ad = axes.dims();
        if (ad == null || ad.length != 1 || ad[0] < 0) {
            throw ctx.invalid("axes has dims " + LogicalTensor.dimsToString(ad) + "; expected a 1-D tensor of known "
                    + "length");
        }
        ctx.setOutput(0, ctx.emit1(kind, List.of(x, axes), x.dataType(), b -> { }));
        return true;
    }

    private static void squeeze(ImportContext ctx) {
        if (runtimeAxes(ctx, OpKind.PartitaSqueeze)) {
            return;
        }
        LogicalTensor x = ctx.input(0);
        ctx.setOutput(0, staticReshape(ctx, x, squeezeDims(ctx, ctx.rankedDims(x, "input"),
                squeezeAxes(ctx, "Squeeze"))));
    }

    private static void unsqueeze(ImportContext ctx) {
        if (runtimeAxes(ctx, OpKind.PartitaUnsqueeze)) {
            return;
        }
        LogicalTensor x = ctx.input(0);
        long[] axes = unsqueezeAxes(ctx);
        ctx.setOutput(0, staticReshape(ctx, x, unsqueezeDims(ctx, ctx.rankedDims(x, "input"), axes)));
    }

    private static void transpose(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        int rank = ctx.rankedDims(x, "input").length;
        long[] rev = new long[rank];
        for (int i = 0; i < rank; i++) {
            rev[i] = rank - 1 - i;
        }
        long[] perm = ctx.intsAttr("perm", rev);
        ctx.setOutput(0, ctx.emit1(OpKind.StaticTranspose, List.of(x), x.dataType(), b -> b.attr("order", perm)));
    }

    private static void concat(ImportContext ctx) {
        List<LogicalTensor> ins = new ArrayList<>();
        for (int i = 0; i < ctx.inputCount(); i++) {
            if (ctx.hasInput(i)) {
                ins.add(ctx.input(i));
            }
        }
        long axis = ctx.intAttr("axis", Long.MIN_VALUE);
        if (axis == Long.MIN_VALUE) {
            throw ctx.invalid("attribute axis is required");
        }
        if (ins.isEmpty()) {
            throw ctx.invalid("Concat needs at least one input");
        }
        int rank = ctx.rankedDims(ins.get(0), "input 0").length;
        long a = axis < 0 ? axis + rank : axis;
        ctx.setOutput(0, ctx.emit1(OpKind.Concat, ins, ins.get(0).dataType(), b -> b.attr("axis", a)));
    }

    static DataType castTarget(ImportContext ctx, int onnxType) {
        if (!OnnxTypes.known(onnxType)) {
            throw ctx.invalid("attribute to = " + onnxType + " is not an ONNX data type");
        }
        DataType to = OnnxTypes.toPartita(onnxType);
        if (to == null) {
            throw ctx.unsupported("cast to " + OnnxTypes.name(onnxType) + ": Partita has no such data type");
        }
        return to;
    }

    /**
     * Cast. Between f32, bf16 and f16: TypeCast. Float8 and 4-bit types are quantization types in
     * oneDNN's op set, so casts from them are Dequantize / DynamicDequantize with scale 1 (exact),
     * and casts to float8 are Quantize with scale 1 where oneDNN's conversion gives what ONNX's
     * saturate mode asks: f8_e4m3 saturates to +-448 (ONNX saturate = 1), f8_e5m2 overflows to
     * infinity (ONNX saturate = 0). Float to integer casts truncate in ONNX while Quantize rounds:
     * refused, except to or from Partita's extension types (f64, s16, u16, u64), which PartitaCast
     * converts on the reference backend.
     */
    private static void cast(ImportContext ctx) {
        DataType to = castTarget(ctx, (int) ctx.intAttr("to", 0));
        boolean saturate = ctx.intAttr("saturate", 1) != 0;
        String round = ctx.stringAttr("round_mode", "up");
        if (!round.equals("up")) {
            throw ctx.unsupported("round_mode = '" + round + "'");
        }
        castTo(ctx, ctx.input(0), to, saturate);
    }

    private static void castLike(ImportContext ctx) {
        boolean saturate = ctx.intAttr("saturate", 1) != 0;
        ctx.stringAttr("round_mode", "up");
        castTo(ctx, ctx.input(0), ctx.inputType(1), saturate);
    }

    private static boolean isExtensionType(DataType t) {
        return t == DataType.F64 || t == DataType.S16 || t == DataType.U16 || t == DataType.U64;
    }

    private static boolean isFloat(DataType t) {
        return t == DataType.F32 || t == DataType.BF16 || t == DataType.F16;
    }

    private static void castTo(ImportContext ctx, LogicalTensor x, DataType to, boolean saturate) {
        DataType from = x.dataType();
        if (from == to) {
            ctx.setOutput(0, x);
            return;
        }
        if (isFloat(from) && isFloat(to)) {
            ctx.setOutput(0, floatCast(ctx, x, to));
            return;
        }
        if (isExtensionType(from) || isExtensionType(to)) {
            // Types oneDNN lacks: only the reference backend converts them, with ONNX's semantics.
            ctx.setOutput(0, ctx.emit1(OpKind.PartitaCast, List.of(x), to, b -> { }));
            return;
        }
        if ((from == DataType.F8_E4M3 || from == DataType.F8_E5M2 || from == DataType.S8 || from == DataType.U8)
                && isFloat(to)) {
            LogicalTensor f = ctx.emit1(OpKind.Dequantize, List.of(x), DataType.F32,
                    b -> b.attr("scales", new float[] {1f}).attr("qtype", "per_tensor"));
            ctx.setOutput(0, floatCast(ctx, f, to));
            return;
        }
        if ((from == DataType.S4 || from == DataType.U4) && isFloat(to)) {
            LogicalTensor one = ctx.scalar(DataType.F32, 1);
            LogicalTensor f = ctx.emit1(OpKind.DynamicDequantize, List.of(x, one), DataType.F32,
                    b -> b.attr("qtype", "per_tensor"));
            ctx.setOutput(0, floatCast(ctx, f, to));
            return;
        }
        if (isFloat(from) && (to == DataType.F8_E4M3 || to == DataType.F8_E5M2)) {
            if (to == DataType.F8_E4M3 && !saturate) {
                throw ctx.unsupported("saturate = 0 to " + to + ": ONNX gives NaN on overflow, oneDNN's "
                        + "conversion saturates to +-448");
            }
            if (to == DataType.F8_E5M2 && saturate) {
                throw ctx.unsupported("saturate = 1 to " + to + ": ONNX clamps to +-57344, oneDNN's conversion "
                        + "overflows to infinity");
            }
            LogicalTensor f = floatCast(ctx, x, DataType.F32);
            ctx.setOutput(0, ctx.emit1(OpKind.Quantize, List.of(f), to,
                    b -> b.attr("scales", new float[] {1f}).attr("qtype", "per_tensor")));
            return;
        }
        throw ctx.unsupported("cast " + from + " -> " + to + ": oneDNN's TypeCast converts between f32, bf16 "
                + "and f16, Dequantize from f8/s8/u8/s4/u4 and Quantize to f8; float to integer casts "
                + "truncate in ONNX but round in Quantize");
    }

    private static LogicalTensor floatCast(ImportContext ctx, LogicalTensor x, DataType to) {
        DataType from = x.dataType();
        if (from == to) {
            return x;
        }
        if (from == DataType.BF16 && to == DataType.F16 || from == DataType.F16 && to == DataType.BF16) {
            // oneDNN converts through f32 only; f32 holds every bf16 and f16 value, so this rounds once.
            LogicalTensor f = ctx.emit1(OpKind.TypeCast, List.of(x), DataType.F32, b -> { });
            return ctx.emit1(OpKind.TypeCast, List.of(f), to, b -> { });
        }
        return ctx.emit1(OpKind.TypeCast, List.of(x), to, b -> { });
    }

    private static void identity(ImportContext ctx) {
        ctx.setOutput(0, ctx.input(0));
    }

    private static void shape(ImportContext ctx) {
        long[] d = ctx.inputDims(0);
        if (d == null) {
            throw ctx.unsupported("input of unknown rank");
        }
        for (long v : d) {
            if (v < 0) {
                throw ctx.unsupported("input dims " + LogicalTensor.dimsToString(d) + " not known at import");
            }
        }
        int rank = d.length;
        long start = ctx.intAttr("start", 0);
        long end = ctx.intAttr("end", rank);
        int s = (int) Math.clamp(start < 0 ? start + rank : start, 0, rank);
        int e = (int) Math.clamp(end < 0 ? end + rank : end, 0, rank);
        long[] v = Arrays.copyOfRange(d, s, Math.max(s, e));
        ctx.setConstantOutput(0, OnnxTensor.ofLongs("shape", new long[] {v.length}, v));
    }

    private static void size(ImportContext ctx) {
        long[] d = ctx.inputDims(0);
        if (d == null) {
            throw ctx.unsupported("input of unknown rank");
        }
        long n = 1;
        for (long v : d) {
            if (v < 0) {
                throw ctx.unsupported("input dims " + LogicalTensor.dimsToString(d) + " not known at import");
            }
            try {
                n = Math.multiplyExact(n, v);
            } catch (ArithmeticException e) {
                throw ctx.invalid("input dims " + LogicalTensor.dimsToString(d) + " have more than 2^63-1 elements");
            }
        }
        ctx.setConstantOutput(0, OnnxTensor.ofLongs("size", new long[0], new long[] {n}));
    }
}
