package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.internal.Translators.v;

import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/**
 * Activations with parameters and their decompositions (PRelu, LeakyRelu, Elu, Selu, Celu,
 * Softplus, Softsign, HardSigmoid, HardSwish, Mish, Clip), inference Dropout, and Gather (folded at
 * import when constant, refused otherwise).
 */
final class ActivationTranslators {
    /** Selu's defaults, float32 values of ONNX's constants. */
    private static final float SELU_ALPHA = 1.67326319217681884765625f;
    private static final float SELU_GAMMA = 1.05070102214813232421875f;

    private ActivationTranslators() {
    }

    static void register(Map<String, NavigableMap<Integer, NodeTranslator>> m) {
        // PRelu 6: slope of X's shape or one value; from 7: slope broadcast to X (numpy, unidirectional).
        Translators.add(m, "PRelu", v(6, 7, 9, 16), ActivationTranslators::prelu);
        Translators.add(m, "LeakyRelu", v(6, 16), ctx -> alpha(ctx, OpKind.LeakyReLU, 0.01f));
        Translators.add(m, "Elu", v(6, 22), ActivationTranslators::elu);
        Translators.add(m, "Selu", v(6, 22), ActivationTranslators::selu);
        Translators.add(m, "Celu", v(12), ActivationTranslators::celu);
        Translators.add(m, "Softplus", v(1, 22), ctx -> {
            LogicalTensor x = ctx.input(0);
            ctx.setOutput(0, ctx.emit1(OpKind.SoftPlus, List.of(x), x.dataType(), b -> b.attr("beta", 1f)));
        });
        Translators.add(m, "Softsign", v(1, 22), ActivationTranslators::softsign);
        Translators.add(m, "HardSigmoid", v(6, 22), ctx -> {
            LogicalTensor x = ctx.input(0);
            float alpha = ctx.floatAttr("alpha", 0.2f);
            float beta = ctx.floatAttr("beta", 0.5f);
            ctx.setOutput(0, ctx.emit1(OpKind.HardSigmoid, List.of(x), x.dataType(),
                    b -> b.attr("alpha", alpha).attr("beta", beta)));
        });
        Translators.add(m, "HardSwish", v(14, 22), ElementwiseTranslators.unary(OpKind.HardSwish));
        Translators.add(m, "Mish", v(18, 22), ElementwiseTranslators.unary(OpKind.Mish));
        // Clip 6: min / max attributes (defaults: the float range); from 11: optional inputs.
        Translators.add(m, "Clip", v(6, 11, 12, 13), ActivationTranslators::clip);
        // Dropout 6: is_test / ratio attributes; 7, 10: ratio; from 12: ratio / training_mode inputs.
        Translators.add(m, "Dropout", v(6, 7, 10, 12, 13, 22), ActivationTranslators::dropout);
    }

    private static void alpha(ImportContext ctx, OpKind kind, float def) {
        LogicalTensor x = ctx.input(0);
        float alpha = ctx.floatAttr("alpha", def);
        ctx.setOutput(0, ctx.emit1(kind, List.of(x), x.dataType(), b -> b.attr("alpha", alpha)));
    }

    /**
     * From version 7, oneDNN's PReLU without per-channel broadcast: it broadcasts the slope like
     * numpy, as ONNX does. Version 6 (what PyTorch's exporter wrote) takes a 1-D slope of C values
     * per channel (axis 1): per-channel broadcast with data_format NCX.
     */
    private static void prelu(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        LogicalTensor slope = ctx.input(1);
        long[] xd = x.dims();
        long[] sd = slope.dims();
        boolean perChannel = ctx.opVersion() < 7 && xd != null && sd != null && sd.length == 1 && xd.length > 1
                && sd[0] == xd[1] && sd[0] != 1;
        ctx.setOutput(0, ctx.emit1(OpKind.PReLU, List.of(x, slope), x.dataType(),
                b -> b.attr("data_format", "NCX").attr("per_channel_broadcast", perChannel)));
    }

    private static void elu(ImportContext ctx) {
        float alpha = ctx.floatAttr("alpha", 1f);
        if (alpha < 0) {
            throw ctx.unsupported("alpha = " + alpha + ": oneDNN's Elu takes alpha >= 0");
        }
        LogicalTensor x = ctx.input(0);
        ctx.setOutput(0, ctx.emit1(OpKind.Elu, List.of(x), x.dataType(), b -> b.attr("alpha", alpha)));
    }

    /** Selu = gamma * Elu(alpha): gamma * x for x &gt; 0, gamma * alpha * (exp(x) - 1) otherwise. */
    private static void selu(ImportContext ctx) {
        float alpha = ctx.floatAttr("alpha", SELU_ALPHA);
        float gamma = ctx.floatAttr("gamma", SELU_GAMMA);
        if (alpha < 0) {
            throw ctx.unsupported("alpha = " + alpha + ": oneDNN's Elu takes alpha >= 0");
        }
        LogicalTensor x = ctx.input(0);
        LogicalTensor e = ctx.emit1(OpKind.Elu, List.of(x), x.dataType(), b -> b.attr("alpha", alpha));
        ctx.setOutput(0, ctx.emit1(OpKind.Multiply, List.of(e, ctx.scalar(x.dataType(), gamma)), x.dataType(),
                b -> { }));
    }

    /**
     * Celu = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): with alpha 1, Elu(1); otherwise
     * ReLU(x) + alpha * Elu(1)(min(x, 0) / alpha).
     */
    private static void celu(ImportContext ctx) {
        float alpha = ctx.floatAttr("alpha", 1f);
        LogicalTensor x = ctx.input(0);
        DataType dt = x.dataType();
        if (alpha == 1f) {
            ctx.setOutput(0, ctx.emit1(OpKind.Elu, List.of(x), dt, b -> b.attr("alpha", 1f)));
            return;
        }
        if (!(alpha > 0)) {
            throw ctx.unsupported("alpha = " + alpha + " (expected > 0)");
        }
        LogicalTensor pos = ctx.emit1(OpKind.ReLU, List.of(x), dt, b -> { });
        LogicalTensor neg = ctx.emit1(OpKind.Minimum, List.of(x, ctx.scalar(dt, 0)), dt, b -> { });
        LogicalTensor scaled = ctx.emit1(OpKind.Divide, List.of(neg, ctx.scalar(dt, alpha)), dt, b -> { });
        LogicalTensor e = ctx.emit1(OpKind.Elu, List.of(scaled), dt, b -> b.attr("alpha", 1f));
        LogicalTensor ae = ctx.emit1(OpKind.Multiply, List.of(e, ctx.scalar(dt, alpha)), dt, b -> { });
        ctx.setOutput(0, ctx.emit1(OpKind.Add, List.of(pos, ae), dt, b -> { }));
    }

    /** Softsign = x / (1 + |x|). */
    private static void softsign(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        DataType dt = x.dataType();
        LogicalTensor a = ctx.emit1(OpKind.Abs, List.of(x), dt, b -> { });
        LogicalTensor d = ctx.emit1(OpKind.Add, List.of(a, ctx.scalar(dt, 1)), dt, b -> { });
        ctx.setOutput(0, ctx.emit1(OpKind.Divide, List.of(x, d), dt, b -> { }));
    }

    private static boolean runtimeBound(ImportContext ctx, int input) {
        return ctx.hasInput(input) && !ctx.isConstant(input);
    }

    private static boolean constantBoundsCross(ImportContext ctx) {
        return ctx.hasInput(1) && ctx.hasInput(2) && bound(ctx, 1, "min", 0) > bound(ctx, 2, "max", 0);
    }

    /** A bound input, checked to be a scalar (one element). */
    private static LogicalTensor scalarBound(ImportContext ctx, int input, String name) {
        long[] d = ctx.inputDims(input);
        long n = 1;
        for (long k : d == null ? new long[] {-1} : d) {
            n *= k;
        }
        if (n != 1) {
            throw ctx.invalid(name + " (input " + input + ") has dims " + LogicalTensor.dimsToString(d)
                    + "; expected a scalar");
        }
        return ctx.input(input);
    }

    private static float bound(ImportContext ctx, int input, String name, float def) {
        if (!ctx.hasInput(input)) {
            return def;
        }
        if (!ctx.isConstant(input)) {
            throw ctx.unsupported(name + " (input " + input + ") known only at execution: oneDNN's Clamp takes "
                    + "constant bounds");
        }
        double[] v = ctx.constant(input).toDoubleArray();
        if (v.length != 1) {
            throw ctx.invalid(name + " (input " + input + ") has " + v.length + " values; expected a scalar");
        }
        return (float) v[0];
    }

    /**
     * Clip as Clamp with constant bounds; an absent bound is infinite (from 11) or the float range (6).
     * From 11, a bound known only at execution (or min above max) gives Minimum(Maximum(x, min), max),
     * ONNX's definition (min above max then gives max).
     */
    private static void clip(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        DataType dt = x.dataType();
        boolean integer = dt != DataType.F32 && dt != DataType.BF16 && dt != DataType.F16;
        if (ctx.opVersion() >= 11 && (integer || runtimeBound(ctx, 1) || runtimeBound(ctx, 2)
                || constantBoundsCross(ctx))) {
            LogicalTensor y = x;
            if (!ctx.hasInput(1) && !ctx.hasInput(2)) {
                y = ctx.emit1(integer ? OpKind.PartitaCopy : OpKind.Reorder, List.of(y), dt, b -> { });
            }
            if (ctx.hasInput(1)) {
                y = ctx.emit1(ElementwiseTranslators.minMaxKind(OpKind.Maximum, dt),
                        List.of(y, scalarBound(ctx, 1, "min")), dt, b -> { });
            }
            if (ctx.hasInput(2)) {
                y = ctx.emit1(ElementwiseTranslators.minMaxKind(OpKind.Minimum, dt),
                        List.of(y, scalarBound(ctx, 2, "max")), dt, b -> { });
            }
            ctx.setOutput(0, y);
            return;
        }
        float lo;
        float hi;
        if (ctx.opVersion() < 11) {
            lo = ctx.floatAttr("min", -Float.MAX_VALUE);
            hi = ctx.floatAttr("max", Float.MAX_VALUE);
        } else {
            lo = bound(ctx, 1, "min", Float.NEGATIVE_INFINITY);
            hi = bound(ctx, 2, "max", Float.POSITIVE_INFINITY);
        }
        if (!(lo <= hi)) {
            throw ctx.unsupported("min " + lo + " above max " + hi + " (ONNX then gives max; oneDNN's Clamp "
                    + "requires min <= max)");
        }
        ctx.setOutput(0, ctx.emit1(OpKind.Clamp, List.of(x), x.dataType(),
                b -> b.attr("min", lo).attr("max", hi)));
    }

    /**
     * Inference Dropout is the identity (a copy, so the output is an op's output). Training mode
     * (is_test = 0 in version 6, training_mode = true from 12) and the mask output are refused.
     */
    private static void dropout(ImportContext ctx) {
        int version = ctx.opVersion();
        ctx.ignoreAttr("ratio");
        ctx.ignoreAttr("seed");
        if (version < 7 && ctx.intAttr("is_test", 0) == 0) {
            throw ctx.unsupported("is_test = 0 (training: random drops)");
        }
        if (version >= 12 && ctx.hasInput(2)) {
            if (!ctx.isConstant(2)) {
                throw ctx.unsupported("training_mode known only at execution");
            }
            double[] t = ctx.constant(2).toDoubleArray();
            if (t.length == 1 && t[0] != 0) {
                throw ctx.unsupported("training_mode = true (random drops)");
            }
        }
        LogicalTensor x = ctx.input(0);
        if (ctx.hasOutput(1)) {
            // Inference keeps every element: the mask is a constant of trues with X's dims.
            long[] xd = ctx.rankedDims(x, "data");
            double[] ones = new double[(int) ctx.foldedCount(xd, "the mask")];
            java.util.Arrays.fill(ones, 1);
            ctx.setConstantOutput(1, io.partita.formats.onnx.OnnxTensor.of("mask", io.partita.graph.DataType.BOOLEAN,
                    xd, ones));
        }
        ctx.setOutput(0, ctx.emit1(OpKind.Reorder, List.of(x), x.dataType(), b -> { }));
    }
}
