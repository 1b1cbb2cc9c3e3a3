package io.partita.formats.onnx.internal;

import java.util.Arrays;

/**
 * ONNX's spatial attributes of Conv and the pooling ops (auto_pad, pads, strides, dilations,
 * kernel) resolved to explicit begin/end pads, so the oneDNN op gets {@code auto_pad = None} and
 * the padding ONNX specifies, whatever oneDNN's own SAME rules would do.
 */
record Spatial(long[] strides, long[] dilations, long[] padsBegin, long[] padsEnd) {

    static Spatial read(ImportContext ctx, long[] srcSpatial, long[] kernel) {
        int n = kernel.length;
        long[] ones = new long[n];
        Arrays.fill(ones, 1);
        long[] strides = ctx.intsAttr("strides", ones);
        long[] dil = ctx.intsAttr("dilations", ones);
        long[] pads = ctx.intsAttr("pads", new long[2 * n]);
        String autoPad = ctx.stringAttr("auto_pad", "NOTSET");
        if (strides.length != n || dil.length != n || pads.length != 2 * n) {
            throw ctx.invalid("strides " + Arrays.toString(strides) + ", dilations " + Arrays.toString(dil)
                    + " and pads " + Arrays.toString(pads) + " do not fit " + n + " spatial dims (expected " + n + ", "
                    + n + " and " + 2 * n + " values)");
        }
        if (srcSpatial.length != n) {
            throw ctx.invalid("kernel " + Arrays.toString(kernel) + " has " + n + " spatial dims but the input has "
                    + srcSpatial.length);
        }
        for (int i = 0; i < n; i++) {
            if (kernel[i] <= 0 || strides[i] <= 0 || dil[i] <= 0 || pads[i] < 0 || pads[n + i] < 0) {
                throw ctx.invalid("kernel " + Arrays.toString(kernel) + ", strides " + Arrays.toString(strides)
                        + ", dilations " + Arrays.toString(dil) + ", pads " + Arrays.toString(pads)
                        + ": expected positive kernel, strides and dilations and pads >= 0");
            }
        }
        long[] pb = Arrays.copyOfRange(pads, 0, n);
        long[] pe = Arrays.copyOfRange(pads, n, 2 * n);
        switch (autoPad) {
            case "NOTSET" -> { }
            case "VALID" -> {
                Arrays.fill(pb, 0);
                Arrays.fill(pe, 0);
            }
            case "SAME_UPPER", "SAME_LOWER" -> {
                for (int i = 0; i < n; i++) {
                    if (srcSpatial[i] < 0) {
                        throw ctx.unsupported("auto_pad " + autoPad + " on spatial dims " + Arrays.toString(srcSpatial)
                                + " not known at import");
                    }
                    long total;
                    try {
                        long out = Math.ceilDiv(srcSpatial[i], strides[i]);
                        total = Math.max(0, Math.addExact(Math.multiplyExact(out - 1, strides[i]),
                                Math.multiplyExact(kernel[i] - 1, dil[i])) + 1 - srcSpatial[i]);
                    } catch (ArithmeticException e) {
                        throw ctx.invalid("auto_pad " + autoPad + " padding of spatial dim " + i + " ("
                                + srcSpatial[i] + ", kernel " + kernel[i] + ", stride " + strides[i] + ", dilation "
                                + dil[i] + ") exceeds 2^63-1");
                    }
                    long small = total / 2;
                    pb[i] = autoPad.equals("SAME_UPPER") ? small : total - small;
                    pe[i] = total - pb[i];
                }
            }
            default -> throw ctx.unsupported("auto_pad = '" + autoPad + "'; expected NOTSET, VALID, SAME_UPPER or SAME_LOWER");
        }
        return new Spatial(strides, dil, pb, pe);
    }

    /** The kernel_shape attribute, checked against the weights' spatial dims when both are known. */
    static long[] kernel(ImportContext ctx, long[] fromWeights) {
        long[] k = ctx.intsAttr("kernel_shape", fromWeights);
        if (k == null) {
            throw ctx.invalid("attribute kernel_shape is required");
        }
        if (fromWeights != null && !Arrays.equals(k, fromWeights)) {
            throw ctx.invalid("kernel_shape " + Arrays.toString(k) + " differs from the weights' spatial dims "
                    + Arrays.toString(fromWeights));
        }
        return k;
    }
}
