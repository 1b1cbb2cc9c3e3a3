package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.internal.Translators.v;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/** MatMul, Gemm and Conv. */
final class LinearTranslators {
    private LinearTranslators() {
    }

    static void register(Map<String, NavigableMap<Integer, NodeTranslator>> m) {
        Translators.add(m, "MatMul", v(1, 9, 13), LinearTranslators::matmul);
        // Gemm 6: attribute broadcast (C broadcast to [M, N] when 1, else C is [M, N]); from 7 C broadcasts
        // unidirectionally; from 11 C is optional. A numpy Add covers each.
        Translators.add(m, "Gemm", v(6, 7, 9, 11, 13), LinearTranslators::gemm);
        Translators.add(m, "Conv", v(1, 11, 22), LinearTranslators::conv);
        Translators.add(m, "ConvTranspose", v(1, 11, 22), LinearTranslators::convTranspose);
    }

    /** numpy matmul semantics (1-D operands promoted and the added dim removed) are oneDNN MatMul's too. */
    private static void matmul(ImportContext ctx) {
        LogicalTensor a = ctx.input(0);
        LogicalTensor b = ctx.input(1);
        ctx.setOutput(0, ctx.emit1(OpKind.MatMul, List.of(a, b), a.dataType(), x -> { }));
    }

    /** Y = alpha * op(A) op(B) + beta * C: MatMul with transposes, then a scale and a bias add when needed. */
    private static void gemm(ImportContext ctx) {
        LogicalTensor a = ctx.input(0);
        LogicalTensor b = ctx.input(1);
        boolean ta = ctx.intAttr("transA", 0) != 0;
        boolean tb = ctx.intAttr("transB", 0) != 0;
        float alpha = ctx.floatAttr("alpha", 1f);
        float beta = ctx.floatAttr("beta", 1f);
        if (ctx.opVersion() < 7) {
            ctx.ignoreAttr("broadcast"); // whether C broadcasts; Add broadcasts a C that fits either way
        }
        if (a.ndims() != 2 || b.ndims() != 2) {
            throw ctx.invalid("A " + LogicalTensor.dimsToString(a.dims()) + " and B "
                    + LogicalTensor.dimsToString(b.dims()) + " must be 2-D");
        }
        DataType dt = a.dataType();
        LogicalTensor y = ctx.emit1(OpKind.MatMul, List.of(a, b), dt,
                x -> x.attr("transpose_a", ta).attr("transpose_b", tb));
        if (alpha != 1f) {
            LogicalTensor s = ctx.scalar(dt, alpha);
            LogicalTensor prev = y;
            y = ctx.emit1(OpKind.Multiply, List.of(prev, s), dt, x -> { });
        }
        if (ctx.hasInput(2) && beta != 0f) {
            LogicalTensor c = ctx.input(2);
            if (beta != 1f) {
                LogicalTensor s = ctx.scalar(c.dataType(), beta);
                LogicalTensor cc = c;
                c = ctx.emit1(OpKind.Multiply, List.of(cc, s), c.dataType(), x -> { });
            }
            LogicalTensor prev = y;
            LogicalTensor bias = c;
            y = ctx.emit1(OpKind.Add, List.of(prev, bias), dt, x -> { });
        }
        ctx.setOutput(0, y);
    }

    private static void conv(ImportContext ctx) {
        ctx.setOutput(0, convolution(ctx, ctx.input(0), ctx.input(1), ctx.hasInput(2) ? ctx.input(2) : null,
                ctx.input(0).dataType()));
    }

    /**
     * ONNX Conv's attributes (auto_pad, pads, strides, dilations, group, kernel_shape) on x and w as a
     * Convolution to {@code out}; also for the quantized convolutions, whose x and w are dequantized.
     */
    static LogicalTensor convolution(ImportContext ctx, LogicalTensor x, LogicalTensor w, LogicalTensor bias,
            DataType out) {
        long[] xd = x.dims();
        long[] wd = w.dims();
        if (xd == null || wd == null || xd.length < 3 || wd.length != xd.length) {
            throw ctx.invalid("X " + LogicalTensor.dimsToString(xd) + " and W " + LogicalTensor.dimsToString(wd)
                    + " must have the same rank >= 3 (N, C, spatial...)");
        }
        long[] kernel = Spatial.kernel(ctx, Arrays.copyOfRange(wd, 2, wd.length));
        Spatial s = Spatial.read(ctx, Arrays.copyOfRange(xd, 2, xd.length), kernel);
        long group = ctx.intAttr("group", 1);
        List<LogicalTensor> ins = new ArrayList<>(List.of(x, w));
        if (bias != null) {
            ins.add(bias);
        }
        return ctx.emit1(OpKind.Convolution, ins, out, b -> b.attr("strides", s.strides())
                .attr("dilations", s.dilations()).attr("pads_begin", s.padsBegin()).attr("pads_end", s.padsEnd())
                .attr("auto_pad", "None").attr("groups", group).attr("data_format", "NCX")
                .attr("weights_format", "OIX"));
    }

    /**
     * ConvTranspose as oneDNN's ConvTranspose with weights IOX ([C, M/group, k...], ONNX's layout).
     * Explicit pads and output_padding; output_shape and SAME auto_pad through
     * {@link #convTransposeToShape}.
     */
    private static void convTranspose(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        LogicalTensor w = ctx.input(1);
        long[] xd = x.dims();
        long[] wd = w.dims();
        if (xd == null || wd == null || xd.length < 3 || wd.length != xd.length) {
            throw ctx.invalid("X " + LogicalTensor.dimsToString(xd) + " and W " + LogicalTensor.dimsToString(wd)
                    + " must have the same rank >= 3 (N, C, spatial...)");
        }
        String autoPad = ctx.stringAttr("auto_pad", "NOTSET");
        long[] kernel = Spatial.kernel(ctx, Arrays.copyOfRange(wd, 2, wd.length));
        long[] outPad = ctx.intsAttr("output_padding", new long[kernel.length]);
        boolean same = autoPad.equals("SAME_UPPER") || autoPad.equals("SAME_LOWER");
        if (ctx.hasAttr("output_shape") || same) {
            ctx.setOutput(0, convTransposeToShape(ctx, x, w, xd, kernel, outPad, autoPad));
            return;
        }
        if (!autoPad.equals("NOTSET") && !autoPad.equals("VALID")) {
            throw ctx.invalid("auto_pad = '" + autoPad + "'; expected NOTSET, VALID, SAME_UPPER or SAME_LOWER");
        }
        Spatial s = Spatial.read(ctx, Arrays.copyOfRange(xd, 2, xd.length), kernel);
        long group = ctx.intAttr("group", 1);
        List<LogicalTensor> ins = new ArrayList<>(List.of(x, w));
        if (ctx.hasInput(2)) {
            ins.add(ctx.input(2));
        }
        ctx.setOutput(0, ctx.emit1(OpKind.ConvTranspose, ins, x.dataType(), b -> b.attr("strides", s.strides())
                .attr("dilations", s.dilations()).attr("pads_begin", s.padsBegin()).attr("pads_end", s.padsEnd())
                .attr("output_padding", outPad).attr("auto_pad", "None").attr("groups", group)
                .attr("data_format", "NCX").attr("weights_format", "IOX")));
    }

    /**
     * ConvTranspose with output_shape or SAME auto_pad: ONNX's total padding per spatial dim,
     * {@code stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - out} (out from
     * output_shape, or {@code in * stride} for SAME), split with the odd element at the end for
     * SAME_UPPER and at the beginning otherwise (ONNX's floor division); a negative end pad becomes
     * output_padding, a negative begin pad is refused.
     */
    private static LogicalTensor convTransposeToShape(ImportContext ctx, LogicalTensor x, LogicalTensor w, long[] xd,
            long[] kernel, long[] outPad, String autoPad) {
        int n = kernel.length;
        long[] strides = ctx.intsAttr("strides", ones(n));
        long[] dilations = ctx.intsAttr("dilations", ones(n));
        if (strides.length != n || dilations.length != n || outPad.length != n) {
            throw ctx.invalid("strides " + Arrays.toString(strides) + ", dilations " + Arrays.toString(dilations)
                    + " and output_padding " + Arrays.toString(outPad) + " need " + n + " values each");
        }
        long[] shape = ctx.intsAttr("output_shape", null);
        if (shape != null && shape.length != n && shape.length != n + 2) {
            throw ctx.invalid("output_shape " + Arrays.toString(shape) + " has " + shape.length + " values; expected "
                    + n + " (the spatial dims)");
        }
        long[] pb = new long[n];
        long[] pe = new long[n];
        long[] op = outPad.clone();
        for (int i = 0; i < n; i++) {
            long in = xd[i + 2];
            long out = shape != null ? shape[shape.length - n + i] : in * strides[i];
            long total = strides[i] * (in - 1) + outPad[i] + (kernel[i] - 1) * dilations[i] + 1 - out;
            boolean upper = autoPad.equals("SAME_UPPER");
            pb[i] = upper ? Math.floorDiv(total, 2) : total - Math.floorDiv(total, 2);
            pe[i] = total - pb[i];
            if (pe[i] < 0) {
                // A negative end pad extends the output at the end: output_padding does exactly that.
                op[i] += -pe[i];
                pe[i] = 0;
            }
            if (pb[i] < 0) {
                throw ctx.unsupported("output " + out + " of spatial dim " + i + " needs padding " + pb[i]
                        + " at the beginning (an output extended before the first element)");
            }
        }
        long group = ctx.intAttr("group", 1);
        List<LogicalTensor> ins = new ArrayList<>(List.of(x, w));
        if (ctx.hasInput(2)) {
            ins.add(ctx.input(2));
        }
        ctx.ignoreAttr("pads");
        return ctx.emit1(OpKind.ConvTranspose, ins, x.dataType(), b -> b.attr("strides", strides)
                .attr("dilations", dilations).attr("pads_begin", pb).attr("pads_end", pe)
                .attr("output_padding", op).attr("auto_pad", "None").attr("groups", group)
                .attr("data_format", "NCX").attr("weights_format", "IOX"));
    }

    private static long[] ones(int n) {
        long[] v = new long[n];
        Arrays.fill(v, 1);
        return v;
    }
}
