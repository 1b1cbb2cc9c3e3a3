package io.partita.backend.reference.ops;

import java.util.Arrays;
import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.ops.EinsumEquation;
import io.partita.runtime.schema.ops.EinsumUnpoolSchemas;

/**
 * Reference kernels of PartitaEinsum (every index combination of the equation's labels visited
 * once, products accumulated in double) and PartitaMaxUnpool (an index outside the unpooled tensor
 * is an error naming the op, never dropped).
 */
public final class EinsumUnpoolKernels {
    private EinsumUnpoolKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.PartitaEinsum, EinsumUnpoolKernels::einsum);
        r.accept(OpKind.PartitaMaxUnpool, EinsumUnpoolKernels::maxUnpool);
    }

    private static void einsum(RefContext ctx) {
        int n = ctx.inputCount();
        long[][] dims = new long[n][];
        for (int k = 0; k < n; k++) {
            dims[k] = ctx.in(k).dims();
        }
        EinsumEquation.Plan plan = EinsumUnpoolSchemas.plan(ctx.op(), dims);
        long[] size = EinsumUnpoolSchemas.labelSizes(ctx.op(), plan, dims);
        int labels = size.length;
        // Each operand's step per label: the sum of its row-major strides over the dims with that
        // label (a repeated label walks the diagonal); a broadcast '...' dim of 1 does not move.
        long[][] step = new long[n][labels];
        for (int k = 0; k < n; k++) {
            int[] l = plan.inputLabels(k);
            long stride = 1;
            for (int d = l.length - 1; d >= 0; d--) {
                int p = plan.position(l[d]);
                if (dims[k][d] != 1 || size[p] == 1) {
                    step[k][p] += stride;
                }
                stride *= dims[k][d];
            }
        }
        long[] outStep = new long[labels];
        long stride = 1;
        for (int p = plan.outputRank() - 1; p >= 0; p--) {
            outStep[p] = stride;
            stride *= size[p];
        }
        double[] y = ctx.out(0).data();
        Arrays.fill(y, 0);
        for (long s : size) {
            if (s == 0) {
                return;
            }
        }
        double[][] x = new double[n][];
        for (int k = 0; k < n; k++) {
            x[k] = ctx.in(k).data();
        }
        long[] idx = new long[labels];
        long[] off = new long[n];
        long outOff = 0;
        while (true) {
            double prod = 1;
            for (int k = 0; k < n; k++) {
                prod *= x[k][(int) off[k]];
            }
            y[(int) outOff] += prod;
            int p = labels - 1;
            for (; p >= 0; p--) {
                idx[p]++;
                for (int k = 0; k < n; k++) {
                    off[k] += step[k][p];
                }
                outOff += outStep[p];
                if (idx[p] < size[p]) {
                    break;
                }
                for (int k = 0; k < n; k++) {
                    off[k] -= step[k][p] * size[p];
                }
                outOff -= outStep[p] * size[p];
                idx[p] = 0;
            }
            if (p < 0) {
                return;
            }
        }
    }

    /**
     * ONNX's MaxUnpool: each src value goes to the flat position its index gives in the unpooled
     * dims (the MaxPool input the attributes describe); the unpooled tensor then sits at the start of
     * each dim of the output, whose other elements are 0.
     */
    private static void maxUnpool(RefContext ctx) {
        RefTensor src = ctx.in(0);
        double[] x = src.data();
        long[] ind = ctx.in(1).toLongs();
        long[] unpooled = EinsumUnpoolSchemas.unpooledDims(ctx.op(), src.dims());
        RefTensor dst = ctx.out(0);
        EinsumUnpoolSchemas.checkOutputShape(ctx.op(), unpooled, dst.dims());
        long total = RefTensor.count(unpooled);
        double[] y = dst.data();
        Arrays.fill(y, 0);
        long[] at = new long[unpooled.length];
        for (int e = 0; e < x.length; e++) {
            long i = ind[e];
            if (i < 0 || i >= total) {
                throw new InvalidArgumentException(ctx.op().describe() + ": index " + i + " at element " + e
                        + " of indices is outside the unpooled dims " + Arrays.toString(unpooled) + "; expected [0, "
                        + (total - 1) + "]");
            }
            for (int d = unpooled.length - 1; d >= 0; d--) {
                at[d] = i % unpooled[d];
                i /= unpooled[d];
            }
            y[(int) dst.offset(at)] = x[e];
        }
    }
}
