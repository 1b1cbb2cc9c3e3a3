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

/** Pooling, normalization, softmax and reductions. */
final class PoolNormTranslators {
    private PoolNormTranslators() {
    }

    static void register(Map<String, NavigableMap<Integer, NodeTranslator>> m) {
        // MaxPool 1 has no dilations / ceil_mode / storage_order (their defaults are version 1's meaning).
        Translators.add(m, "MaxPool", v(1, 8, 10, 11, 12, 22), PoolNormTranslators::maxPool);
        // AveragePool 1 has no count_include_pad: its default 0 is version 1's meaning.
        Translators.add(m, "AveragePool", v(1, 7, 10, 11, 19, 22), PoolNormTranslators::avgPool);
        Translators.add(m, "GlobalAveragePool", v(1, 22), global(OpKind.ReduceMean));
        Translators.add(m, "GlobalMaxPool", v(1, 22), global(OpKind.ReduceMax));
        // 6: is_test / spatial; 7: spatial; 9: neither; 14: training_mode.
        Translators.add(m, "BatchNormalization", v(6, 7, 9, 14, 15), PoolNormTranslators::batchNorm);
        Translators.add(m, "InstanceNormalization", v(6, 22), PoolNormTranslators::instanceNorm);
        Translators.add(m, "LayerNormalization", v(17), PoolNormTranslators::layerNorm);
        Translators.add(m, "RMSNormalization", v(23), PoolNormTranslators::rmsNorm);
        // GroupNormalization 21: scale and bias per channel (18 had them per group: not translated).
        Translators.add(m, "GroupNormalization", v(21), PoolNormTranslators::groupNorm);
        // Before 13: the input is coerced to 2-D at axis (default 1); from 13: one axis (default -1).
        Translators.add(m, "Softmax", v(1, 11, 13), softmax(OpKind.SoftMax));
        Translators.add(m, "LogSoftmax", v(1, 11, 13), softmax(OpKind.LogSoftmax));
        Translators.add(m, "ReduceMean", v(1, 11, 13, 18), reduce(OpKind.ReduceMean, 18, "mean"));
        Translators.add(m, "ReduceMax", v(1, 11, 12, 13, 18, 20), reduce(OpKind.ReduceMax, 18, "max"));
        Translators.add(m, "ReduceMin", v(1, 11, 12, 13, 18, 20), reduce(OpKind.ReduceMin, 18, "min"));
        Translators.add(m, "ReduceSum", v(1, 11, 13), reduce(OpKind.ReduceSum, 13, "sum"));
        Translators.add(m, "ReduceProd", v(1, 11, 13, 18), reduce(OpKind.ReduceProd, 18, "prod"));
        Translators.add(m, "ReduceL1", v(1, 11, 13, 18), reduce(OpKind.ReduceL1, 18, "l1"));
        Translators.add(m, "ReduceL2", v(1, 11, 13, 18), reduce(OpKind.ReduceL2, 18, "l2"));
        // No oneDNN equivalent: the PartitaReduce extension op, whatever the axes.
        Translators.add(m, "ReduceSumSquare", v(1, 11, 13, 18), reduce(null, 18, "sum_square"));
        Translators.add(m, "ReduceLogSum", v(1, 11, 13, 18), reduce(null, 18, "log_sum"));
        Translators.add(m, "ReduceLogSumExp", v(1, 11, 13, 18), reduce(null, 18, "log_sum_exp"));
    }

    /** GlobalAveragePool / GlobalMaxPool: a reduction over the spatial dims, kept as 1s. */
    private static NodeTranslator global(OpKind kind) {
        return ctx -> {
            LogicalTensor x = ctx.input(0);
            long[] xd = spatialOf(ctx, x);
            long[] axes = new long[xd.length];
            for (int i = 0; i < axes.length; i++) {
                axes[i] = i + 2;
            }
            ctx.setOutput(0, ctx.emit1(kind, List.of(x), x.dataType(),
                    b -> b.attr("axes", axes).attr("keep_dims", true)));
        };
    }

    /** InstanceNormalization: oneDNN's GroupNorm with one group per channel. */
    private static void instanceNorm(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = x.dims();
        if (xd == null || xd.length < 3) {
            throw ctx.invalid("input " + LogicalTensor.dimsToString(xd) + " must have rank >= 3 (N, C, spatial...)");
        }
        float eps = ctx.floatAttr("epsilon", 1e-5f);
        long c = xd[1];
        List<LogicalTensor> ins = List.of(x, ctx.input(1), ctx.input(2));
        ctx.setOutput(0, ctx.emit1(OpKind.GroupNorm, ins, x.dataType(), b -> b.attr("groups", c)
                .attr("epsilon", eps).attr("use_affine", true).attr("keep_stats", false).attr("data_format", "NCX")));
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
        int version = ctx.opVersion();
        ctx.ignoreAttr("consumed_inputs"); // version 1's bookkeeping for in-place updates; no meaning here
        if (version < 7 && ctx.intAttr("is_test", 0) == 0) {
            throw ctx.unsupported("is_test = 0 (training mode with batch statistics in version 6)");
        }
        if (version < 9 && ctx.intAttr("spatial", 1) == 0) {
            throw ctx.unsupported("spatial = 0 (statistics per element, not per channel)");
        }
        if (version < 14 && (ctx.hasOutput(1) || ctx.hasOutput(2) || ctx.hasOutput(3) || ctx.hasOutput(4))) {
            throw ctx.unsupported("mean / var / saved statistics outputs (training in version " + version + ")");
        }
        boolean training = version >= 14 && ctx.intAttr("training_mode", 0) != 0;
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
        requireFloatStatistics(ctx);
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

    /** GroupNormalization (21): oneDNN's GroupNorm (NCX), scale and bias [C]. */
    private static void groupNorm(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "X");
        if (xd.length < 2) {
            throw ctx.invalid("X " + LogicalTensor.dimsToString(xd) + " must have rank >= 2 (N, C, ...)");
        }
        if (!ctx.hasAttr("num_groups")) {
            throw ctx.invalid("attribute num_groups is required");
        }
        long groups = ctx.intAttr("num_groups", 0);
        if (groups <= 0 || xd[1] % groups != 0) {
            throw ctx.invalid("num_groups " + groups + " does not divide the " + xd[1] + " channels");
        }
        float eps = ctx.floatAttr("epsilon", 1e-5f);
        requireFloatStatistics(ctx);
        for (int i = 1; i <= 2; i++) {
            long[] d = ctx.rankedDims(ctx.input(i), i == 1 ? "scale" : "bias");
            if (d.length != 1 || d[0] != xd[1]) {
                throw ctx.invalid((i == 1 ? "scale " : "bias ") + LogicalTensor.dimsToString(d) + "; expected ["
                        + xd[1] + "] (one per channel)");
            }
        }
        List<LogicalTensor> ins = List.of(x, ctx.input(1), ctx.input(2));
        ctx.setOutput(0, ctx.emit1(OpKind.GroupNorm, ins, x.dataType(), b -> b.attr("groups", groups)
                .attr("epsilon", eps).attr("use_affine", true).attr("keep_stats", false).attr("data_format", "NCX")));
    }

    /**
     * RMSNormalization (23): oneDNN's RMSNorm over the dims from axis on, the scale broadcast to
     * X[axis:] (numpy rules against X, which RMSNorm's gamma follows); float statistics only.
     */
    private static void rmsNorm(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "X");
        int rank = xd.length;
        if (rank == 0) {
            throw ctx.invalid("X must have rank >= 1");
        }
        int a = ctx.axis(ctx.intAttr("axis", -1), rank, "axis");
        float eps = ctx.floatAttr("epsilon", 1e-5f);
        requireFloatStatistics(ctx);
        LogicalTensor scale = ctx.input(1);
        long[] sd = ctx.rankedDims(scale, "scale");
        long[] norm = Arrays.copyOfRange(xd, a, rank);
        if (sd.length > norm.length) {
            throw ctx.invalid("scale " + LogicalTensor.dimsToString(sd) + " has a higher rank than the normalized dims "
                    + LogicalTensor.dimsToString(norm) + " of X " + LogicalTensor.dimsToString(xd) + " at axis " + a);
        }
        for (int i = 0; i < sd.length; i++) {
            long n = norm[norm.length - sd.length + i];
            if (sd[i] != 1 && sd[i] != n) {
                throw ctx.invalid("scale " + LogicalTensor.dimsToString(sd) + " does not broadcast to the normalized "
                        + "dims " + LogicalTensor.dimsToString(norm) + " of X " + LogicalTensor.dimsToString(xd));
            }
        }
        ctx.setOutput(0, ctx.emit1(OpKind.RMSNorm, List.of(x, scale), x.dataType(),
                b -> b.attr("begin_norm_axis", (long) a).attr("epsilon", eps)));
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

    /**
     * Softmax / LogSoftmax. From version 13: over one axis (default -1). Before 13: the input is
     * coerced to 2-D, [d0 * ... * d(axis-1), d(axis) * ... * d(n-1)] (axis default 1), and the
     * softmax runs over the second dim: a reshape around a softmax over axis 1 unless axis is the
     * last one.
     */
    private static NodeTranslator softmax(OpKind kind) {
        return ctx -> {
            LogicalTensor x = ctx.input(0);
            long[] xd = ctx.rankedDims(x, "input");
            int rank = xd.length;
            if (ctx.opVersion() >= 13) {
                long a = ctx.axis(ctx.intAttr("axis", -1), rank, "axis");
                ctx.setOutput(0, ctx.emit1(kind, List.of(x), x.dataType(), b -> b.attr("axis", a)));
                return;
            }
            long axis = ctx.intAttr("axis", 1);
            if (axis < -rank || axis > rank) {
                throw ctx.invalid("axis " + axis + " is out of range [" + -rank + ", " + rank + "] for rank " + rank);
            }
            int a = (int) (axis < 0 ? axis + rank : axis);
            if (a == rank - 1) {
                ctx.setOutput(0, ctx.emit1(kind, List.of(x), x.dataType(), b -> b.attr("axis", (long) (rank - 1))));
                return;
            }
            if (rank == 0) {
                throw ctx.unsupported("a scalar input");
            }
            long outer = 1;
            long inner = 1;
            for (int i = 0; i < rank; i++) {
                if (i < a) {
                    outer *= xd[i];
                } else {
                    inner *= xd[i];
                }
            }
            LogicalTensor flat = ShapeTranslators.staticReshape(ctx, x, new long[] {outer, inner});
            LogicalTensor y = ctx.emit1(kind, List.of(flat), x.dataType(), b -> b.attr("axis", 1L));
            ctx.setOutput(0, ShapeTranslators.staticReshape(ctx, y, xd.clone()));
        };
    }

    /**
     * Reductions: axes from the attribute (before {@code axesInputSince}) or from a constant input;
     * no axes reduce everything unless noop_with_empty_axes. Axes known only at execution would make
     * the output shape dynamic: reported as unsupported.
     */
    /**
     * Reduce*: axes from the attribute (before {@code axesInputSince}) or the optional input. A
     * oneDNN reduction for constant axes; the PartitaReduce extension op (mode {@code mode}) when
     * the axes are known only at execution or {@code kind} is null (no oneDNN equivalent). Empty
     * axes reduce every axis, or with noop_with_empty_axes copy the input.
     */
    static NodeTranslator reduce(OpKind kind, int axesInputSince, String mode) {
        return ctx -> {
            LogicalTensor x = ctx.input(0);
            long[] xd = ctx.rankedDims(x, "input");
            boolean keep = ctx.intAttr("keepdims", 1) != 0;
            long[] axes;
            boolean noop = false;
            LogicalTensor runtimeAxes = null;
            if (ctx.opVersion() >= axesInputSince) {
                noop = ctx.intAttr("noop_with_empty_axes", 0) != 0;
                if (ctx.hasInput(1) && !ctx.isConstant(1)) {
                    long[] ad = ctx.inputDims(1);
                    if (ad == null || ad.length != 1 || ad[0] < 0) {
                        throw ctx.invalid("axes input has dims " + LogicalTensor.dimsToString(ad)
                                + "; expected a 1-D tensor of known length");
                    }
                    axes = new long[0];
                    if (ad[0] > 0) {
                        runtimeAxes = ctx.input(1);
                    }
                } else if (ctx.hasInput(1)) {
                    axes = ctx.intsInput(1, "axes");
                } else {
                    axes = new long[0];
                }
            } else {
                axes = ctx.intsAttr("axes", new long[0]);
            }
            if (runtimeAxes == null && axes.length == 0) {
                if (noop) {
                    DataType xt0 = x.dataType();
                    boolean fl = xt0 == DataType.F32 || xt0 == DataType.BF16 || xt0 == DataType.F16;
                    ctx.setOutput(0, ctx.emit1(fl ? OpKind.Reorder : OpKind.PartitaCopy, List.of(x), xt0, b -> { }));
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
            DataType xt = x.dataType();
            boolean floating = xt == DataType.F32 || xt == DataType.BF16 || xt == DataType.F16;
            if (kind != null && runtimeAxes == null && floating) {
                ctx.setOutput(0, ctx.emit1(kind, List.of(x), x.dataType(),
                        b -> b.attr("axes", normAxes).attr("keep_dims", keep)));
                return;
            }
            LogicalTensor axesIn = runtimeAxes != null ? runtimeAxes
                    : ctx.constantTensor(OnnxTensor.ofLongs("axes", new long[] {normAxes.length}, normAxes));
            ctx.setOutput(0, ctx.emit1(OpKind.PartitaReduce, List.of(x, axesIn), x.dataType(),
                    b -> b.attr("mode", mode).attr("keep_dims", keep)));
        };
    }

    /** The normalizations' {@code stash_type}: only FLOAT (1) statistics are computed. */
    private static void requireFloatStatistics(ImportContext ctx) {
        long stash = ctx.intAttr("stash_type", 1);
        if (stash != 1) {
            throw ctx.unsupported("stash_type = " + stash + " (only FLOAT statistics)");
        }
    }
}
