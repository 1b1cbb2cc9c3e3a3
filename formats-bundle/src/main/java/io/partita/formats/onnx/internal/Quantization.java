package io.partita.formats.onnx.internal;

import java.util.Arrays;
import java.util.List;

import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.formats.onnx.UnsupportedOnnxException;
import io.partita.graph.DataType;
import io.partita.graph.ElementCodec;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/**
 * The scale and zero point of one quantized tensor of the node being imported (read from node
 * inputs, checked against the tensor's dims) and the oneDNN ops that apply them.
 *
 * <p>Constant scales and zero points of per-tensor or per-axis granularity become attributes of
 * Quantize / Dequantize, the form oneDNN's int8 fusion patterns match (constant weights behind a
 * Dequantize); run-time ones, and blocked ones (which the static ops cannot express), are inputs of
 * DynamicQuantize / DynamicDequantize. A missing scale (MatMulInteger, ConvInteger) is 1: the
 * dequantized values are then the exact integers {@code x - zero_point}.
 *
 * <p>Rounding: oneDNN quantizes as {@code round(x / scale + zp)}, ONNX as
 * {@code round(x / scale) + zp}, both to nearest even. They agree except when {@code x / scale} lies
 * exactly halfway between two integers and the zero point is odd, so a constant odd zero point is
 * quantized in ONNX's steps ({@link #quantizeOddZeroPoint}); a zero point known only at execution
 * keeps oneDNN's rule (one step apart on such ties).
 */
final class Quantization {
    enum Granularity { TENSOR, AXIS, BLOCKED }

    private final int scaleIn;
    private final int zpIn;
    private final String scaleName;
    private final String zpName;
    private final long[] xDims;
    private final Granularity granularity;
    private final int axis;
    private final long block;

    private Quantization(int scaleIn, int zpIn, String scaleName, String zpName, long[] xDims,
            Granularity granularity, int axis, long block) {
        this.scaleIn = scaleIn;
        this.zpIn = zpIn;
        this.scaleName = scaleName;
        this.zpName = zpName;
        this.xDims = xDims;
        this.granularity = granularity;
        this.axis = axis;
        this.block = block;
    }

    /**
     * Reads the granularity from the dims of the scale (or, without one, of the zero point): a
     * single value is per tensor; a 1-D tensor is per axis, along {@code axis} (a normalized axis of
     * x, or -1 where the op allows no per-axis form); with {@code blockSize > 0} the scale has x's
     * rank and {@code ceil(D / blockSize)} values along the axis.
     *
     * @param axisAttr the axis of per-axis and blocked forms as given (negative from the back), or
     *        null where the op has only per-tensor scales
     * @param scaleIn the node input of the scale, or -1 for a scale of 1
     * @param zpIn the node input of the zero point (may be an omitted optional input)
     */
    static Quantization read(ImportContext ctx, long[] xDims, int scaleIn, String scaleName, int zpIn,
            String zpName, Long axisAttr, long blockSize) {
        boolean hasScale = scaleIn >= 0;
        boolean hasZp = ctx.hasInput(zpIn);
        long[] shapeDims = hasScale ? ctx.inputDims(scaleIn) : hasZp ? ctx.inputDims(zpIn) : new long[0];
        String shapeName = hasScale ? scaleName : zpName;
        if (shapeDims == null) {
            throw unsupported(ctx, shapeName + " has unknown rank");
        }
        if (hasScale && hasZp) {
            long[] zd = ctx.inputDims(zpIn);
            if (zd == null || !Arrays.equals(zd, shapeDims)) {
                throw invalid(ctx, zpName + " has dims " + LogicalTensor.dimsToString(zd) + " but " + scaleName
                        + " has " + LogicalTensor.dimsToString(shapeDims) + "; expected the same dims");
            }
        }
        int rank = xDims.length;
        if (blockSize < 0) {
            throw invalid(ctx, "block_size " + blockSize + " is negative; expected 0 (not blocked) or a block length");
        }
        if (blockSize > 0) {
            if (axisAttr == null) {
                throw invalid(ctx, "block_size " + blockSize + " without an axis");
            }
            int a = ctx.axis(axisAttr, rank, "axis");
            if (shapeDims.length != rank) {
                throw invalid(ctx, "block_size " + blockSize + " needs " + shapeName + " of the input's rank " + rank
                        + " (dims " + LogicalTensor.dimsToString(xDims) + ", blocked along axis " + a + "); it has dims "
                        + LogicalTensor.dimsToString(shapeDims));
            }
            for (int d = 0; d < rank; d++) {
                if (!known(xDims[d]) || !known(shapeDims[d])) {
                    throw unsupported(ctx, "blocked quantization of input dims " + LogicalTensor.dimsToString(xDims)
                            + " not known at import");
                }
                long expected = d == a ? Math.ceilDiv(xDims[d], blockSize) : xDims[d];
                if (shapeDims[d] != expected) {
                    throw invalid(ctx, shapeName + " has dims " + LogicalTensor.dimsToString(shapeDims)
                            + "; input dims " + LogicalTensor.dimsToString(xDims) + " in blocks of " + blockSize
                            + " along axis " + a + " need " + expected + " at dim " + d);
                }
            }
            if (xDims[a] % blockSize != 0) {
                throw unsupported(ctx, "block_size " + blockSize + " does not divide dim " + xDims[a] + " of axis "
                        + a + " (a shorter last block is not supported)");
            }
            return new Quantization(scaleIn, zpIn, scaleName, zpName, xDims, Granularity.BLOCKED, a, blockSize);
        }
        if (count(shapeDims) == 1 && shapeDims.length <= 1) {
            // A 1-D scale of one value is per tensor too, as ONNX Runtime reads it.
            return new Quantization(scaleIn, zpIn, scaleName, zpName, xDims, Granularity.TENSOR, -1, 0);
        }
        if (shapeDims.length != 1 || axisAttr == null) {
            throw invalid(ctx, shapeName + " has dims " + LogicalTensor.dimsToString(shapeDims) + "; expected "
                    + (axisAttr == null ? "a single value (per tensor)" : "a single value (per tensor) or 1-D (per axis"
                    + (blockSize == 0 && shapeDims.length == rank ? "; a blocked scale needs block_size" : "") + ")"));
        }
        int axis = ctx.axis(axisAttr, rank, "axis");
        if (known(xDims[axis]) && shapeDims[0] != xDims[axis]) {
            throw invalid(ctx, shapeName + " has " + shapeDims[0] + " values but axis " + axis + " of the input "
                    + LogicalTensor.dimsToString(xDims) + " has " + xDims[axis] + "; expected one per index");
        }
        return new Quantization(scaleIn, zpIn, scaleName, zpName, xDims, Granularity.AXIS, axis, 0);
    }

    Granularity granularity() {
        return granularity;
    }

    /** The normalized axis of per-axis and blocked scales; -1 per tensor. */
    int axis() {
        return axis;
    }

    /** ONNX gives the zero point the quantized type. */
    void checkZeroPointType(ImportContext ctx, DataType quantized) {
        if (ctx.hasInput(zpIn) && ctx.inputType(zpIn) != quantized) {
            throw invalid(ctx, zpName + " is " + ctx.inputType(zpIn) + " but the quantized type is " + quantized
                    + "; expected the same type");
        }
    }

    /** Whether scale and zero point are known at import. */
    boolean constant(ImportContext ctx) {
        return (scaleIn < 0 || ctx.isConstant(scaleIn)) && (!ctx.hasInput(zpIn) || ctx.isConstant(zpIn));
    }

    DataType scaleType(ImportContext ctx) {
        return scaleIn < 0 ? DataType.F32 : ctx.inputType(scaleIn);
    }

    /** The scales as floats (all 1 without a scale input); only for {@link #constant}. */
    float[] scaleValues(ImportContext ctx) {
        if (scaleIn < 0) {
            float[] ones = new float[scaleCount(ctx)];
            Arrays.fill(ones, 1f);
            return ones;
        }
        double[] d = ctx.constant(scaleIn).toDoubleArray();
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) {
            f[i] = (float) d[i];
        }
        return f;
    }

    /** Scales per axis: as many as the zero point has when the scale is implicit (x's dim may be unknown). */
    private int scaleCount(ImportContext ctx) {
        return granularity == Granularity.AXIS ? (int) ctx.inputDims(zpIn)[0] : 1;
    }

    /**
     * A zero point that is the constant 0 (or absent) is dropped: oneDNN takes no zero points for f8
     * types, and a zero one changes nothing.
     */
    private boolean zeroPointIsZero(ImportContext ctx) {
        if (!ctx.hasInput(zpIn)) {
            return true;
        }
        if (!ctx.isConstant(zpIn)) {
            return false;
        }
        for (double v : ctx.constant(zpIn).toDoubleArray()) {
            if (v != 0) {
                return false;
            }
        }
        return true;
    }

    /** The zero point is usable with a quantized type: any for integers, only zero for float8. */
    private boolean keepZeroPoint(ImportContext ctx, DataType quantized) {
        if (zeroPointIsZero(ctx)) {
            return false;
        }
        if (quantized == DataType.F8_E4M3 || quantized == DataType.F8_E5M2) {
            throw unsupported(ctx, zpName + " other than a constant 0 with " + quantized + " (oneDNN quantizes float8 "
                    + "without zero points)");
        }
        return true;
    }

    // ---------------------------------------------------------------- emission

    /** x (u8, s8, s4, u4, f8) to {@code out} (the scale's float type, or f32 through a TypeCast). */
    LogicalTensor dequantize(ImportContext ctx, LogicalTensor x, DataType out) {
        DataType q = x.dataType();
        boolean zp = keepZeroPoint(ctx, q);
        boolean staticForm = constant(ctx) && granularity != Granularity.BLOCKED && scaleType(ctx) == DataType.F32
                && (q == DataType.U8 || q == DataType.S8 || q == DataType.F8_E4M3 || q == DataType.F8_E5M2);
        LogicalTensor y;
        if (staticForm) {
            float[] scales = scaleValues(ctx);
            long[] zps = zp ? zeroPoints(ctx, scales.length) : null;
            y = ctx.emit1(OpKind.Dequantize, List.of(x), DataType.F32, b -> {
                staticAttrs(b, scales);
                if (zps != null) {
                    b.attr("zps", zps);
                }
            });
        } else {
            List<LogicalTensor> ins = zp ? List.of(x, scaleTensor(ctx), ctx.input(zpIn))
                    : List.of(x, scaleTensor(ctx));
            y = ctx.emit1(OpKind.DynamicDequantize, ins, scaleType(ctx), this::dynamicAttrs);
        }
        if (y.dataType() == out) {
            return y;
        }
        if (y.dataType() == DataType.F32 || out == DataType.F32) {
            LogicalTensor f = y;
            return ctx.emit1(OpKind.TypeCast, List.of(f), out, b -> { });
        }
        throw unsupported(ctx, "output type " + out + " with " + scaleName + " of type " + y.dataType());
    }

    /** x (f32) to {@code out} (u8, s8, s16, u16, f8): saturated, rounded to nearest even. */
    LogicalTensor quantize(ImportContext ctx, LogicalTensor x, DataType out) {
        boolean zp = keepZeroPoint(ctx, out);
        if (constant(ctx) && granularity != Granularity.BLOCKED) {
            float[] scales = scaleValues(ctx);
            long[] zps = zp ? zeroPoints(ctx, scales.length) : null;
            if (zps != null && java.util.Arrays.stream(zps).anyMatch(z -> (z & 1) != 0)) {
                return quantizeOddZeroPoint(ctx, x, out, scales, zps);
            }
            return ctx.emit1(OpKind.Quantize, List.of(x), out, b -> {
                staticAttrs(b, scales);
                if (zps != null) {
                    b.attr("zps", zps);
                }
            });
        }
        if (zp && granularity != Granularity.BLOCKED) {
            // a zero point known only at execution may be odd: ONNX's steps, as quantizeOddZeroPoint
            LogicalTensor zpF = ctx.emit1(OpKind.DynamicDequantize, List.of(ctx.input(zpIn),
                    ctx.constantTensor(OnnxTensor.of("one", DataType.F32, new long[0], new double[] {1}))),
                    DataType.F32, b -> b.attr("qtype", "per_tensor"));
            return exactQuantize(ctx, x, out, alongAxis(ctx, scaleTensor(ctx)), alongAxis(ctx, zpF));
        }
        List<LogicalTensor> ins = zp ? List.of(x, scaleTensor(ctx), ctx.input(zpIn)) : List.of(x, scaleTensor(ctx));
        return ctx.emit1(OpKind.DynamicQuantize, ins, out, this::dynamicAttrs);
    }

    /** A per-axis scale or zero point ([C]) reshaped to broadcast along the quantization axis of x. */
    private LogicalTensor alongAxis(ImportContext ctx, LogicalTensor t) {
        if (granularity != Granularity.AXIS) {
            return t;
        }
        long[] dims = new long[xDims.length];
        java.util.Arrays.fill(dims, 1);
        dims[axis] = xDims[axis];
        return ctx.emit1(OpKind.StaticReshape, List.of(t), t.dataType(), b -> b.attr("shape", dims)
                .attr("special_zero", false));
    }

    /**
     * ONNX's rounding with an odd constant zero point, where oneDNN's Quantize would round
     * {@code x / scale + zp} to the other neighbour on ties: {@code x / scale} (f32), Round (half to
     * even), Add zp, Clamp to the type's range, then a Quantize with scale 1 that only converts the
     * now integral values. An even zero point keeps the single Quantize that int8 patterns match.
     */
    private LogicalTensor quantizeOddZeroPoint(ImportContext ctx, LogicalTensor x, DataType out, float[] scales,
            long[] zps) {
        long[] dims = new long[xDims.length];
        java.util.Arrays.fill(dims, 1);
        if (granularity == Granularity.AXIS) {
            dims[axis] = scales.length;
        }
        double[] s = new double[scales.length];
        double[] z = new double[zps.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = scales[i];
            z[i] = zps[i];
        }
        String name = ctx.node().outputs().get(0);
        LogicalTensor scaleT = ctx.constantTensor(OnnxTensor.of(name + "/scale", DataType.F32, dims, s));
        LogicalTensor zpT = ctx.constantTensor(OnnxTensor.of(name + "/zero_point", DataType.F32, dims, z));
        return exactQuantize(ctx, x, out, scaleT, zpT);
    }

    /** round(x / scale) + zp, clamped to the range of {@code out} and converted: ONNX's QuantizeLinear. */
    private static LogicalTensor exactQuantize(ImportContext ctx, LogicalTensor x, DataType out, LogicalTensor scaleT,
            LogicalTensor zpT) {
        LogicalTensor q = ctx.emit1(OpKind.Divide, List.of(x, scaleT), DataType.F32, b -> { });
        q = ctx.emit1(OpKind.Round, List.of(q), DataType.F32, b -> { });
        q = ctx.emit1(OpKind.Add, List.of(q, zpT), DataType.F32, b -> { });
        double lo = ElementCodec.round(out, -Double.MAX_VALUE);
        double hi = ElementCodec.round(out, Double.MAX_VALUE);
        LogicalTensor clamped = ctx.emit1(OpKind.Clamp, List.of(q), DataType.F32,
                b -> b.attr("min", (float) lo).attr("max", (float) hi));
        return ctx.emit1(OpKind.Quantize, List.of(clamped), out,
                b -> b.attr("qtype", "per_tensor").attr("scales", new float[] {1f}));
    }

    private void dynamicAttrs(io.partita.graph.Op.Builder b) {
        switch (granularity) {
            case TENSOR -> b.attr("qtype", "per_tensor");
            case AXIS -> b.attr("qtype", "per_channel").attr("axis", (long) axis);
            case BLOCKED -> {
                long[] group = new long[xDims.length];
                Arrays.fill(group, 1);
                group[axis] = block;
                b.attr("qtype", "per_group").attr("group_shape", group);
            }
            default -> throw new IllegalStateException(granularity.toString());
        }
    }

    private void staticAttrs(io.partita.graph.Op.Builder b, float[] scales) {
        if (granularity == Granularity.AXIS) {
            b.attr("qtype", "per_channel").attr("axis", (long) axis).attr("scales", scales);
        } else {
            b.attr("qtype", "per_tensor").attr("scales", scales);
        }
    }

    /** The constant zero points, one per scale (a single one repeated when the scale is implicit). */
    private long[] zeroPoints(ImportContext ctx, int n) {
        long[] z = ctx.constant(zpIn).toLongArray();
        if (z.length == n) {
            return z;
        }
        long[] r = new long[n];
        Arrays.fill(r, z[0]);
        return r;
    }

    /** The scale as a tensor input: the node's input, or a constant of ones shaped like the zero point. */
    private LogicalTensor scaleTensor(ImportContext ctx) {
        if (scaleIn >= 0) {
            return ctx.input(scaleIn);
        }
        long[] d = ctx.hasInput(zpIn) ? ctx.inputDims(zpIn) : new long[0];
        double[] ones = new double[(int) count(d)];
        Arrays.fill(ones, 1);
        return ctx.constantTensor(OnnxTensor.of(scaleName, DataType.F32, d, ones));
    }

    // ---------------------------------------------------------------- helpers

    /** An unsupported-feature error naming the op's version too. */
    static UnsupportedOnnxException unsupported(ImportContext ctx, String reason) {
        return ctx.unsupported("version " + ctx.opVersion() + ": " + reason);
    }

    static OnnxImportException invalid(ImportContext ctx, String reason) {
        return ctx.invalid("version " + ctx.opVersion() + ": " + reason);
    }

    private static boolean known(long d) {
        return d >= 0;
    }

    private static long count(long[] dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }
}
