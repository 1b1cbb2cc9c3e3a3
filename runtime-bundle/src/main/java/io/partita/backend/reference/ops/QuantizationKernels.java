package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.ops.QuantizationSchemas;

/**
 * Reference quantization: {@code dst = src / scale + zp} (Quantize, DynamicQuantize) and
 * {@code dst = (src - zp) * scale} (Dequantize, DynamicDequantize), in double precision. Rounding
 * of quantized outputs (half to even, then saturation to the integer range, or rounding to the
 * nearest f8 value) happens when the interpreter writes the output in its data type, which gives
 * {@code saturate(round(src / scale + zp))}.
 */
final class QuantizationKernels {
    private QuantizationKernels() {
    }

    static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.Quantize, ctx -> apply(ctx, attrScales(ctx.op()), attrZps(ctx.op()), true));
        r.accept(OpKind.Dequantize, ctx -> apply(ctx, attrScales(ctx.op()), attrZps(ctx.op()), false));
        r.accept(OpKind.DynamicQuantize, ctx -> apply(ctx, ctx.in(1).data(), inputZps(ctx), true));
        r.accept(OpKind.DynamicDequantize, ctx -> apply(ctx, ctx.in(1).data(), inputZps(ctx), false));
    }

    private static double[] attrScales(Op op) {
        float[] f = op.floatsAttr("scales");
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }

    private static double[] attrZps(Op op) {
        if (!op.hasAttr("zps")) {
            return null;
        }
        long[] z = op.longsAttr("zps");
        double[] d = new double[z.length];
        for (int i = 0; i < z.length; i++) {
            d[i] = z[i];
        }
        return d;
    }

    private static double[] inputZps(RefContext ctx) {
        return ctx.hasInput(2) ? ctx.in(2).data() : null;
    }

    /**
     * Applies the (de)quantization formula to every element with the scale (and zero point) of its
     * channel/group: scales are laid out row-major over {@link QuantizationSchemas#scaleDims}; a
     * single zero point applies to every element.
     */
    private static void apply(RefContext ctx, double[] scales, double[] zps, boolean quantize) {
        RefTensor src = ctx.in(0);
        long[] dims = src.dims();
        int rank = dims.length;
        long[] scaleDims = QuantizationSchemas.scaleDims(ctx.op(), dims);
        long[] group = new long[rank];
        long[] scaleStride = new long[rank];
        long acc = 1;
        for (int d = rank - 1; d >= 0; d--) {
            group[d] = scaleDims[d] == 1 ? Long.MAX_VALUE : dims[d] / scaleDims[d];
            scaleStride[d] = scaleDims[d] == 1 ? 0 : acc;
            acc *= scaleDims[d];
        }
        boolean oneZp = zps != null && zps.length == 1;
        double[] x = src.data();
        double[] y = ctx.out(0).data();
        long[] idx = new long[rank];
        for (int i = 0; i < x.length; i++) {
            int s = 0;
            for (int d = 0; d < rank; d++) {
                s += (int) (idx[d] / group[d] * scaleStride[d]);
            }
            double zp = zps == null ? 0 : zps[oneZp ? 0 : s];
            y[i] = quantize ? x[i] / scales[s] + zp : (x[i] - zp) * scales[s];
            for (int d = rank - 1; d >= 0; d--) {
                if (++idx[d] < dims[d]) {
                    break;
                }
                idx[d] = 0;
            }
        }
    }
}
