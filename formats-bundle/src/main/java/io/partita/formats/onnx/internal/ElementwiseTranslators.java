package io.partita.formats.onnx.internal;

import java.util.List;
import java.util.Map;

import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/**
 * Elementwise ops. ONNX's multidirectional broadcasting is numpy's, which is oneDNN's
 * {@code auto_broadcast = numpy} (the default), so binary ops map one to one.
 */
final class ElementwiseTranslators {
    private ElementwiseTranslators() {
    }

    static void register(Map<String, Translators.Entry> m) {
        Translators.add(m, "Add", 13, binary(OpKind.Add));
        Translators.add(m, "Sub", 13, binary(OpKind.Subtract));
        Translators.add(m, "Mul", 13, binary(OpKind.Multiply));
        Translators.add(m, "Div", 13, ElementwiseTranslators::div);
        Translators.add(m, "Max", 13, variadic(OpKind.Maximum));
        Translators.add(m, "Min", 13, variadic(OpKind.Minimum));
        Translators.add(m, "Sum", 13, variadic(OpKind.Add));
        Translators.add(m, "Relu", 13, unary(OpKind.ReLU));
        Translators.add(m, "Sigmoid", 13, unary(OpKind.Sigmoid));
        Translators.add(m, "Tanh", 13, unary(OpKind.Tanh));
        Translators.add(m, "Sqrt", 13, unary(OpKind.Sqrt));
        Translators.add(m, "Exp", 13, unary(OpKind.Exp));
        Translators.add(m, "Abs", 13, unary(OpKind.Abs));
        Translators.add(m, "Reciprocal", 13, unary(OpKind.Reciprocal));
        Translators.add(m, "Erf", 13, unary(OpKind.PartitaErf));
        Translators.add(m, "Neg", 13, ElementwiseTranslators::neg);
        Translators.add(m, "Gelu", 20, ElementwiseTranslators::gelu);
        Translators.add(m, "Pow", 13, ElementwiseTranslators::pow);
        Translators.add(m, "Where", 13, ElementwiseTranslators::where);
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
            LogicalTensor b = ctx.input(1);
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
    static NodeTranslator variadic(OpKind kind) {
        return ctx -> {
            LogicalTensor acc = ctx.input(0);
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
        if (ctx.isConstant(1) && ctx.constant(1).elementCount() <= ImportContext.MAX_FOLDED_ELEMENTS) {
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
        LogicalTensor y = ctx.input(1);
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaPow, List.of(x, y), x.dataType(), b -> { }));
    }

    private static void where(ImportContext ctx) {
        LogicalTensor c = ctx.input(0);
        LogicalTensor a = ctx.input(1);
        LogicalTensor b = ctx.input(2);
        requireSameType(ctx, a, b);
        ctx.setOutput(0, ctx.emit1(OpKind.Select, List.of(c, a, b), a.dataType(), x -> { }));
    }
}
