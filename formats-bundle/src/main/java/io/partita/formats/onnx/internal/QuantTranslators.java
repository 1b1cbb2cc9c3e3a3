package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.internal.Translators.v;

import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.function.IntFunction;

import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/**
 * ONNX's quantized ops as oneDNN's int8 graph. QuantizeLinear and DequantizeLinear become
 * (Dynamic)Quantize and (Dynamic)Dequantize ({@link Quantization}); QLinearMatMul and QLinearConv
 * become Dequantize → MatMul / Convolution → Quantize, the chains oneDNN's int8 fusion patterns
 * match. DynamicQuantizeLinear computes its scale and zero point with oneDNN reductions and
 * arithmetic, as ONNX's function body does, and quantizes with DynamicQuantize.
 *
 * <p>MatMulInteger and ConvInteger dequantize with scale 1, so their f32 operands are the exact
 * integers {@code x - zero_point}, and take the int32 result straight from a MatMul / Convolution
 * with an s32 dst: the reference backend accumulates in double, exact for every sum an int32 holds
 * (no f32 intermediate, which would be exact only below 2^24), and backends that accumulate in f32
 * do not claim an s32 dst.
 */
final class QuantTranslators {
    private static final int ONNX_FLOAT = 1;

    private QuantTranslators() {
    }

    static void register(Map<String, NavigableMap<Integer, NodeTranslator>> m) {
        // 13: axis; 19: float8, saturate; 21: block_size (and output_dtype for QuantizeLinear); 23:
        // precision (QuantizeLinear), output_dtype (DequantizeLinear); 24, 25: new scale and quantized
        // types only, which the type checks refuse.
        Translators.add(m, "QuantizeLinear", v(10, 13, 19, 21, 23, 24, 25), QuantTranslators::quantizeLinear);
        Translators.add(m, "DequantizeLinear", v(10, 13, 19, 21, 23, 24, 25), QuantTranslators::dequantizeLinear);
        // 21: float8 inputs and float16 / bfloat16 scales.
        Translators.add(m, "QLinearMatMul", v(10, 21), QuantTranslators::qlinearMatMul);
        Translators.add(m, "QLinearConv", v(10), QuantTranslators::qlinearConv);
        Translators.add(m, "MatMulInteger", v(10), QuantTranslators::matMulInteger);
        Translators.add(m, "ConvInteger", v(10), QuantTranslators::convInteger);
        Translators.add(m, "DynamicQuantizeLinear", v(11), QuantTranslators::dynamicQuantizeLinear);
    }

    private static void quantizeLinear(ImportContext ctx) {
        int version = ctx.opVersion();
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "x");
        Long axis = version >= 13 ? ctx.intAttr("axis", 1) : null;
        long block = version >= 21 ? ctx.intAttr("block_size", 0) : 0;
        boolean saturate = version < 19 || ctx.intAttr("saturate", 1) != 0;
        DataType out = quantizedType(ctx, version >= 21 ? ctx.intAttr("output_dtype", 0) : 0);
        if (version >= 23) {
            long precision = ctx.intAttr("precision", 0);
            if (precision != 0 && precision != ONNX_FLOAT) {
                throw Quantization.unsupported(ctx, "precision " + OnnxTypes.name((int) precision)
                        + ": oneDNN's quantization divides in f32");
            }
        }
        if (ctx.inputType(1) != DataType.F32) {
            throw Quantization.unsupported(ctx, "y_scale of type " + ctx.inputType(1) + ": ONNX divides in the "
                    + "scale's type, oneDNN's quantization in f32");
        }
        checkFloat8Saturation(ctx, out, saturate);
        Quantization q = Quantization.read(ctx, xd, 1, "y_scale", 2, "y_zero_point", axis, block);
        ctx.setOutput(0, q.quantize(ctx, toF32(ctx, x, "x"), out));
    }

    /** The output type: y_zero_point's type, or output_dtype (which must agree), or uint8. */
    private static DataType quantizedType(ImportContext ctx, long outputDtype) {
        DataType fromAttr = null;
        if (outputDtype != 0) {
            if (!OnnxTypes.known((int) outputDtype) || outputDtype != (int) outputDtype) {
                throw Quantization.invalid(ctx, "output_dtype " + outputDtype + " is not an ONNX data type");
            }
            fromAttr = OnnxTypes.toPartita((int) outputDtype);
            if (fromAttr == null) {
                throw Quantization.unsupported(ctx, "output_dtype " + OnnxTypes.name((int) outputDtype)
                        + ": Partita has no such data type");
            }
        }
        if (ctx.hasInput(2)) {
            DataType zp = ctx.inputType(2);
            if (fromAttr != null && fromAttr != zp) {
                throw Quantization.invalid(ctx, "output_dtype " + OnnxTypes.name((int) outputDtype)
                        + " differs from y_zero_point's type " + zp + "; expected the same type");
            }
            return zp;
        }
        return fromAttr != null ? fromAttr : DataType.U8;
    }

    /**
     * As for Cast: oneDNN's f8_e4m3 conversion saturates to +-448 (ONNX saturate = 1) and f8_e5m2
     * overflows to infinity (ONNX saturate = 0); the other pairings are refused.
     */
    private static void checkFloat8Saturation(ImportContext ctx, DataType out, boolean saturate) {
        if (out == DataType.F8_E4M3 && !saturate) {
            throw Quantization.unsupported(ctx, "saturate = 0 to " + out + ": ONNX gives NaN on overflow, oneDNN "
                    + "saturates to +-448");
        }
        if (out == DataType.F8_E5M2 && saturate) {
            throw Quantization.unsupported(ctx, "saturate = 1 to " + out + ": ONNX clamps to +-57344, oneDNN "
                    + "overflows to infinity");
        }
    }

    /** f16 and bf16 widen to f32 exactly; oneDNN quantizes f32 only. */
    private static LogicalTensor toF32(ImportContext ctx, LogicalTensor x, String name) {
        DataType t = x.dataType();
        if (t == DataType.F32) {
            return x;
        }
        if (t == DataType.F16 || t == DataType.BF16) {
            return ctx.emit1(OpKind.TypeCast, List.of(x), DataType.F32, b -> { });
        }
        throw Quantization.unsupported(ctx, name + " of type " + t + "; oneDNN quantizes float values");
    }

    private static void dequantizeLinear(ImportContext ctx) {
        int version = ctx.opVersion();
        long[] xd = ctx.inputDims(0);
        if (xd == null) {
            throw ctx.unsupported("x has unknown rank");
        }
        Long axis = version >= 13 ? ctx.intAttr("axis", 1) : null;
        long block = version >= 21 ? ctx.intAttr("block_size", 0) : 0;
        DataType scaleType = ctx.inputType(1);
        if (scaleType != DataType.F32 && scaleType != DataType.F16 && scaleType != DataType.BF16) {
            throw Quantization.unsupported(ctx, "x_scale of type " + scaleType + "; expected f32, f16 or bf16");
        }
        DataType out = scaleType;
        long outputDtype = version >= 23 ? ctx.intAttr("output_dtype", 0) : 0;
        if (outputDtype != 0) {
            DataType t = OnnxTypes.known((int) outputDtype) ? OnnxTypes.toPartita((int) outputDtype) : null;
            if (t != DataType.F32 && t != DataType.F16 && t != DataType.BF16) {
                throw Quantization.invalid(ctx, "output_dtype " + OnnxTypes.name((int) outputDtype)
                        + "; expected FLOAT, FLOAT16 or BFLOAT16");
            }
            out = t;
        }
        Quantization q = Quantization.read(ctx, xd, 1, "x_scale", 2, "x_zero_point", axis, block);
        DataType xt = ctx.inputType(0);
        q.checkZeroPointType(ctx, xt);
        if (xt == DataType.S32) {
            foldInt32(ctx, q, xd, out);
            return;
        }
        ctx.setOutput(0, q.dequantize(ctx, ctx.input(0), out));
    }

    /**
     * int32 values (biases of quantized convolutions) have no oneDNN dequantization; constant ones
     * are dequantized here, as ONNX does: {@code x - zp} converted to float, then times the scale.
     */
    private static void foldInt32(ImportContext ctx, Quantization q, long[] xd, DataType out) {
        if (!ctx.allInputsConstant()) {
            throw Quantization.unsupported(ctx, "int32 x known only at execution (oneDNN dequantizes 8-bit and "
                    + "4-bit types); a constant one is computed at import");
        }
        if (q.granularity() == Quantization.Granularity.BLOCKED) {
            throw Quantization.unsupported(ctx, "blocked dequantization of int32 x");
        }
        double[] x = ctx.constant(0).toDoubleArray();
        double[] s = ctx.constant(1).toDoubleArray();
        double[] z = ctx.hasInput(2) ? ctx.constant(2).toDoubleArray() : new double[] {0};
        ctx.foldedCount(xd, "dequantized x");
        int axis = q.axis();
        long inner = 1;
        for (int d = axis + 1; axis >= 0 && d < xd.length; d++) {
            inner *= xd[d];
        }
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            int k = axis < 0 ? 0 : (int) (i / inner % xd[axis]);
            y[i] = (float) (x[i] - z[z.length == 1 ? 0 : k]) * s[s.length == 1 ? 0 : k];
        }
        ctx.setConstantOutput(0, OnnxTensor.of("dequantized", out, xd, y));
    }

    /** No per-axis scale. */
    private static final IntFunction<Long> PER_TENSOR = rank -> null;
    /** Per row of a matrix operand (its axis -2), for a rank of 2 or more. */
    private static final IntFunction<Long> PER_ROW = rank -> rank >= 2 ? (long) rank - 2 : null;
    /** Per column of a matrix operand (its last axis), for a rank of 2 or more. */
    private static final IntFunction<Long> PER_COLUMN = rank -> rank >= 2 ? (long) rank - 1 : null;
    /** Per output channel of convolution weights (axis 0). */
    private static final IntFunction<Long> PER_OUTPUT_CHANNEL = rank -> 0L;

    /**
     * Operand {@code input} dequantized to f32 with its scale (input {@code scale}, or 1 when -1) and
     * zero point, per tensor or along the axis {@code axis} gives for its rank.
     */
    private static LogicalTensor dequantized(ImportContext ctx, int input, int scale, int zeroPoint, String name,
            IntFunction<Long> axis) {
        LogicalTensor t = ctx.input(input);
        long[] dims = ctx.rankedDims(t, name);
        Quantization q = Quantization.read(ctx, dims, scale, name + "_scale", zeroPoint, name + "_zero_point",
                axis.apply(dims.length), 0);
        q.checkZeroPointType(ctx, t.dataType());
        return q.dequantize(ctx, t, DataType.F32);
    }

    /** The f32 result y quantized with y_scale (input 6) and y_zero_point (input 7), per tensor. */
    private static LogicalTensor requantized(ImportContext ctx, LogicalTensor y) {
        Quantization q = Quantization.read(ctx, y.dims(), 6, "y_scale", 7, "y_zero_point", null, 0);
        return q.quantize(ctx, y, ctx.inputType(7));
    }

    private static void qlinearMatMul(ImportContext ctx) {
        requireF32Scales(ctx, 1, 4, 6);
        LogicalTensor a = dequantized(ctx, 0, 1, 2, "a", PER_TENSOR);
        LogicalTensor b = dequantized(ctx, 3, 4, 5, "b", PER_COLUMN);
        ctx.setOutput(0, requantized(ctx, ctx.emit1(OpKind.MatMul, List.of(a, b), DataType.F32, x -> { })));
    }

    private static void qlinearConv(ImportContext ctx) {
        requireF32Scales(ctx, 1, 4, 6);
        LogicalTensor x = dequantized(ctx, 0, 1, 2, "x", PER_TENSOR);
        LogicalTensor w = dequantized(ctx, 3, 4, 5, "w", PER_OUTPUT_CHANNEL);
        LogicalTensor bias = ctx.hasInput(8) ? int32Bias(ctx, w.dims()) : null;
        ctx.setOutput(0, requantized(ctx, LinearTranslators.convolution(ctx, x, w, bias, DataType.F32)));
    }

    /**
     * QLinearConv's int32 bias B is quantized with scale {@code x_scale * w_scale} and zero point 0:
     * dequantized at import into the f32 bias of the Convolution (it needs constant B and scales).
     */
    private static LogicalTensor int32Bias(ImportContext ctx, long[] wd) {
        if (!ctx.isConstant(8) || !ctx.isConstant(1) || !ctx.isConstant(4)) {
            throw Quantization.unsupported(ctx, "bias B with B, x_scale or w_scale known only at execution (B is "
                    + "dequantized at import)");
        }
        OnnxTensor bt = ctx.constant(8);
        if (bt.dataType() != DataType.S32 || bt.dims().length != 1 || bt.dims()[0] != wd[0]) {
            throw Quantization.invalid(ctx, "B is " + bt.dataType() + LogicalTensor.dimsToString(bt.dims())
                    + "; expected int32 [" + wd[0] + "] (one per output channel)");
        }
        double[] b = bt.toDoubleArray();
        double xs = ctx.constant(1).toDoubleArray()[0];
        double[] ws = ctx.constant(4).toDoubleArray();
        double[] f = new double[b.length];
        for (int m = 0; m < b.length; m++) {
            f[m] = b[m] * xs * ws[ws.length == 1 ? 0 : m];
        }
        return ctx.constantTensor(OnnxTensor.of("B dequantized", DataType.F32, bt.dims(), f));
    }

    private static void requireF32Scales(ImportContext ctx, int... inputs) {
        for (int i : inputs) {
            if (ctx.inputType(i) != DataType.F32) {
                throw Quantization.unsupported(ctx, "scale input " + i + " of type " + ctx.inputType(i)
                        + "; oneDNN's int8 patterns take f32 scales");
            }
        }
    }

    private static void matMulInteger(ImportContext ctx) {
        LogicalTensor a = dequantized(ctx, 0, -1, 2, "a", PER_ROW);
        LogicalTensor b = dequantized(ctx, 1, -1, 3, "b", PER_COLUMN);
        ctx.setOutput(0, ctx.emit1(OpKind.MatMul, List.of(a, b), DataType.S32, x -> { }));
    }

    private static void convInteger(ImportContext ctx) {
        LogicalTensor x = dequantized(ctx, 0, -1, 2, "x", PER_TENSOR);
        LogicalTensor w = dequantized(ctx, 1, -1, 3, "w", PER_OUTPUT_CHANNEL);
        ctx.setOutput(0, LinearTranslators.convolution(ctx, x, w, null, DataType.S32));
    }

    /**
     * DynamicQuantizeLinear by ONNX's function: x's range widened to include 0 gives
     * {@code scale = range / 255} and {@code zero point = round(clamp(-min / scale, 0, 255))}, and x is
     * quantized to uint8 with them. The zero point becomes uint8 through a DynamicQuantize of scale 1,
     * exact for the integer in [0, 255] it already is.
     */
    private static void dynamicQuantizeLinear(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "x");
        if (x.dataType() != DataType.F32) {
            throw Quantization.invalid(ctx, "x is " + x.dataType() + "; expected float");
        }
        if (xd.length == 0) {
            throw Quantization.unsupported(ctx, "a scalar x (oneDNN's reductions take rank >= 1)");
        }
        long[] all = new long[xd.length];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        LogicalTensor min = ctx.emit1(OpKind.ReduceMin, List.of(x), DataType.F32,
                b -> b.attr("axes", all).attr("keep_dims", false));
        LogicalTensor max = ctx.emit1(OpKind.ReduceMax, List.of(x), DataType.F32,
                b -> b.attr("axes", all).attr("keep_dims", false));
        LogicalTensor zero = scalar(ctx, 0);
        LogicalTensor lo = binary(ctx, OpKind.Minimum, min, zero);
        LogicalTensor hi = binary(ctx, OpKind.Maximum, max, zero);
        LogicalTensor scale = binary(ctx, OpKind.Divide, binary(ctx, OpKind.Subtract, hi, lo), scalar(ctx, 255));
        LogicalTensor zpF = binary(ctx, OpKind.Subtract, zero, binary(ctx, OpKind.Divide, lo, scale));
        LogicalTensor clamped = ctx.emit1(OpKind.Clamp, List.of(zpF), DataType.F32,
                b -> b.attr("min", 0f).attr("max", 255f));
        LogicalTensor rounded = ctx.emit1(OpKind.Round, List.of(clamped), DataType.F32, b -> { });
        LogicalTensor zp = ctx.emit1(OpKind.DynamicQuantize, List.of(rounded, scalar(ctx, 1)), DataType.U8,
                b -> b.attr("qtype", "per_tensor"));
        ctx.setOutput(0, ctx.emit1(OpKind.DynamicQuantize, List.of(x, scale, zp), DataType.U8,
                b -> b.attr("qtype", "per_tensor")));
        ctx.setOutput(1, scale);
        ctx.setOutput(2, zp);
    }

    /** An f32 constant of rank 0, as ONNX's scalars: results computed from it keep rank 0. */
    private static LogicalTensor scalar(ImportContext ctx, double v) {
        return ctx.constantTensor(OnnxTensor.of("scalar " + v, DataType.F32, new long[0], new double[] {v}));
    }

    private static LogicalTensor binary(ImportContext ctx, OpKind kind, LogicalTensor a, LogicalTensor b) {
        return ctx.emit1(kind, List.of(a, b), DataType.F32, x -> { });
    }
}
