package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.Broadcasting;
import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.OpKind;

/** Reference MatMul: double accumulation, batch broadcasting, transposes, 1-D operands, bias. */
public final class MatMulKernels {
    private MatMulKernels() {
    }

    /**
     * row[j] = sum over kk of a[aRow + kk] * b[bCol + kk * n + j] for j < jn, summed in order of kk
     * in double: four terms per pass, added left to right, give the same result as one at a time.
     */
    private static void rowTimesBlock(double[] a, int aRow, double[] b, int bCol, int n, int k, double[] row,
            int jn) {
        java.util.Arrays.fill(row, 0, jn, 0);
        int kk = 0;
        for (; kk + 4 <= k; kk += 4) {
            double a0 = a[aRow + kk];
            double a1 = a[aRow + kk + 1];
            double a2 = a[aRow + kk + 2];
            double a3 = a[aRow + kk + 3];
            int o0 = bCol + kk * n;
            int o1 = o0 + n;
            int o2 = o1 + n;
            int o3 = o2 + n;
            for (int j = 0; j < jn; j++) {
                row[j] = row[j] + a0 * b[o0 + j] + a1 * b[o1 + j] + a2 * b[o2 + j] + a3 * b[o3 + j];
            }
        }
        for (; kk < k; kk++) {
            double av = a[aRow + kk];
            int off = bCol + kk * n;
            for (int j = 0; j < jn; j++) {
                row[j] += av * b[off + j];
            }
        }
    }

    /** Copies the row-major [rows, cols] matrix at src[off] transposed into dst ([cols, rows]). */
    private static void transposeInto(double[] src, int off, int rows, int cols, double[] dst) {
        for (int r = 0; r < rows; r++) {
            int base = off + r * cols;
            for (int c = 0; c < cols; c++) {
                dst[c * rows + r] = src[base + c];
            }
        }
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.MatMul, MatMulKernels::matmul);
    }

    /** Columns of the weights processed together (their rows stay in cache). */
    private static final int BLOCK_COLUMNS = 512;

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
            long da = ia >= 0 ? ad[ia] : 1;
            long db = ib >= 0 ? bd[ib] : 1;
            batch[i] = da == 1 ? db : da;
        }
        int[] aBatch = Broadcasting.offsets(batch, java.util.Arrays.copyOf(ad, ad.length - 2));
        int[] bBatch = Broadcasting.offsets(batch, java.util.Arrays.copyOf(bd, bd.length - 2));
        double[] x = a.data();
        double[] w = b.data();
        RefTensor out = ctx.out(0);
        double[] y = out.data();
        // Transposed operands are copied to row-major [m, k] / [k, n] once per distinct matrix.
        double[] aT = ta ? new double[m * k] : null;
        double[] bT = tb ? new double[k * n] : null;
        int aTFor = -1;
        int bTFor = -1;
        int nb = Math.max(1, Math.min(n, BLOCK_COLUMNS));
        double[] row = new double[nb];
        for (int bi = 0; bi < aBatch.length; bi++) {
            double[] am = x;
            int aOff = aBatch[bi] * m * k;
            if (ta) {
                if (aTFor != aBatch[bi]) {
                    transposeInto(x, aOff, k, m, aT);
                    aTFor = aBatch[bi];
                }
                am = aT;
                aOff = 0;
            }
            double[] bm = w;
            int bOff = bBatch[bi] * k * n;
            if (tb) {
                if (bTFor != bBatch[bi]) {
                    transposeInto(w, bOff, n, k, bT);
                    bTFor = bBatch[bi];
                }
                bm = bT;
                bOff = 0;
            }
            int yBase = bi * m * n;
            for (int j0 = 0; j0 < n; j0 += nb) {
                int jn = Math.min(nb, n - j0);
                for (int i = 0; i < m; i++) {
                    rowTimesBlock(am, aOff + i * k, bm, bOff + j0, n, k, row, jn);
                    System.arraycopy(row, 0, y, yBase + i * n + j0, jn);
                }
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
