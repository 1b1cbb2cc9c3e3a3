package io.partita.backend.reference.ops;

import java.util.Arrays;
import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.OpKind;

/**
 * Reduce* over the axes of the {@code axes} attribute or input: L1 = sum |x|, L2 = sqrt(sum x^2),
 * Max, Min, Mean = sum / count, Prod, Sum. An empty axes list is the identity (dst = src), as
 * oneDNN's specification defines. keep_dims only changes the output dims, not the element order.
 */
final class ReductionKernels {
    private ReductionKernels() {
    }

    /** How one reduction accumulates: initial value, step, and final transform given the count. */
    private record Reducer(double init, Step step, Finish finish) {
    }

    @FunctionalInterface
    private interface Step {
        double apply(double acc, double x);
    }

    @FunctionalInterface
    private interface Finish {
        double apply(double acc, long count);
    }

    static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.ReduceL1, reduce(new Reducer(0, (a, x) -> a + Math.abs(x), (a, n) -> a)));
        r.accept(OpKind.ReduceL2, reduce(new Reducer(0, (a, x) -> a + x * x, (a, n) -> Math.sqrt(a))));
        r.accept(OpKind.ReduceMax, reduce(new Reducer(Double.NEGATIVE_INFINITY, Math::max, (a, n) -> a)));
        r.accept(OpKind.ReduceMin, reduce(new Reducer(Double.POSITIVE_INFINITY, Math::min, (a, n) -> a)));
        r.accept(OpKind.ReduceMean, reduce(new Reducer(0, Double::sum, (a, n) -> a / n)));
        r.accept(OpKind.ReduceProd, reduce(new Reducer(1, (a, x) -> a * x, (a, n) -> a)));
        r.accept(OpKind.ReduceSum, reduce(new Reducer(0, Double::sum, (a, n) -> a)));
    }

    private static RefOp reduce(Reducer f) {
        return ctx -> {
            RefTensor src = ctx.in(0);
            long[] dims = src.dims();
            int rank = dims.length;
            long[] axes = ctx.hasInput(1) ? ctx.in(1).toLongs() : ctx.op().longsAttr("axes");
            double[] x = src.data();
            double[] y = ctx.out(0).data();
            if (axes.length == 0) {
                System.arraycopy(x, 0, y, 0, x.length);
                return;
            }
            boolean[] reduced = new boolean[rank];
            for (long a : axes) {
                reduced[(int) Math.floorMod(a, rank)] = true;
            }
            Arrays.fill(y, f.init());
            int[] at = outputOffsets(dims, reduced);
            for (int i = 0; i < x.length; i++) {
                y[at[i]] = f.step().apply(y[at[i]], x[i]);
            }
            long count = y.length == 0 ? 0 : x.length / y.length;
            for (int i = 0; i < y.length; i++) {
                y[i] = f.finish().apply(y[i], count);
            }
        };
    }

    /**
     * For each element of a row-major tensor of {@code dims}, its offset in the reduction's output
     * (laid out as the keep_dims shape: the reduced axes contribute 0).
     */
    static int[] outputOffsets(long[] dims, boolean[] reduced) {
        int rank = dims.length;
        long[] outStride = new long[rank];
        long acc = 1;
        long n = 1;
        for (int d = rank - 1; d >= 0; d--) {
            outStride[d] = reduced[d] ? 0 : acc;
            acc *= reduced[d] ? 1 : dims[d];
            n *= dims[d];
        }
        int[] at = new int[Math.toIntExact(n)];
        long[] idx = new long[rank];
        long off = 0;
        for (int i = 0; i < at.length; i++) {
            at[i] = (int) off;
            for (int d = rank - 1; d >= 0; d--) {
                idx[d]++;
                off += outStride[d];
                if (idx[d] < dims[d]) {
                    break;
                }
                off -= outStride[d] * idx[d];
                idx[d] = 0;
            }
        }
        return at;
    }
}
