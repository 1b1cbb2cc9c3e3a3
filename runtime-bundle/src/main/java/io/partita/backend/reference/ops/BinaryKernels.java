package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;
import java.util.function.DoubleBinaryOperator;

import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.ops.BinarySchemas;

/** Reference kernels of the binary elementwise ops and their relatives. */
public final class BinaryKernels {
    private BinaryKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.Add, binary(Double::sum));
        r.accept(OpKind.Subtract, binary((a, b) -> a - b));
        r.accept(OpKind.Multiply, binary((a, b) -> a * b));
        r.accept(OpKind.Divide, binary((a, b) -> a / b));
        r.accept(OpKind.Maximum, binary(Math::max));
        r.accept(OpKind.Minimum, binary(Math::min));
        r.accept(OpKind.SquaredDifference, binary((a, b) -> (a - b) * (a - b)));
        r.accept(OpKind.GreaterEqual, binary((a, b) -> a >= b ? 1 : 0));
        r.accept(OpKind.Pow, BinaryKernels::pow);
        r.accept(OpKind.PartitaPow, binary(Math::pow));
        r.accept(OpKind.Select, BinaryKernels::select);
        r.accept(OpKind.BiasAdd, BinaryKernels::biasAdd);
        r.accept(OpKind.BiasAddBackward, BinaryKernels::biasAddBackward);
        r.accept(OpKind.PReLU, BinaryKernels::prelu);
        r.accept(OpKind.PReLUBackward, BinaryKernels::preluBackward);
    }

    /** A kernel applying f to broadcast pairs of inputs 0 and 1. */
    static RefOp binary(DoubleBinaryOperator f) {
        return (RefContext ctx) -> {
            RefTensor out = ctx.out(0);
            double[] a = ctx.in(0).data();
            double[] b = ctx.in(1).data();
            double[] dst = out.data();
            forEachRow(out.dims(), (d, len, off, step) -> {
                int ia = off[0];
                int ib = off[1];
                for (int k = 0; k < len; k++, ia += step[0], ib += step[1]) {
                    dst[d + k] = f.applyAsDouble(a[ia], b[ib]);
                }
            }, ctx.in(0).dims(), ctx.in(1).dims());
        };
    }

    /** One row (the innermost dim) of an output and where each broadcast input's elements are. */
    @FunctionalInterface
    interface RowVisitor {
        /**
         * @param dst offset of the row's first output element
         * @param len row length
         * @param off offset of the row's first element in each input
         * @param step step between a row's elements in each input (0 when broadcast)
         */
        void row(int dst, int len, int[] off, int[] step);
    }

    /**
     * Visits the rows of a dense row-major output of dims {@code out}, with the offsets into
     * dense inputs of dims {@code ins} broadcast to it (numpy: aligned right, size-1 dims
     * stretched). No per-element index arrays are allocated.
     */
    static void forEachRow(long[] out, RowVisitor v, long[]... ins) {
        long total = RefTensor.count(out);
        if (total == 0) {
            return;
        }
        int rank = out.length;
        int n = ins.length;
        int[][] strides = new int[n][rank];
        for (int j = 0; j < n; j++) {
            long[] in = ins[j];
            long acc = 1;
            for (int i = in.length - 1; i >= 0; i--) {
                int o = i + rank - in.length;
                strides[j][o] = in[i] == 1 && out[o] != 1 ? 0 : (int) acc;
                acc *= in[i];
            }
        }
        int[] off = new int[n];
        int[] step = new int[n];
        int[] rowOff = new int[n];
        if (rank == 0) {
            v.row(0, 1, off, step);
            return;
        }
        int last = rank - 1;
        int len = (int) out[last];
        for (int j = 0; j < n; j++) {
            step[j] = strides[j][last];
        }
        long[] idx = new long[rank];
        for (long base = 0; base < total; base += len) {
            System.arraycopy(off, 0, rowOff, 0, n);
            v.row((int) base, len, rowOff, step);
            for (int d = last - 1; d >= 0; d--) {
                idx[d]++;
                for (int j = 0; j < n; j++) {
                    off[j] += strides[j][d];
                }
                if (idx[d] < out[d]) {
                    break;
                }
                for (int j = 0; j < n; j++) {
                    off[j] -= (int) (strides[j][d] * idx[d]);
                }
                idx[d] = 0;
            }
        }
    }

    private static void pow(RefContext ctx) {
        double beta = ctx.op().floatAttr("beta");
        double[] src = ctx.in(0).data();
        double[] dst = ctx.out(0).data();
        for (int i = 0; i < src.length; i++) {
            dst[i] = Math.pow(src[i], beta);
        }
    }

    /** dst = cond ? src_0 : src_1, all three broadcast to dst. */
    static void select(RefContext ctx) {
        RefTensor out = ctx.out(0);
        double[] c = ctx.in(0).data();
        double[] a = ctx.in(1).data();
        double[] b = ctx.in(2).data();
        double[] dst = out.data();
        forEachRow(out.dims(), (d, len, off, step) -> {
            int ic = off[0];
            int ia = off[1];
            int ib = off[2];
            for (int k = 0; k < len; k++, ic += step[0], ia += step[1], ib += step[2]) {
                dst[d + k] = c[ic] != 0 ? a[ia] : b[ib];
            }
        }, ctx.in(0).dims(), ctx.in(1).dims(), ctx.in(2).dims());
    }

    /** Number of elements after the channel axis, and the channel count. */
    private static int[] channelLayout(long[] dims, String dataFormat) {
        int c = BinarySchemas.channelAxis(dataFormat, dims.length);
        long inner = 1;
        for (int i = c + 1; i < dims.length; i++) {
            inner *= dims[i];
        }
        return new int[] {(int) inner, (int) dims[c]};
    }

    private static void biasAdd(RefContext ctx) {
        RefTensor src = ctx.in(0);
        double[] x = src.data();
        double[] bias = ctx.in(1).data();
        double[] y = ctx.out(0).data();
        int[] cl = channelLayout(src.dims(), ctx.op().stringAttr("data_format"));
        int inner = cl[0];
        int channels = cl[1];
        for (int i = 0; i < x.length; i++) {
            y[i] = x[i] + bias[(i / inner) % channels];
        }
    }

    /** diff_bias[c] = sum of diff_dst over every element of channel c. */
    private static void biasAddBackward(RefContext ctx) {
        RefTensor dd = ctx.in(0);
        double[] g = dd.data();
        double[] db = ctx.out(0).data();
        int[] cl = channelLayout(dd.dims(), ctx.op().stringAttr("data_format"));
        int inner = cl[0];
        int channels = cl[1];
        for (int i = 0; i < g.length; i++) {
            db[(i / inner) % channels] += g[i];
        }
    }

    /** The slope's dims as seen by src (same rank, only size-1 dims inserted). */
    private static long[] slopeDims(RefContext ctx, boolean perChannel) {
        long[] src = ctx.in(0).dims();
        long[] slope = ctx.in(1).dims();
        long[] e = BinarySchemas.expandSlope(src, slope, ctx.op().stringAttr("data_format"), perChannel);
        if (e == null) {
            throw new IllegalStateException(ctx.op().describe() + ": slope " + java.util.Arrays.toString(slope)
                    + " does not broadcast to src " + java.util.Arrays.toString(src));
        }
        return e;
    }

    /** dst = src if src >= 0 else slope * src. */
    private static void prelu(RefContext ctx) {
        RefTensor out = ctx.out(0);
        double[] x = ctx.in(0).data();
        double[] s = ctx.in(1).data();
        double[] y = out.data();
        long[] sd = slopeDims(ctx, ctx.op().boolAttr("per_channel_broadcast"));
        forEachRow(out.dims(), (d, len, off, step) -> {
            int is = off[1];
            for (int k = 0; k < len; k++, is += step[1]) {
                double v = x[d + k];
                y[d + k] = v >= 0 ? v : s[is] * v;
            }
        }, out.dims(), sd);
    }

    /**
     * diff_src = diff_dst if src &gt; 0 else slope * diff_dst; diff_slope accumulates
     * min(src, 0) * diff_dst over the elements sharing a slope value.
     */
    private static void preluBackward(RefContext ctx) {
        long[] slope = ctx.in(1).dims();
        long[] sd = slopeDims(ctx, slope.length == 1 && slope[0] != 1);
        double[] x = ctx.in(0).data();
        double[] s = ctx.in(1).data();
        double[] g = ctx.in(2).data();
        RefTensor diffSrc = ctx.out(0);
        double[] dx = diffSrc.data();
        double[] ds = ctx.out(1).data();
        forEachRow(diffSrc.dims(), (d, len, off, step) -> {
            int is = off[1];
            for (int k = 0; k < len; k++, is += step[1]) {
                double v = x[d + k];
                double gv = g[d + k];
                dx[d + k] = v > 0 ? gv : s[is] * gv;
                ds[is] += Math.min(v, 0) * gv;
            }
        }, diffSrc.dims(), sd);
    }
}
