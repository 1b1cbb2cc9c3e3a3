package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.internal.Translators.v;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/**
 * Slice, Split, Pad, Tile and Expand on data known only at execution, as Partita extension ops
 * (PartitaSlice, PartitaSplit, PartitaPad, PartitaTile, PartitaExpand); their index inputs may be
 * constants (attributes of old versions become constant inputs) or known only at execution, when
 * the output dims are computed at execution. A Slice of a constant is computed at import.
 */
final class SliceTranslators {
    private SliceTranslators() {
    }

    static void register(Map<String, NavigableMap<Integer, NodeTranslator>> m) {
        // Slice 1: starts/ends/axes attributes; 10: inputs with steps; 11: negative values; 13: bf16.
        Translators.add(m, "Slice", v(1, 10, 11, 13), SliceTranslators::slice);
        // Split 2: split attribute; 11: negative axis; 13: split input; 18: num_outputs.
        Translators.add(m, "Split", v(2, 11, 13, 18), SliceTranslators::split);
        // Pad 2: pads/value attributes; 11: pads/constant_value inputs; 13: bf16; 18: axes input;
        // 19: wrap mode; 21, 23, 24, 25: more types.
        Translators.add(m, "Pad", v(2, 11, 13, 18, 19, 21, 23, 24, 25), SliceTranslators::pad);
        Translators.add(m, "Tile", v(6, 13), SliceTranslators::tile);
        Translators.add(m, "Expand", v(8, 13), SliceTranslators::expand);
    }

    private static LogicalTensor longs(ImportContext ctx, String name, long... values) {
        return ctx.constantTensor(OnnxTensor.ofLongs(name, new long[] {values.length}, values));
    }

    /** A 1-D s32/s64 input of known length; returns it. */
    private static LogicalTensor indexInput(ImportContext ctx, int i, String name) {
        LogicalTensor t = ctx.input(i);
        long[] d = t.dims();
        if (t.dataType() != DataType.S64 && t.dataType() != DataType.S32) {
            throw ctx.invalid(name + " (input " + i + ") is " + t.dataType() + "; expected int64 or int32");
        }
        if (d == null || d.length != 1 || d[0] < 0) {
            throw ctx.invalid(name + " (input " + i + ") has dims " + LogicalTensor.dimsToString(d)
                    + "; expected a 1-D tensor of known length");
        }
        return t;
    }

    private static void slice(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        ctx.rankedDims(x, "data");
        LogicalTensor starts;
        LogicalTensor ends;
        LogicalTensor axes;
        LogicalTensor steps;
        if (ctx.opVersion() < 10) {
            long[] s = ctx.intsAttr("starts", null);
            long[] e = ctx.intsAttr("ends", null);
            if (s == null || e == null) {
                throw ctx.invalid("attributes starts and ends are required");
            }
            long[] a = ctx.intsAttr("axes", null);
            if (a == null) {
                a = new long[s.length];
                for (int i = 0; i < a.length; i++) {
                    a[i] = i;
                }
            }
            long[] st = new long[s.length];
            java.util.Arrays.fill(st, 1);
            starts = longs(ctx, "starts", s);
            ends = longs(ctx, "ends", e);
            axes = longs(ctx, "axes", a);
            steps = longs(ctx, "steps", st);
        } else {
            starts = indexInput(ctx, 1, "starts");
            ends = indexInput(ctx, 2, "ends");
            int n = (int) starts.dims()[0];
            if (ctx.hasInput(3)) {
                axes = indexInput(ctx, 3, "axes");
            } else {
                long[] a = new long[n];
                for (int i = 0; i < n; i++) {
                    a[i] = i;
                }
                axes = longs(ctx, "axes", a);
            }
            if (ctx.hasInput(4)) {
                steps = indexInput(ctx, 4, "steps");
            } else {
                long[] st = new long[n];
                java.util.Arrays.fill(st, 1);
                steps = longs(ctx, "steps", st);
            }
        }
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaSlice, List.of(x, starts, ends, axes, steps), x.dataType(),
                b -> { }));
    }

    private static void split(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "input");
        if (xd.length == 0) {
            throw ctx.invalid("input is a scalar; expected rank >= 1");
        }
        int axis = ctx.axis(ctx.intAttr("axis", 0), xd.length, "axis");
        int outputs = ctx.outputCount();
        LogicalTensor split = null;
        long numOutputs = 0;
        if (ctx.opVersion() < 13) {
            long[] s = ctx.intsAttr("split", null);
            if (s != null) {
                if (s.length != outputs) {
                    throw ctx.invalid("split " + java.util.Arrays.toString(s) + " has " + s.length + " sizes for "
                            + outputs + " outputs");
                }
                split = longs(ctx, "split", s);
            }
        } else if (ctx.hasInput(1)) {
            split = indexInput(ctx, 1, "split");
            if (split.dims()[0] != outputs) {
                throw ctx.invalid("split has " + split.dims()[0] + " sizes for " + outputs + " outputs");
            }
        }
        if (split == null) {
            if (ctx.opVersion() >= 18) {
                if (!ctx.hasAttr("num_outputs")) {
                    throw ctx.invalid("neither a split input nor the num_outputs attribute");
                }
                numOutputs = ctx.intAttr("num_outputs", 0);
                if (numOutputs != outputs) {
                    throw ctx.invalid("num_outputs " + numOutputs + " but the node has " + outputs + " outputs");
                }
            } else {
                numOutputs = outputs;
                if (xd[axis] >= 0 && xd[axis] % outputs != 0) {
                    throw ctx.invalid("axis " + axis + " of " + LogicalTensor.dimsToString(xd) + " does not split into "
                            + outputs + " equal parts");
                }
            }
        } else if (ctx.hasAttr("num_outputs")) {
            throw ctx.invalid("both a split input and the num_outputs attribute");
        }
        List<LogicalTensor> ins = new ArrayList<>();
        ins.add(x);
        if (split != null) {
            ins.add(split);
        }
        long n = numOutputs;
        for (int i = 0; i < outputs; i++) {
            if (!ctx.hasOutput(i)) {
                continue;
            }
            long index = i;
            ctx.setOutput(i, ctx.emit1(OpKind.PartitaSplit, ins, x.dataType(), b -> b.attr("axis", (long) axis)
                    .attr("index", index).attr("num_outputs", n)));
        }
    }

    private static void pad(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "data");
        String mode = ctx.stringAttr("mode", "constant");
        if (!List.of("constant", "reflect", "edge", "wrap").contains(mode)
                || mode.equals("wrap") && ctx.opVersion() < 19) {
            throw ctx.invalid("mode '" + mode + "'; expected constant, reflect, edge" + (ctx.opVersion() >= 19
                    ? " or wrap" : ""));
        }
        LogicalTensor pads;
        double value = 0;
        LogicalTensor valueIn = null;
        LogicalTensor axes = null;
        if (ctx.opVersion() < 11) {
            long[] p = ctx.intsAttr("pads", null);
            if (p == null) {
                throw ctx.invalid("attribute pads is required");
            }
            pads = longs(ctx, "pads", p);
            value = ctx.floatAttr("value", 0);
        } else {
            pads = indexInput(ctx, 1, "pads");
            if (ctx.hasInput(2)) {
                valueIn = ctx.input(2);
                if (valueIn.dataType() != x.dataType()) {
                    throw ctx.invalid("constant_value is " + valueIn.dataType() + " but data is " + x.dataType());
                }
            }
            if (ctx.opVersion() >= 18 && ctx.hasInput(3)) {
                axes = indexInput(ctx, 3, "axes");
                if (pads.dims()[0] != 2 * axes.dims()[0]) {
                    throw ctx.invalid("pads has " + pads.dims()[0] + " values for " + axes.dims()[0] + " axes; expected "
                            + 2 * axes.dims()[0]);
                }
            } else if (pads.dims()[0] != 2L * xd.length) {
                throw ctx.invalid("pads has " + pads.dims()[0] + " values for data of rank " + xd.length + "; expected "
                        + 2 * xd.length);
            }
        }
        if (valueIn == null) {
            valueIn = ctx.constantTensor(OnnxTensor.of("constant_value", x.dataType(), new long[0],
                    new double[] {value}));
        }
        List<LogicalTensor> ins = axes == null ? List.of(x, pads, valueIn) : List.of(x, pads, valueIn, axes);
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaPad, ins, x.dataType(), b -> b.attr("mode", mode)));
    }

    private static void tile(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        ctx.rankedDims(x, "input");
        LogicalTensor repeats = indexInput(ctx, 1, "repeats");
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaTile, List.of(x, repeats), x.dataType(), b -> { }));
    }

    private static void expand(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        ctx.rankedDims(x, "input");
        LogicalTensor shape = indexInput(ctx, 1, "shape");
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaExpand, List.of(x, shape), x.dataType(), b -> { }));
    }
}
