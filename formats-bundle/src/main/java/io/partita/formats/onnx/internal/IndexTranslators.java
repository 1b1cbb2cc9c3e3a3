package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.internal.Translators.v;

import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/**
 * Selection and indexing ops with no oneDNN equivalent, as Partita extension ops: ArgMax / ArgMin
 * (PartitaArgMax / PartitaArgMin), Gather and GatherElements with indices or data known only at
 * execution (PartitaGather / PartitaGatherElements; a Gather of constants is computed at import),
 * Less / LessOrEqual / Greater / GreaterOrEqual / Equal (PartitaCompare).
 */
final class IndexTranslators {
    private IndexTranslators() {
    }

    static void register(Map<String, NavigableMap<Integer, NodeTranslator>> m) {
        // Range 11: start/limit/delta inputs (constant ones are folded at import); 27: f16/bf16 with stash_type.
        Translators.add(m, "Range", v(11, 27), IndexTranslators::range);
        // ArgMax/ArgMin 1: axis, keepdims; 11: negative axis; 12: select_last_index; 13: bf16.
        Translators.add(m, "ArgMax", v(1, 11, 12, 13), arg(OpKind.PartitaArgMax));
        Translators.add(m, "ArgMin", v(1, 11, 12, 13), arg(OpKind.PartitaArgMin));
        // Gather 1; 11: negative indices; 13: bf16. GatherElements 11; 13: bf16.
        Translators.add(m, "Gather", v(1, 11, 13), gather(OpKind.PartitaGather));
        Translators.add(m, "GatherElements", v(11, 13), gather(OpKind.PartitaGatherElements));
        // Comparisons with numpy broadcasting (before 7: legacy broadcast attributes, not translated);
        // later versions add types (bf16, bool for Equal, string for Equal 19, which has no Partita type).
        Translators.add(m, "Less", v(7, 9, 13), compare("less"));
        Translators.add(m, "Greater", v(7, 9, 13), compare("greater"));
        Translators.add(m, "LessOrEqual", v(12, 16), compare("less_equal"));
        Translators.add(m, "GreaterOrEqual", v(12, 16), compare("greater_equal"));
        Translators.add(m, "Equal", v(7, 11, 13, 19), compare("equal"));
        // TopK 1: k attribute; 10: k input; 11: largest, sorted, negative axis; 24: more types.
        Translators.add(m, "TopK", v(1, 10, 11, 24), IndexTranslators::topK);
        Translators.add(m, "LRN", v(1, 13), IndexTranslators::lrn);
        Translators.add(m, "CumSum", v(11, 14), IndexTranslators::cumSum);
        Translators.add(m, "Floor", v(6, 13), ElementwiseTranslators.unary(OpKind.PartitaFloor));
        Translators.add(m, "Ceil", v(6, 13), ElementwiseTranslators.unary(OpKind.PartitaCeil));
        // Piecewise activations as comparisons and selections (exact: the same f32 operations as ONNX's).
        Translators.add(m, "ThresholdedRelu", v(10, 22), IndexTranslators::thresholdedRelu);
        Translators.add(m, "Shrink", v(9), IndexTranslators::shrink);
        Translators.add(m, "Einsum", v(12), IndexTranslators::einsum);
        // MaxUnpool 9; 11: output_shape semantics clarified; 22: more float types.
        Translators.add(m, "MaxUnpool", v(9, 11, 22), IndexTranslators::maxUnpool);
    }

    /**
     * Einsum as PartitaEinsum: the op schema parses the equation and checks it against the inputs'
     * ranks, naming the bad term or label of a malformed one.
     */
    private static void einsum(ImportContext ctx) {
        String equation = ctx.stringAttr("equation", null);
        if (equation == null) {
            throw ctx.invalid("attribute equation is required");
        }
        List<LogicalTensor> xs = new java.util.ArrayList<>();
        for (int i = 0; i < ctx.inputCount(); i++) {
            LogicalTensor x = ctx.input(i);
            if (!xs.isEmpty() && x.dataType() != xs.get(0).dataType()) {
                throw ctx.invalid("input " + i + " is " + x.dataType() + " but input 0 is " + xs.get(0).dataType()
                        + "; expected one data type");
            }
            xs.add(x);
        }
        if (xs.isEmpty()) {
            throw ctx.invalid("has no inputs; expected at least one");
        }
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaEinsum, xs, xs.get(0).dataType(),
                b -> b.attr("equation", equation)));
    }

    /** MaxUnpool as PartitaMaxUnpool, pads split into begin and end. */
    private static void maxUnpool(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        LogicalTensor ind = ctx.input(1);
        long[] kernel = ctx.intsAttr("kernel_shape", null);
        if (kernel == null) {
            throw ctx.invalid("attribute kernel_shape is required");
        }
        int n = kernel.length;
        long[] strides = ctx.intsAttr("strides", new long[0]);
        long[] pads = ctx.intsAttr("pads", new long[0]);
        if (pads.length != 0 && pads.length != 2 * n) {
            throw ctx.invalid("pads " + java.util.Arrays.toString(pads) + " has " + pads.length + " values; expected "
                    + 2 * n + " (begin and end per spatial dim of kernel_shape)");
        }
        long[] pb = pads.length == 0 ? pads : java.util.Arrays.copyOfRange(pads, 0, n);
        long[] pe = pads.length == 0 ? pads : java.util.Arrays.copyOfRange(pads, n, 2 * n);
        if (ind.dataType() != DataType.S64) {
            throw ctx.invalid("I is " + ind.dataType() + "; expected int64");
        }
        List<LogicalTensor> ins = ctx.hasInput(2) ? List.of(x, ind, ctx.input(2)) : List.of(x, ind);
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaMaxUnpool, ins, x.dataType(), b -> b.attr("kernel", kernel)
                .attr("strides", strides).attr("pads_begin", pb).attr("pads_end", pe)));
    }

    private static NodeTranslator arg(OpKind kind) {
        return ctx -> {
            LogicalTensor x = ctx.input(0);
            long[] xd = nonScalarData(ctx, x);
            int axis = ctx.axis(ctx.intAttr("axis", 0), xd.length, "axis");
            boolean keep = ctx.intAttr("keepdims", 1) != 0;
            boolean last = ctx.opVersion() >= 12 && ctx.intAttr("select_last_index", 0) != 0;
            if (ctx.opVersion() < 12 && ctx.hasAttr("select_last_index")) {
                throw ctx.invalid("attribute select_last_index exists from ArgMax/ArgMin 12 on");
            }
            ctx.setOutput(0, ctx.emit1(kind, List.of(x), DataType.S64, b -> b.attr("axis", (long) axis)
                    .attr("keep_dims", keep).attr("select_last_index", last)));
        };
    }

    private static NodeTranslator compare(String mode) {
        return ctx -> {
            LogicalTensor a = ctx.input(0);
            LogicalTensor b = ctx.input(1);
            if (a.dataType() != b.dataType()) {
                throw ctx.invalid("A is " + a.dataType() + " and B is " + b.dataType() + "; expected one data type");
            }
            ctx.setOutput(0, ctx.emit1(OpKind.PartitaCompare, List.of(a, b), DataType.BOOLEAN,
                    op -> op.attr("mode", mode)));
        };
    }

    private static void topK(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "X");
        if (xd.length == 0) {
            throw ctx.invalid("X is a scalar; expected rank >= 1");
        }
        int axis = ctx.axis(ctx.intAttr("axis", -1), xd.length, "axis");
        boolean largest = ctx.opVersion() < 11 || ctx.intAttr("largest", 1) != 0;
        // sorted = 0 lets the order be any: the sorted order is one of them.
        ctx.ignoreAttr("sorted");
        LogicalTensor k;
        if (ctx.opVersion() < 10) {
            if (!ctx.hasAttr("k")) {
                throw ctx.invalid("attribute k is required");
            }
            long kv = ctx.intAttr("k", 0);
            k = ctx.constantTensor(io.partita.formats.onnx.OnnxTensor.ofLongs("k", new long[] {1}, new long[] {kv}));
        } else {
            k = ctx.input(1);
            long[] kd = k.dims();
            if (k.dataType() != DataType.S64 || kd == null || kd.length != 1 || kd[0] != 1) {
                throw ctx.invalid("K is " + k.dataType() + LogicalTensor.dimsToString(kd) + "; expected int64 [1]");
            }
        }
        List<LogicalTensor> r = ctx.emit(OpKind.PartitaTopK, List.of(x, k), new DataType[] {x.dataType(), DataType.S64},
                b -> b.attr("axis", (long) axis).attr("largest", largest));
        ctx.setOutput(0, r.get(0));
        ctx.setOutput(1, r.get(1));
    }

    private static void lrn(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "X");
        if (xd.length < 2) {
            throw ctx.invalid("X " + LogicalTensor.dimsToString(xd) + " must have rank >= 2 (N, C, ...)");
        }
        if (!ctx.hasAttr("size") || ctx.intAttr("size", 0) < 1) {
            throw ctx.invalid("attribute size is required and must be at least 1");
        }
        long size = ctx.intAttr("size", 0);
        float alpha = ctx.floatAttr("alpha", 1e-4f);
        float beta = ctx.floatAttr("beta", 0.75f);
        float bias = ctx.floatAttr("bias", 1f);
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaLRN, List.of(x), x.dataType(), b -> b.attr("size", size)
                .attr("alpha", alpha).attr("beta", beta).attr("bias", bias)));
    }

    private static void cumSum(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "x");
        if (xd.length == 0) {
            throw ctx.invalid("x is a scalar; expected rank >= 1");
        }
        LogicalTensor axis = ctx.input(1);
        boolean exclusive = ctx.intAttr("exclusive", 0) != 0;
        boolean reverse = ctx.intAttr("reverse", 0) != 0;
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaCumSum, List.of(x, axis), x.dataType(),
                b -> b.attr("exclusive", exclusive).attr("reverse", reverse)));
    }

    private static LogicalTensor cmp(ImportContext ctx, LogicalTensor a, LogicalTensor b, String mode) {
        return ctx.emit1(OpKind.PartitaCompare, List.of(a, b), DataType.BOOLEAN, op -> op.attr("mode", mode));
    }

    private static LogicalTensor select(ImportContext ctx, LogicalTensor c, LogicalTensor a, LogicalTensor b) {
        return ctx.emit1(OpKind.Select, List.of(c, a, b), a.dataType(), op -> { });
    }

    /** ThresholdedRelu: x where x > alpha, else 0 (Select of a PartitaCompare). */
    private static void thresholdedRelu(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        DataType dt = x.dataType();
        LogicalTensor alpha = ctx.scalar(dt, ctx.floatAttr("alpha", 1f));
        ctx.setOutput(0, select(ctx, cmp(ctx, x, alpha, "greater"), x, ctx.scalar(dt, 0)));
    }

    /** Shrink: x + bias where x < -lambd, x - bias where x > lambd, else 0 (float types). */
    private static void shrink(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        DataType dt = x.dataType();
        if (dt != DataType.F32 && dt != DataType.F16 && dt != DataType.BF16) {
            throw ctx.unsupported("data type " + dt + " (floating-point inputs only)");
        }
        float lambd = ctx.floatAttr("lambd", 0.5f);
        float bias = ctx.floatAttr("bias", 0f);
        LogicalTensor plus = ctx.emit1(OpKind.Add, List.of(x, ctx.scalar(dt, bias)), dt, op -> { });
        LogicalTensor minus = ctx.emit1(OpKind.Subtract, List.of(x, ctx.scalar(dt, bias)), dt, op -> { });
        LogicalTensor upper = select(ctx, cmp(ctx, x, ctx.scalar(dt, lambd), "greater"), minus, ctx.scalar(dt, 0));
        ctx.setOutput(0, select(ctx, cmp(ctx, x, ctx.scalar(dt, -lambd), "less"), plus, upper));
    }

    private static NodeTranslator gather(OpKind kind) {
        return ctx -> {
            LogicalTensor data = ctx.input(0);
            long[] xd = nonScalarData(ctx, data);
            int axis = ctx.axis(ctx.intAttr("axis", 0), xd.length, "axis");
            LogicalTensor indices = ctx.input(1);
            ctx.rankedDims(indices, "indices");
            ctx.setOutput(0, ctx.emit1(kind, List.of(data, indices), data.dataType(),
                    b -> b.attr("axis", (long) axis)));
        };
    }

    /** The dims of input {@code data}, which must have a known rank of at least 1. */
    private static long[] nonScalarData(ImportContext ctx, LogicalTensor data) {
        long[] d = ctx.rankedDims(data, "data");
        if (d.length == 0) {
            throw ctx.invalid("data is a scalar; expected rank >= 1");
        }
        return d;
    }

    /**
     * Range whose bounds are known only at execution: PartitaRange for integer bounds, whose length
     * the runtime computes from their values; float bounds are refused (the length would depend on
     * float values).
     */
    private static void range(ImportContext ctx) {
        checkStashType(ctx);
        DataType t = ctx.input(0).dataType();
        if (t != DataType.S32 && t != DataType.S64) {
            throw ctx.unsupported("start, limit and delta of type " + t + " known only at execution: the output "
                    + "length would depend on float values (int32 or int64 bounds may be known only at execution)");
        }
        for (int i = 1; i < 3; i++) {
            if (ctx.input(i).dataType() != t) {
                throw ctx.invalid((i == 1 ? "limit" : "delta") + " is " + ctx.input(i).dataType() + " but start is " + t
                        + "; expected one data type");
            }
        }
        if (ctx.isConstant(2) && ctx.constant(2).toDoubleArray().length == 1 && ctx.constant(2).toDoubleArray()[0] == 0) {
            throw ctx.invalid("delta is 0; expected a delta other than 0");
        }
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaRange, List.of(ctx.input(0), ctx.input(1), ctx.input(2)), t, b -> { }));
    }

    /** Range 27's stash_type: float accumulation (1) only; it does not exist before version 27. */
    static void checkStashType(ImportContext ctx) {
        if (!ctx.hasAttr("stash_type")) {
            return;
        }
        long stash = ctx.intAttr("stash_type", 1);
        if (ctx.opVersion() < 27) {
            throw ctx.invalid("attribute stash_type exists from Range 27 on");
        }
        if (stash != 1) {
            throw ctx.unsupported("stash_type " + stash + " (only 1: f16/bf16 ranges accumulated in float)");
        }
    }
}
