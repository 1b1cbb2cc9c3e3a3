package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.Broadcasting;
import io.partita.backend.reference.RefContext;
import io.partita.backend.reference.RefOp;
import io.partita.backend.reference.RefTensor;
import io.partita.graph.OpKind;

/** Reference MatMul: double accumulation, batch broadcasting, transposes, 1-D operands, bias. */
public final class MatMulKernels {
    private MatMulKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.MatMul, MatMulKernels::matmul);
    }

    private static void matmul(RefContext ctx) {
        RefTensor a = ctx.in(0);
        RefTensor b = ctx.in(1);
        boolean ta = ctx.op().boolAttr("transpose_a") && a.rank() >= 2;
        boolean tb = ctx.op().boolAttr("transpose_b") && b.rank() >= 2;
        long[] ad = a.rank() == 1 ? new long[] {1, a.dim(0)} : a.dims();
        long[] bd = b.rank() == 1 ? new long[] {b.dim(0), 1} : b.dims();
        int m = (int) ad[ad.length - (ta ? 1 : 2)];
        int k = (int) ad[ad.length - (ta ? 2 : 1)];
        int n = (int) bd[bd.length - (tb ? 2 : 1)];
        int batchRank = Math.max(ad.length, bd.length) - 2;
        long[] batch = new long[batchRank];
        for (int i = 0; i < batchRank; i++) {
            int ia = i - (batchRank - (ad.length - 2));
            int ib = i - (batchRank - (bd.length - 2));
            batch[i] = Math.max(ia >= 0 ? ad[ia] : 1, ib >= 0 ? bd[ib] : 1);
        }
        int[] aBatch = Broadcasting.offsets(batch, java.util.Arrays.copyOf(ad, ad.length - 2));
        int[] bBatch = Broadcasting.offsets(batch, java.util.Arrays.copyOf(bd, bd.length - 2));
        double[] x = a.data();
        double[] w = b.data();
        RefTensor out = ctx.out(0);
        double[] y = out.data();
        double[] row = new double[n];
        for (int bi = 0; bi < aBatch.length; bi++) {
            int aBase = aBatch[bi] * m * k;
            int bBase = bBatch[bi] * k * n;
            int yBase = bi * m * n;
            for (int i = 0; i < m; i++) {
                java.util.Arrays.fill(row, 0);
                for (int kk = 0; kk < k; kk++) {
                    double av = x[aBase + (ta ? kk * m + i : i * k + kk)];
                    if (tb) {
                        for (int j = 0; j < n; j++) {
                            row[j] += av * w[bBase + j * k + kk];
                        }
                    } else {
                        int off = bBase + kk * n;
                        for (int j = 0; j < n; j++) {
                            row[j] += av * w[off + j];
                        }
                    }
                }
                System.arraycopy(row, 0, y, yBase + i * n, n);
            }
        }
        if (ctx.hasInput(2)) {
            RefTensor bias = ctx.in(2);
            int[] ib = Broadcasting.offsets(out.dims(), bias.dims());
            double[] bv = bias.data();
            for (int i = 0; i < y.length; i++) {
                y[i] += bv[ib[i]];
            }
        }
    }
}
