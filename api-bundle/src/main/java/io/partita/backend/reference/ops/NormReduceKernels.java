package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.RefContext;
import io.partita.backend.reference.RefOp;
import io.partita.backend.reference.RefTensor;
import io.partita.graph.OpKind;

/** Reference kernels of normalizations, softmax variants and reductions. */
public final class NormReduceKernels {
    private NormReduceKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.SoftMax, NormReduceKernels::softmax);
    }

    /** Iterates over the lines along {@code axis}: calls f(base offset, stride, length) per line. */
    static void forEachLine(long[] dims, int axis, LineVisitor f) {
        long len = dims[axis];
        long inner = 1;
        for (int i = axis + 1; i < dims.length; i++) {
            inner *= dims[i];
        }
        long outer = 1;
        for (int i = 0; i < axis; i++) {
            outer *= dims[i];
        }
        for (long o = 0; o < outer; o++) {
            for (long in = 0; in < inner; in++) {
                f.visit((int) (o * len * inner + in), (int) inner, (int) len);
            }
        }
    }

    /** Visits one line of a tensor along an axis. */
    @FunctionalInterface
    interface LineVisitor {
        void visit(int base, int stride, int length);
    }

    private static void softmax(RefContext ctx) {
        RefTensor src = ctx.in(0);
        int axis = (int) Math.floorMod(ctx.op().longAttr("axis"), src.rank());
        boolean infAsZero = "inf_as_zero".equals(ctx.op().stringAttr("mode"));
        double[] x = src.data();
        double[] y = ctx.out(0).data();
        double[] stats = ctx.outputCount() > 1 ? ctx.out(1).data() : null;
        int[] line = {0};
        forEachLine(src.dims(), axis, (base, stride, len) -> {
            double max = Double.NEGATIVE_INFINITY;
            for (int k = 0; k < len; k++) {
                max = Math.max(max, x[base + k * stride]);
            }
            if (infAsZero && max == Double.NEGATIVE_INFINITY) {
                for (int k = 0; k < len; k++) {
                    y[base + k * stride] = 0;
                }
                if (stats != null) {
                    stats[line[0]++] = Double.NEGATIVE_INFINITY;
                }
                return;
            }
            double sum = 0;
            for (int k = 0; k < len; k++) {
                sum += Math.exp(x[base + k * stride] - max);
            }
            for (int k = 0; k < len; k++) {
                y[base + k * stride] = Math.exp(x[base + k * stride] - max) / sum;
            }
            if (stats != null) {
                stats[line[0]++] = max + Math.log(sum);
            }
        });
    }
}
