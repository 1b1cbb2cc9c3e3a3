package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.internal.Translators.v;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/**
 * Elementwise ops. ONNX's multidirectional broadcasting is numpy's, which is oneDNN's
 * {@code auto_broadcast = numpy} (the default), so binary ops map one to one.
 */
final class ElementwiseTranslators {
    private ElementwiseTranslators() {
    }

    static void register(Map<String, NavigableMap<Integer, NodeTranslator>> m) {
        // Version 6 (before 7): no numpy broadcasting, but attributes broadcast / axis.
        Translators.add(m, "Add", v(6, 7, 13, 14), binary(OpKind.Add));
        Translators.add(m, "Sub", v(6, 7, 13, 14), binary(OpKind.Subtract));
        Translators.add(m, "Mul", v(6, 7, 13, 14), binary(OpKind.Multiply));
        Translators.add(m, "Div", v(6, 7, 13, 14), ElementwiseTranslators::div);
        // Versions 6 need equal shapes (numpy broadcasting from 8): broadcasting is a superset.
        Translators.add(m, "Max", v(6, 8, 12, 13), variadic(OpKind.Maximum));
        Translators.add(m, "Min", v(6, 8, 12, 13), variadic(OpKind.Minimum));
        Translators.add(m, "Sum", v(6, 8, 13), variadic(OpKind.Add));
        Translators.add(m, "Mean", v(6, 8, 13), ElementwiseTranslators::mean);
        Translators.add(m, "Relu", v(6, 13, 14), unary(OpKind.ReLU));
        Translators.add(m, "Sigmoid", v(6, 13), unary(OpKind.Sigmoid));
        Translators.add(m, "Tanh", v(6, 13), unary(OpKind.Tanh));
        Translators.add(m, "Sqrt", v(6, 13), unary(OpKind.Sqrt));
        Translators.add(m, "Exp", v(6, 13), unary(OpKind.Exp));
        Translators.add(m, "Log", v(6, 13), unary(OpKind.Log));
        Translators.add(m, "Abs", v(6, 13), unary(OpKind.Abs));
        Translators.add(m, "Reciprocal", v(6, 13), unary(OpKind.Reciprocal));
        Translators.add(m, "Erf", v(9, 13), unary(OpKind.PartitaErf));
        Translators.add(m, "Neg", v(6, 13), ElementwiseTranslators::neg);
        Translators.add(m, "Gelu", v(20), ElementwiseTranslators::gelu);
        // Pow 1 (up to opset 6) has the legacy broadcast / axis attributes; 7 broadcasts like numpy.
        Translators.add(m, "Pow", v(1, 7, 12, 13, 15), ElementwiseTranslators::pow);
        Translators.add(m, "Where", v(9, 16), ElementwiseTranslators::where);
    }

    /**
     * Input 1 of a binary op, shaped for numpy broadcasting. Before version 7, Add/Sub/Mul/Div
     * (and Pow before 7) broadcast only with {@code broadcast = 1}: B's dims match A's from
     * {@code axis} on (default: A's trailing dims, which is numpy's right alignment); B is reshaped
     * with trailing 1s so numpy broadcasting gives the same result. Without broadcast the shapes must
     * be equal.
     */
    static LogicalTensor secondInput(ImportContext ctx, LogicalTensor a) {
        LogicalTensor b = ctx.input(1);
        if (ctx.opVersion() >= 7) {
            return b;
        }
        boolean bc = ctx.intAttr("broadcast", 0) != 0;
        long axis = ctx.intAttr("axis", Long.MIN_VALUE);
        long[] ad = ctx.rankedDims(a, "A");
        long[] bd = ctx.rankedDims(b, "B");
        long[] nd = legacyBroadcastDims(ctx, ad, bd, bc, axis);
        return Arrays.equals(nd, bd) ? b : ShapeTranslators.staticReshape(ctx, b, nd);
    }

    /** B's dims for numpy broadcasting under the legacy (version &lt; 7) broadcast / axis attributes. */
    static long[] legacyBroadcastDims(ImportContext ctx, long[] ad, long[] bd, boolean broadcast, long axis) {
        if (!broadcast) {
            if (!Arrays.equals(ad, bd)) {
                throw ctx.invalid("A " + LogicalTensor.dimsToString(ad) + " and B " + LogicalTensor.dimsToString(bd)
                        + " differ and broadcast = 0");
            }
            return bd;
        }
        if (axis == Long.MIN_VALUE || bd.length == 0) {
            return bd;
        }
        int a = ctx.axis(axis, ad.length, "axis");
        if (a + bd.length > ad.length) {
            throw ctx.invalid("B " + LogicalTensor.dimsToString(bd) + " does not fit A " + LogicalTensor.dimsToString(ad)
                    + " from axis " + axis);
        }
        long[] nd = new long[ad.length - a];
        Arrays.fill(nd, 1);
        System.arraycopy(bd, 0, nd, 0, bd.length);
        for (int i = 0; i < bd.length; i++) {
            if (bd[i] != 1 && bd[i] != ad[a + i]) {
                throw ctx.invalid("B " + LogicalTensor.dimsToString(bd) + " does not match A "
                        + LogicalTensor.dimsToString(ad) + " from axis " + axis);
            }
        }
        return nd;
    }

    static NodeTranslator unary(OpKind kind) {
        return ctx -> {
            LogicalTensor x = ctx.input(0);
            ctx.setOutput(0, ctx.emit1(kind, List.of(x), x.dataType(), b -> { }));
        };
    }

    static NodeTranslator binary(OpKind kind) {
        return ctx -> {
            LogicalTensor a = ctx.input(0);
            LogicalTensor b = secondInput(ctx, a);
            requireSameType(ctx, a, b);
            ctx.setOutput(0, ctx.emit1(kind, List.of(a, b), a.dataType(), x -> { }));
        };
    }

    private static void requireSameType(ImportContext ctx, LogicalTensor a, LogicalTensor b) {
        if (a.dataType() != b.dataType()) {
            throw ctx.invalid("inputs have data types " + a.dataType() + " and " + b.dataType()
                    + "; ONNX requires them equal");
        }
    }

    /** Integer division in ONNX truncates; oneDNN's Divide is floating point only (its schema says so). */
    private static void div(ImportContext ctx) {
        binary(OpKind.Divide).translate(ctx);
    }

    /** Max, Min, Sum take 1 or more inputs: a chain of binary ops (each broadcasting). */
    /** oneDNN's Maximum / Minimum for floating-point types, the Partita extension op for integer ones. */
    static OpKind minMaxKind(OpKind kind, DataType dt) {
        if (dt == DataType.F32 || dt == DataType.BF16 || dt == DataType.F16 || (kind != OpKind.Maximum
                && kind != OpKind.Minimum)) {
            return kind;
        }
        return kind == OpKind.Maximum ? OpKind.PartitaMaximum : OpKind.PartitaMinimum;
    }

    static NodeTranslator variadic(OpKind floatKind) {
        return ctx -> {
            LogicalTensor acc = ctx.input(0);
            OpKind kind = minMaxKind(floatKind, acc.dataType());
            if (ctx.inputCount() == 1) {
                // One input: the result is the input; keep it an op's output so it can be a graph output.
                acc = ctx.emit1(OpKind.Reorder, List.of(acc), acc.dataType(), b -> { });
            }
            for (int i = 1; i < ctx.inputCount(); i++) {
                LogicalTensor next = ctx.input(i);
                requireSameType(ctx, acc, next);
                LogicalTensor prev = acc;
                acc = ctx.emit1(kind, List.of(prev, next), prev.dataType(), b -> { });
            }
            ctx.setOutput(0, acc);
        };
    }

    /** -x as x * -1: exact in every floating-point type. */
    private static void neg(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        LogicalTensor m1 = ctx.scalar(x.dataType(), -1);
        ctx.setOutput(0, ctx.emit1(OpKind.Multiply, List.of(x, m1), x.dataType(), b -> { }));
    }

    private static void gelu(ImportContext ctx) {
        String approx = ctx.stringAttr("approximate", "none");
        String mode = switch (approx) {
            case "none" -> "gelu_erf";
            case "tanh" -> "gelu_tanh";
            default -> throw ctx.unsupported("approximate = '" + approx + "'; expected none or tanh");
        };
        LogicalTensor x = ctx.input(0);
        ctx.setOutput(0, ctx.emit1(OpKind.GELU, List.of(x), x.dataType(), b -> b.attr("mode", mode)));
    }

    /**
     * A constant exponent with one value (any shape that does not broadcast the base to a larger
     * shape) is oneDNN's Pow with {@code beta}; any other exponent needs the PartitaPow extension.
     */
    private static void pow(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        if (!x.dataType().isFloatingPoint()) {
            throw ctx.unsupported("base of data type " + x.dataType()
                    + ": integer power is not expressible with oneDNN ops (Pow is floating point)");
        }
        LogicalTensor y0 = ctx.opVersion() < 7 ? secondInput(ctx, x) : null;
        // oneDNN's Pow takes f32, bf16 and f16; an f64 base always takes PartitaPow.
        if (y0 == null && x.dataType() != DataType.F64 && ctx.isConstant(1)
                && ctx.constant(1).elementCount() <= ImportContext.MAX_FOLDED_ELEMENTS) {
            OnnxTensor e = ctx.constant(1);
            double[] v = e.toDoubleArray();
            boolean uniform = v.length > 0;
            for (double d : v) {
                uniform &= Double.compare(d, v[0]) == 0;
            }
            long[] xd = x.dims();
            if (uniform && xd != null && e.dims().length <= xd.length && v[0] == (float) v[0]) {
                float beta = (float) v[0];
                ctx.setOutput(0, ctx.emit1(OpKind.Pow, List.of(x), x.dataType(), b -> b.attr("beta", beta)));
                return;
            }
        }
        LogicalTensor y = y0 != null ? y0 : ctx.input(1);
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaPow, List.of(x, y), x.dataType(), b -> { }));
    }

    /** Mean: the inputs added in order, then divided by their count (ONNX's float arithmetic). */
    private static void mean(ImportContext ctx) {
        LogicalTensor acc = ctx.input(0);
        int n = ctx.inputCount();
        if (n == 1) {
            ctx.setOutput(0, ctx.emit1(OpKind.Reorder, List.of(acc), acc.dataType(), b -> { }));
            return;
        }
        for (int i = 1; i < n; i++) {
            LogicalTensor next = ctx.input(i);
            requireSameType(ctx, acc, next);
            acc = ctx.emit1(OpKind.Add, List.of(acc, next), acc.dataType(), b -> { });
        }
        ctx.setOutput(0, ctx.emit1(OpKind.Divide, List.of(acc, ctx.scalar(acc.dataType(), n)), acc.dataType(),
                b -> { }));
    }

    private static void where(ImportContext ctx) {
        LogicalTensor c = ctx.input(0);
        LogicalTensor a = ctx.input(1);
        LogicalTensor b = ctx.input(2);
        requireSameType(ctx, a, b);
        DataType dt = a.dataType();
        OpKind kind = dt == DataType.F32 || dt == DataType.BF16 || dt == DataType.F16 ? OpKind.Select
                : OpKind.PartitaSelect;
        ctx.setOutput(0, ctx.emit1(kind, List.of(c, a, b), a.dataType(), x -> { }));
    }
}
