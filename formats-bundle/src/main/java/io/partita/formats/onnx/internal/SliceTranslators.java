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
        // Resize 11: roi/scales/sizes inputs, coordinate modes; 13: optional roi/scales, bf16; 18: antialias,
        // axes, keep_aspect_ratio_policy; 19: half_pixel_symmetric.
        Translators.add(m, "Resize", v(11, 13, 18, 19), SliceTranslators::resize);
        // Resize 10 (X, scales) and Upsample 7 (scales attribute) / 9 (scales input): the pre-11 form, see
        // legacyResize.
        Translators.add(m, "Resize", v(10), SliceTranslators::legacyResize);
        Translators.add(m, "Upsample", v(7, 9), SliceTranslators::legacyResize);
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

    private static final List<String> RESIZE_MODES = List.of("nearest", "linear", "cubic");

    /**
     * Resize: oneDNN's Interpolate where it computes exactly what ONNX defines (linear, half_pixel or
     * align_corners, spatial axes of an N, C, spatial layout, no antialias, output dims known at import
     * with scale equal to the size ratio); the PartitaResize extension op otherwise.
     */
    private static void resize(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "X");
        int rank = xd.length;
        int version = ctx.opVersion();
        String mode = ctx.stringAttr("mode", "nearest");
        if (!RESIZE_MODES.contains(mode)) {
            throw ctx.invalid("mode '" + mode + "'; expected nearest, linear or cubic");
        }
        String coord = ctx.stringAttr("coordinate_transformation_mode", "half_pixel");
        List<String> coords = new ArrayList<>(List.of("half_pixel", "pytorch_half_pixel", "align_corners",
                "asymmetric", "tf_crop_and_resize"));
        if (version >= 19) {
            coords.add("half_pixel_symmetric");
        }
        if (!coords.contains(coord)) {
            throw ctx.invalid("coordinate_transformation_mode '" + coord + "'; expected one of " + coords);
        }
        String nearestMode = ctx.stringAttr("nearest_mode", "round_prefer_floor");
        if (!List.of("round_prefer_floor", "round_prefer_ceil", "floor", "ceil").contains(nearestMode)) {
            throw ctx.invalid("nearest_mode '" + nearestMode + "'; expected round_prefer_floor, round_prefer_ceil, "
                    + "floor or ceil");
        }
        if (version < 18) {
            for (String a : List.of("antialias", "axes", "keep_aspect_ratio_policy")) {
                if (ctx.hasAttr(a)) {
                    throw ctx.invalid("attribute " + a + " exists from Resize 18 on");
                }
            }
        }
        boolean antialias = ctx.intAttr("antialias", 0) != 0;
        if (antialias && mode.equals("nearest")) {
            throw ctx.invalid("antialias applies to linear and cubic modes only");
        }
        String policy = ctx.stringAttr("keep_aspect_ratio_policy", "stretch");
        if (!List.of("stretch", "not_larger", "not_smaller").contains(policy)) {
            throw ctx.invalid("keep_aspect_ratio_policy '" + policy + "'; expected stretch, not_larger or not_smaller");
        }
        long[] axes = ctx.intsAttr("axes", new long[0]);
        for (int i = 0; i < axes.length; i++) {
            axes[i] = ctx.axis(axes[i], rank, "axis");
        }
        int n = axes.length == 0 ? rank : axes.length;
        boolean hasScales = ctx.hasInput(2) && length(ctx, 2) > 0;
        boolean hasSizes = ctx.hasInput(3) && length(ctx, 3) > 0;
        if (hasScales == hasSizes) {
            throw ctx.invalid((hasScales ? "both" : "neither") + " scales and sizes; expected exactly one of them");
        }
        float[] scales = new float[0];
        LogicalTensor sizes = null;
        long[] declared = null;
        if (hasScales && !ctx.isConstant(2)) {
            // The output dims depend on float values: taken from the model's declaration of the output,
            // checked against floor(in * scale) at execution.
            declared = ctx.declaredOutputDims(0);
            if (declared == null || declared.length != rank) {
                throw ctx.unsupported("scales known only at execution and no declared output dims: the output dims "
                        + "would depend on float values (sizes may be known only at execution)");
            }
            LogicalTensor sc = ctx.input(2);
            if (sc.dataType() != DataType.F32 || length(ctx, 2) != n) {
                throw ctx.invalid("scales is " + sc.dataType() + LogicalTensor.dimsToString(sc.dims()) + "; expected "
                        + n + " float values");
            }
            if (coord.equals("tf_crop_and_resize")) {
                throw ctx.unsupported("tf_crop_and_resize with scales (the output size then depends on roi)");
            }
            sizes = sc;
        } else if (hasScales) {
            double[] v = ctx.constant(2).toDoubleArray();
            scales = new float[v.length];
            for (int i = 0; i < v.length; i++) {
                scales[i] = (float) v[i];
            }
            if (scales.length != n) {
                throw ctx.invalid("scales has " + scales.length + " values; expected " + n);
            }
            if (coord.equals("tf_crop_and_resize")) {
                throw ctx.unsupported("tf_crop_and_resize with scales (the output size then depends on roi)");
            }
        } else if (length(ctx, 3) != n) {
            throw ctx.invalid("sizes has " + length(ctx, 3) + " values; expected " + n);
        }
        LogicalTensor roi = null;
        if (coord.equals("tf_crop_and_resize")) {
            if (!ctx.hasInput(1)) {
                throw ctx.invalid("tf_crop_and_resize needs the roi input");
            }
            roi = ctx.input(1);
            if (roi.dataType() != DataType.F32) {
                throw ctx.unsupported("roi of data type " + roi.dataType() + " (only float)");
            }
        }
        long[] fullAxes = axes;
        if (fullAxes.length == 0) {
            fullAxes = new long[rank];
            for (int i = 0; i < rank; i++) {
                fullAxes[i] = i;
            }
        }
        LogicalTensor interp = interpolateIfExact(ctx, x, xd, mode, coord, antialias, fullAxes, scales,
                hasSizes && ctx.isConstant(3) ? ctx.intsInput(3, "sizes") : null, policy);
        if (interp != null) {
            ctx.setOutput(0, interp);
            return;
        }
        if (hasSizes) {
            sizes = indexInput(ctx, 3, "sizes");
        }
        long[] dstDims = declared == null ? new long[0] : declared;
        List<LogicalTensor> ins = new ArrayList<>();
        ins.add(x);
        if (sizes != null) {
            ins.add(sizes);
            if (roi != null) {
                ins.add(roi);
            }
        }
        float[] sc = scales;
        long[] ax = fullAxes;
        ctx.setOutput(0, ctx.emit1(OpKind.PartitaResize, ins, x.dataType(), b -> b.attr("axes", ax)
                .attr("scales", sc).attr("dst_dims", dstDims).attr("mode", mode).attr("coordinate_transformation_mode", coord)
                .attr("nearest_mode", nearestMode).attr("cubic_coeff_a", ctx.floatAttr("cubic_coeff_a", -0.75f))
                .attr("exclude_outside", ctx.intAttr("exclude_outside", 0) != 0)
                .attr("extrapolation_value", ctx.floatAttr("extrapolation_value", 0f))
                .attr("antialias", antialias).attr("keep_aspect_ratio_policy", policy)));
    }

    private static long length(ImportContext ctx, int i) {
        long[] d = ctx.inputDims(i);
        if (d == null || d.length != 1 || d[0] < 0) {
            throw ctx.invalid("input " + i + " has dims " + LogicalTensor.dimsToString(d)
                    + "; expected a 1-D tensor of known length");
        }
        return d[0];
    }

    /** oneDNN's Interpolate when it is exact for this Resize, else null. */
    private static LogicalTensor interpolateIfExact(ImportContext ctx, LogicalTensor x, long[] xd, String mode,
            String coord, boolean antialias, long[] axes, float[] scales, long[] sizes, String policy) {
        int rank = xd.length;
        if (!mode.equals("linear") || antialias || rank < 3 || rank > 5
                || !(coord.equals("half_pixel") || coord.equals("align_corners"))
                || !List.of(DataType.F32, DataType.BF16, DataType.F16).contains(x.dataType()) || scales.length == 0 && (sizes == null || !policy.equals("stretch"))) {
            return null;
        }
        long[] out = xd.clone();
        for (int k = 0; k < axes.length; k++) {
            int a = (int) axes[k];
            long o = scales.length > 0 ? (long) Math.floor(xd[a] * (double) scales[k]) : sizes[k];
            if (scales.length > 0 && xd[a] * (double) scales[k] != o || o <= 0) {
                return null; // ONNX's coordinates use the given scale, Interpolate the size ratio
            }
            if (a < 2 && o != xd[a]) {
                return null;
            }
            out[a] = o;
        }
        long[] spatial = java.util.Arrays.copyOfRange(out, 2, rank);
        String m = switch (rank) {
            case 3 -> "linear";
            case 4 -> "bilinear";
            default -> "trilinear";
        };
        return ctx.emit1(OpKind.Interpolate, List.of(x), x.dataType(), b -> b.attr("mode", m)
                .attr("sizes", spatial).attr("coordinate_transformation_mode", coord).attr("data_format", "NCX"));
    }

    /**
     * Resize 10 and Upsample 7/9: scales only, output dim floor(in * scale), source coordinate
     * out / scale (the "asymmetric" mode later versions name). These versions leave nearest rounding
     * unsaid; ONNX Runtime (and ONNX's own Resize-10 tests) take the floor when an axis is enlarged and
     * the ceiling when it shrinks, so nearest becomes up to two PartitaResize ops, one per group of
     * axes. Nearest resizing is separable by axis, so the chain computes exactly the joint resize.
     */
    private static void legacyResize(ImportContext ctx) {
        LogicalTensor x = ctx.input(0);
        long[] xd = ctx.rankedDims(x, "X");
        String op = ctx.node().opType();
        String mode = ctx.stringAttr("mode", "nearest");
        if (!mode.equals("nearest") && !mode.equals("linear")) {
            throw ctx.invalid("mode '" + mode + "'; expected nearest or linear");
        }
        double[] v;
        if (op.equals("Upsample") && ctx.opVersion() < 9) {
            float[] f = ctx.floatsAttr("scales", null);
            if (f == null) {
                throw ctx.invalid("attribute scales is required");
            }
            v = new double[f.length];
            for (int i = 0; i < f.length; i++) {
                v[i] = f[i];
            }
        } else {
            if (!ctx.hasInput(1)) {
                throw ctx.invalid("input scales is required");
            }
            if (!ctx.isConstant(1)) {
                throw ctx.unsupported("scales known only at execution: the output dims would depend on float values");
            }
            v = ctx.constant(1).toDoubleArray();
        }
        if (v.length != xd.length) {
            throw ctx.invalid("scales has " + v.length + " values for X of rank " + xd.length);
        }
        double least = op.equals("Upsample") ? 1 : Double.MIN_VALUE;
        for (double s : v) {
            if (!(s >= least) || !Double.isFinite(s) || (float) s != s) {
                throw ctx.invalid("scales " + java.util.Arrays.toString(v) + "; expected finite float values "
                        + (op.equals("Upsample") ? ">= 1" : "> 0"));
            }
        }
        LogicalTensor y = x;
        if (mode.equals("linear")) {
            y = legacyResizeAxes(ctx, y, v, s -> s != 1, "linear", "floor");
        } else {
            y = legacyResizeAxes(ctx, y, v, s -> s > 1, "nearest", "floor");
            y = legacyResizeAxes(ctx, y, v, s -> s < 1, "nearest", "ceil");
        }
        ctx.setOutput(0, y);
    }

    /** One PartitaResize over the axes whose scale passes {@code pick}; x itself when there is none. */
    private static LogicalTensor legacyResizeAxes(ImportContext ctx, LogicalTensor x, double[] scales,
            java.util.function.DoublePredicate pick, String mode, String nearestMode) {
        List<Integer> picked = new ArrayList<>();
        for (int i = 0; i < scales.length; i++) {
            if (pick.test(scales[i])) {
                picked.add(i);
            }
        }
        if (picked.isEmpty()) {
            return x;
        }
        long[] axes = new long[picked.size()];
        float[] sc = new float[picked.size()];
        for (int k = 0; k < axes.length; k++) {
            axes[k] = picked.get(k);
            sc[k] = (float) scales[picked.get(k)];
        }
        return ctx.emit1(OpKind.PartitaResize, List.of(x), x.dataType(), b -> b.attr("axes", axes)
                .attr("scales", sc).attr("mode", mode).attr("coordinate_transformation_mode", "asymmetric")
                .attr("nearest_mode", nearestMode));
    }
}
