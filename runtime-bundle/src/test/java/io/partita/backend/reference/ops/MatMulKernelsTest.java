package io.partita.backend.reference.ops;

import static io.partita.backend.reference.ops.DataMovementKernelsTest.out;
import static io.partita.backend.reference.ops.DataMovementKernelsTest.t;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.testing.OpRunner;

/** MatMul review: accumulation_mode is accepted and the reference stays exact. */
class MatMulKernelsTest {

    @Test
    void everyAccumulationModeGivesTheExactProduct() {
        // bf16 x bf16 -> f32 with terms an f16 accumulator would lose: 256 + 0.125 + 0.125.
        double[] a = {256, 0.125, 0.125, 1, 2, 3};
        double[] b = {1, 1, 1};
        for (String mode : new String[] {"strict", "relaxed", "any", "f32", "s32", "f16"}) {
            Op op = Op.builder(0, OpKind.MatMul).inputs(t(0, DataType.BF16, 2, 3), t(1, DataType.BF16, 3, 1))
                    .output(out(2, DataType.F32)).attr("accumulation_mode", mode).build();
            assertArrayEquals(new double[] {256.25, 6}, OpRunner.run(op, a, b).get(0), mode);
        }
    }

    @Test
    void mixedSrcAndWeightsTypes() {
        // bf16 src with f32 weights -> bf16 dst: 1.5 * 0.1 + 2 * 0.2 rounded to bf16.
        Op op = Op.builder(0, OpKind.MatMul).inputs(t(0, DataType.BF16, 1, 2), t(1, DataType.F32, 2, 1))
                .output(out(2, DataType.BF16)).build();
        double w0 = (float) 0.1;
        double w1 = (float) 0.2;
        double exact = 1.5 * w0 + 2 * w1;
        float asFloat = (float) exact;
        float bf16 = Float.intBitsToFloat((Float.floatToRawIntBits(asFloat) + 0x7fff
                + ((Float.floatToRawIntBits(asFloat) >> 16) & 1)) & 0xffff0000);
        assertArrayEquals(new double[] {bf16}, OpRunner.run(op, new double[] {1.5, 2}, new double[] {0.1, 0.2})
                .get(0));
    }

    @Test
    void transposesByHand() {
        // a = [[1, 2, 3], [4, 5, 6]] stored transposed as [3, 2]; b = [[1, 0], [0, 1], [1, 1]] stored as [2, 3].
        Op op = Op.builder(0, OpKind.MatMul).inputs(t(0, DataType.F32, 3, 2), t(1, DataType.F32, 2, 3))
                .output(out(2, DataType.F32)).attr("transpose_a", true).attr("transpose_b", true).build();
        double[] y = OpRunner.run(op, new double[] {1, 4, 2, 5, 3, 6}, new double[] {1, 0, 1, 0, 1, 1}).get(0);
        assertArrayEquals(new double[] {4, 5, 10, 11}, y);
    }

    @Test
    void oneDimensionalOperandsAndBias() {
        Op op = Op.builder(0, OpKind.MatMul).inputs(t(0, DataType.F32, 3), t(1, DataType.F32, 3, 2),
                t(2, DataType.F32, 1)).output(out(3, DataType.F32)).build();
        // [1, 2, 3] x [[1, 2], [3, 4], [5, 6]] = [22, 28]; + 0.5
        assertArrayEquals(new double[] {22.5, 28.5}, OpRunner.run(op, new double[] {1, 2, 3},
                new double[] {1, 2, 3, 4, 5, 6}, new double[] {0.5}).get(0));
    }

    /** Naive sum over k of a(b, i, k) * w(b, k, j) for dense row-major operands. */
    static double[] naive(double[] a, double[] w, int batchA, int batchW, int m, int k, int n) {
        int batch = Math.max(batchA, batchW);
        double[] y = new double[batch * m * n];
        for (int bi = 0; bi < batch; bi++) {
            int ab = batchA == 1 ? 0 : bi;
            int wb = batchW == 1 ? 0 : bi;
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int kk = 0; kk < k; kk++) {
                        s += a[(ab * m + i) * k + kk] * w[(wb * k + kk) * n + j];
                    }
                    y[(bi * m + i) * n + j] = s;
                }
            }
        }
        return y;
    }

    static double[] values(int n, int seed) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            // exact in f32: multiples of 1/8 in [-4, 4)
            v[i] = ((i * 37 + seed * 11) % 64 - 32) / 8.0;
        }
        return v;
    }

    static double[] transposed(double[] v, int batch, int rows, int cols) {
        double[] t = new double[v.length];
        for (int b = 0; b < batch; b++) {
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    t[(b * cols + c) * rows + r] = v[(b * rows + r) * cols + c];
                }
            }
        }
        return t;
    }

    @Test
    void oddSizesAcrossColumnBlocksWithBroadcastBatchAndTransposes() {
        // k = 7 (not a multiple of 4), n = 515 (more than one column block), weights broadcast over 3 batches.
        int batch = 3;
        int m = 2;
        int k = 7;
        int n = 515;
        double[] a = values(batch * m * k, 1);
        double[] w = values(k * n, 2);
        double[] expected = naive(a, w, batch, 1, m, k, n);
        for (boolean ta : new boolean[] {false, true}) {
            for (boolean tb : new boolean[] {false, true}) {
                Op op = Op.builder(0, OpKind.MatMul)
                        .inputs(ta ? t(0, DataType.F32, batch, k, m) : t(0, DataType.F32, batch, m, k),
                                tb ? t(1, DataType.F32, 1, n, k) : t(1, DataType.F32, 1, k, n))
                        .output(out(2, DataType.F32)).attr("transpose_a", ta).attr("transpose_b", tb).build();
                double[] y = OpRunner.run(op, ta ? transposed(a, batch, m, k) : a, tb ? transposed(w, 1, k, n) : w)
                        .get(0);
                assertArrayEquals(expected, y, "transpose_a=" + ta + " transpose_b=" + tb);
            }
        }
    }
}
