package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.OpKind;

/**
 * SoftMax, LogSoftmax and their backward ops, line by line along the axis. The backward ops take
 * the forward output: SoftMaxBackward diff_src = dst * (diff_dst - sum(diff_dst * dst)),
 * LogSoftmaxBackward diff_src = diff_dst - exp(dst) * sum(diff_dst).
 */
final class SoftmaxKernels {
    private SoftmaxKernels() {
    }

    static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.SoftMax, SoftmaxKernels::softmax);
        r.accept(OpKind.SoftMaxBackward, SoftmaxKernels::softmaxBackward);
        r.accept(OpKind.LogSoftmax, SoftmaxKernels::logSoftmax);
        r.accept(OpKind.LogSoftmaxBackward, SoftmaxKernels::logSoftmaxBackward);
    }

    /** Iterates over the lines along {@code axis}: calls f(base offset, stride, length) per line, in row-major order of the other dims. */
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

    private static int axis(RefContext ctx, RefTensor t) {
        return (int) Math.floorMod(ctx.op().longAttr("axis"), t.rank());
    }

    /**
     * dst = exp(x - max) / sum(exp(x - max)); stats = max + log(sum(exp(x - max))). With mode
     * inf_as_zero a line of only -inf gives zeros (stats -inf); with mode none it gives NaN.
     */
    private static void softmax(RefContext ctx) {
        RefTensor src = ctx.in(0);
        boolean infAsZero = "inf_as_zero".equals(ctx.op().stringAttr("mode"));
        double[] x = src.data();
        double[] y = ctx.out(0).data();
        double[] stats = ctx.outputCount() > 1 ? ctx.out(1).data() : null;
        int[] line = {0};
        forEachLine(src.dims(), axis(ctx, src), (base, stride, len) -> {
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

    private static void softmaxBackward(RefContext ctx) {
        double[] dy = ctx.in(0).data();
        RefTensor dstT = ctx.in(1);
        double[] y = dstT.data();
        double[] dx = ctx.out(0).data();
        forEachLine(dstT.dims(), axis(ctx, dstT), (base, stride, len) -> {
            double dot = 0;
            for (int k = 0; k < len; k++) {
                dot += dy[base + k * stride] * y[base + k * stride];
            }
            for (int k = 0; k < len; k++) {
                int i = base + k * stride;
                dx[i] = y[i] * (dy[i] - dot);
            }
        });
    }

    /** dst = x - max - log(sum(exp(x - max))). */
    private static void logSoftmax(RefContext ctx) {
        RefTensor src = ctx.in(0);
        double[] x = src.data();
        double[] y = ctx.out(0).data();
        forEachLine(src.dims(), axis(ctx, src), (base, stride, len) -> {
            double max = Double.NEGATIVE_INFINITY;
            for (int k = 0; k < len; k++) {
                max = Math.max(max, x[base + k * stride]);
            }
            double sum = 0;
            for (int k = 0; k < len; k++) {
                sum += Math.exp(x[base + k * stride] - max);
            }
            double shift = max + Math.log(sum);
            for (int k = 0; k < len; k++) {
                y[base + k * stride] = x[base + k * stride] - shift;
            }
        });
    }

    private static void logSoftmaxBackward(RefContext ctx) {
        double[] dy = ctx.in(0).data();
        RefTensor dstT = ctx.in(1);
        double[] y = dstT.data();
        double[] dx = ctx.out(0).data();
        forEachLine(dstT.dims(), axis(ctx, dstT), (base, stride, len) -> {
            double sum = 0;
            for (int k = 0; k < len; k++) {
                sum += dy[base + k * stride];
            }
            for (int k = 0; k < len; k++) {
                int i = base + k * stride;
                dx[i] = dy[i] - Math.exp(y[i]) * sum;
            }
        });
    }
}
