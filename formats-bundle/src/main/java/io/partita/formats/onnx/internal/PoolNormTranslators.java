package io.partita.formats.onnx.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/** Pooling, normalization, softmax and reductions. */
final class PoolNormTranslators {
    private PoolNormTranslators() {
    }

    static void register(Map<String, Translators.Entry> m) {
        Translators.add(m, "MaxPool", 12, PoolNormTranslators::maxPool);
        Translators.add(m, "AveragePool", 11, PoolNormTranslators::avgPool);
        Translators.add(m, "BatchNormalization", 9, PoolNormTranslators::batchNorm);
        Translators.add(m, "LayerNormalization", 17, PoolNormTranslators::layerNorm);
        Translators.add(m, "Softmax", 13, PoolNormTranslators::softmax);
        Translators.add(m, "ReduceMean", 13, reduce(OpKind.ReduceMean, 18));
        Translators.add(m, "ReduceMax", 13, reduce(OpKind.ReduceMax, 18));
        Translators.add(m, "ReduceMin", 13, reduce(OpKind.ReduceMin, 18));
        Translators.add(m, "ReduceSum", 13, reduce(OpKind.ReduceSum, 13));
        Translators.add(m, "ReduceProd", 13, reduce(OpKind.ReduceProd, 18));
    }

    private static long[] spatialOf(ImportContext ctx, LogicalTensor x) {
        long[] xd = x.dims();
        if (xd == null || xd.length < 3) {
            throw ctx.invalid("X " + LogicalTensor.dimsToString(xd) + " must have rank >= 3 (N, C, spatial...)");
        }
        return Arrays.copyOfRange(xd, 2, xd.length);
    }

    private static void maxPool(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        if (ctx.hasOutput(1)) {
            throw ctx.unsupported("output Indices: oneDNN's MaxPool gives no indices");
        }
        if (ctx.intAttr("storage_order", 0) != 0) {
            throw ctx.unsupported("storage_order = 1 (column-major indices)");
        }
        long[] kernel = Spatial.kernel(ctx, null);
        Spatial s = Spatial.read(ctx, spatialOf(ctx, x), kernel);
        boolean ceil = ctx.intAttr("ceil_mode", 0) != 0;
        ctx.setOutput(0, ctx.emit1(OpKind.MaxPool, List.of(x), x.dataType(), b -> b.attr("strides", s.strides())
                .attr("kernel", kernel).attr("dilations", s.dilations()).attr("pads_begin", s.padsBegin())
                .attr("pads_end", s.padsEnd()).attr("auto_pad", "None").attr("data_format", "NCX")
                .attr("rounding_type", ceil ? "ceil" : "floor")));
    }

    private static void avgPool(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] kernel = Spatial.kernel(ctx, null);
        Spatial s = Spatial.read(ctx, spatialOf(ctx, x), kernel);
        for (long d : s.dilations()) {
            if (d != 1) {
                throw ctx.unsupported("dilations " + Arrays.toString(s.dilations())
                        + ": oneDNN's AvgPool has no dilations");
            }
        }
        boolean ceil = ctx.intAttr("ceil_mode", 0) != 0;
        boolean countPad = ctx.intAttr("count_include_pad", 0) != 0;
        ctx.setOutput(0, ctx.emit1(OpKind.AvgPool, List.of(x), x.dataType(), b -> b.attr("strides", s.strides())
                .attr("kernel", kernel).attr("pads_begin", s.padsBegin()).attr("pads_end", s.padsEnd())
                .attr("auto_pad", "None").attr("data_format", "NCX").attr("exclude_pad", !countPad)
                .attr("rounding_type", ceil ? "ceil" : "floor")));
    }

    /**
     * Inference maps to BatchNormInference. training_mode = 1 maps to BatchNormForwardTraining,
     * whose running statistics follow ONNX's formula (running = momentum * input + (1 - momentum) *
     * batch, with the biased batch variance); its batch_mean / batch_variance outputs are unused.
     */
    private static void batchNorm(ImportContext ctx) {
        boolean training = ctx.intAttr("training_mode", 0) != 0;
        float momentum = ctx.floatAttr("momentum", 0.9f);
        float eps = ctx.floatAttr("epsilon", 1e-5f);
        LogicalTensor x = ctx.input(0);
        if (!training) {
            if (ctx.hasOutput(1) || ctx.hasOutput(2)) {
                throw ctx.invalid("running_mean / running_var outputs are only defined with training_mode = 1");
            }
            List<LogicalTensor> ins = List.of(x, ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4));
            ctx.setOutput(0, ctx.emit1(OpKind.BatchNormInference, ins, x.dataType(),
                    b -> b.attr("epsilon", eps).attr("data_format", "NCX")));
            return;
        }
        LogicalTensor mean = ctx.input(3);
        DataType st = mean.dataType();
        List<LogicalTensor> ins = List.of(x, mean, ctx.input(4), ctx.input(1), ctx.input(2));
        List<LogicalTensor> outs = ctx.emit(OpKind.BatchNormForwardTraining, ins,
                new DataType[] {x.dataType(), st, st, st, st},
                b -> b.attr("epsilon", eps).attr("momentum", momentum).attr("data_format", "NCX"));
        for (int i = 0; i < 3; i++) {
            ctx.setOutput(i, outs.get(i));
        }
    }

    /**
     * oneDNN's LayerNorm gives mean and variance of shape src[:axis]; ONNX's Mean and InvStdDev keep
     * the normalized dims as 1, and InvStdDev is 1 / sqrt(variance + epsilon).
     */
    private static void layerNorm(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = x.dims();
        if (xd == null) {
            throw ctx.invalid("X has unknown rank");
        }
        int rank = xd.length;
        int a = ctx.axis(ctx.intAttr("axis", -1), rank, "axis");
        float eps = ctx.floatAttr("epsilon", 1e-5f);
        long stash = ctx.intAttr("stash_type", 1);
        if (stash != 1) {
            throw ctx.unsupported("stash_type = " + stash + " (only FLOAT statistics)");
        }
        LogicalTensor scale = ctx.input(1);
        LogicalTensor bias = ctx.hasInput(2) ? ctx.input(2)
                : ctx.constantTensor(ctx.zeros("zero bias", scale.dataType(), ctx.rankedDims(scale, "Scale")));
        long[] norm = Arrays.copyOfRange(xd, a, rank);
        scale = reshapeIfNeeded(ctx, scale, norm);
        bias = reshapeIfNeeded(ctx, bias, norm);
        boolean stats = ctx.hasOutput(1) || ctx.hasOutput(2);
        DataType statType = DataType.F32;
        List<LogicalTensor> ins = List.of(x, scale, bias);
        DataType[] outs = stats ? new DataType[] {x.dataType(), statType, statType} : new DataType[] {x.dataType()};
        List<LogicalTensor> r = ctx.emit(OpKind.LayerNorm, ins, outs, b -> b.attr("begin_norm_axis", (long) a)
                .attr("epsilon", eps).attr("use_affine", true).attr("keep_stats", stats));
        ctx.setOutput(0, r.get(0));
        if (!stats) {
            return;
        }
        long[] kept = xd.clone();
        for (int i = a; i < rank; i++) {
            kept[i] = 1;
        }
        if (ctx.hasOutput(1)) {
            ctx.setOutput(1, ShapeTranslators.staticReshape(ctx, r.get(1), kept));
        }
        if (ctx.hasOutput(2)) {
            LogicalTensor v = r.get(2);
            LogicalTensor ve = ctx.emit1(OpKind.Add, List.of(v, ctx.scalar(statType, eps)), statType, b -> { });
            LogicalTensor sd = ctx.emit1(OpKind.Sqrt, List.of(ve), statType, b -> { });
            LogicalTensor inv = ctx.emit1(OpKind.Reciprocal, List.of(sd), statType, b -> { });
            ctx.setOutput(2, ShapeTranslators.staticReshape(ctx, inv, kept));
        }
    }

    /** ONNX allows Scale/B of a shape broadcastable to X[axis:]; oneDNN wants exactly X[axis:]. */
    private static LogicalTensor reshapeIfNeeded(ImportContext ctx, LogicalTensor t, long[] norm) {
        if (Arrays.equals(t.dims(), norm)) {
            return t;
        }
        if (t.elementCount() == LogicalTensor.of(0, t.dataType(), norm).elementCount()) {
            return ShapeTranslators.staticReshape(ctx, t, norm);
        }
        throw ctx.unsupported("Scale/B of shape " + LogicalTensor.dimsToString(t.dims())
                + " broadcast to the normalized shape " + LogicalTensor.dimsToString(norm));
    }

    private static void softmax(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long axis = ctx.intAttr("axis", -1);
        int rank = x.ndims();
        long a = axis < 0 ? axis + rank : axis;
        ctx.setOutput(0, ctx.emit1(OpKind.SoftMax, List.of(x), x.dataType(), b -> b.attr("axis", a)));
    }

    /**
     * Reductions: axes from the attribute (before {@code axesInputSince}) or from a constant input;
     * no axes reduce everything unless noop_with_empty_axes. Axes known only at execution would make
     * the output shape dynamic: reported as unsupported.
     */
    static NodeTranslator reduce(OpKind kind, int axesInputSince) {
        return ctx -> {
            LogicalTensor x = ctx.input(0);
            long[] xd = ctx.rankedDims(x, "input");
            boolean keep = ctx.intAttr("keepdims", 1) != 0;
            long[] axes;
            boolean noop = false;
            if (ctx.opset() >= axesInputSince) {
                noop = ctx.intAttr("noop_with_empty_axes", 0) != 0;
                if (ctx.hasInput(1)) {
                    if (!ctx.isConstant(1)) {
                        throw ctx.unsupported("axes given at run time (input 'axes' is not a constant): the "
                                + "output shape would be known only at execution");
                    }
                    axes = ctx.intsInput(1, "axes");
                } else {
                    axes = new long[0];
                }
            } else {
                axes = ctx.intsAttr("axes", new long[0]);
            }
            if (axes.length == 0) {
                if (noop) {
                    ctx.setOutput(0, ctx.emit1(OpKind.Reorder, List.of(x), x.dataType(), b -> { }));
                    return;
                }
                axes = new long[xd.length];
                for (int i = 0; i < xd.length; i++) {
                    axes[i] = i;
                }
            }
            List<Long> norm = new ArrayList<>();
            for (long ax : axes) {
                norm.add(ax < 0 ? ax + xd.length : ax);
            }
            long[] normAxes = norm.stream().mapToLong(Long::longValue).toArray();
            ctx.setOutput(0, ctx.emit1(kind, List.of(x), x.dataType(),
                    b -> b.attr("axes", normAxes).attr("keep_dims", keep)));
        };
    }
}
