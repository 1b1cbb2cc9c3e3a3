package io.partita.backend.reference.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitaException;
import io.partita.testing.OpRunner;

/** PartitaEinsum's common forms and PartitaMaxUnpool against hand-computed values. */
class EinsumUnpoolKernelsTest {

    private static LogicalTensor f64(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F64, dims);
    }

    private static double[] einsum(String equation, long[] out, Object... dimsAndValues) {
        Op.Builder b = Op.builder(0, OpKind.PartitaEinsum).attr("equation", equation);
        double[][] values = new double[dimsAndValues.length / 2][];
        for (int i = 0; i < values.length; i++) {
            b.input(f64(i, (long[]) dimsAndValues[2 * i]));
            values[i] = (double[]) dimsAndValues[2 * i + 1];
        }
        return OpRunner.run(b.output(f64(9, out)).build(), values).get(0);
    }

    private static final double[] A23 = {1, 2, 3, 4, 5, 6};
    private static final double[] B32 = {7, 8, 9, 10, 11, 12};

    @Test
    void matmulBatchMatmulAndInnerProduct() {
        // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]
        assertArrayEquals(new double[] {58, 64, 139, 154},
                einsum("ij,jk->ik", new long[] {2, 2}, new long[] {2, 3}, A23, new long[] {3, 2}, B32));
        // batch 2: the second batch is the first scaled by 2 on the left
        double[] a = {1, 2, 3, 4, 5, 6, 2, 4, 6, 8, 10, 12};
        double[] bb = {7, 8, 9, 10, 11, 12, 7, 8, 9, 10, 11, 12};
        assertArrayEquals(new double[] {58, 64, 139, 154, 116, 128, 278, 308},
                einsum("bij, bjk -> bik", new long[] {2, 2, 2}, new long[] {2, 2, 3}, a, new long[] {2, 3, 2}, bb));
        assertArrayEquals(new double[] {1 * 4 + 2 * 5 + 3 * 6},
                einsum("i,i", new long[] {}, new long[] {3}, new double[] {1, 2, 3}, new long[] {3},
                        new double[] {4, 5, 6}));
    }

    @Test
    void transposeSumTraceDiagonalAndOuterProduct() {
        assertArrayEquals(new double[] {1, 4, 2, 5, 3, 6}, einsum("ij->ji", new long[] {3, 2}, new long[] {2, 3}, A23));
        assertArrayEquals(new double[] {6, 15}, einsum("ij->i", new long[] {2}, new long[] {2, 3}, A23));
        assertArrayEquals(new double[] {21}, einsum("ij->", new long[] {}, new long[] {2, 3}, A23));
        double[] m = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        assertArrayEquals(new double[] {15}, einsum("ii->", new long[] {}, new long[] {3, 3}, m));
        assertArrayEquals(new double[] {1, 5, 9}, einsum("ii->i", new long[] {3}, new long[] {3, 3}, m));
        assertArrayEquals(new double[] {3, 4, 6, 8, 9, 12},
                einsum("i,j->ij", new long[] {3, 2}, new long[] {3}, new double[] {1, 2, 3}, new long[] {2},
                        new double[] {3, 4}));
        assertArrayEquals(new double[] {2.5}, einsum("->", new long[] {}, new long[] {}, new double[] {2.5}));
    }

    @Test
    void ellipsisBroadcastsAcrossOperands() {
        // '...' of [2] against none: each batch row dotted with the same vector
        assertArrayEquals(new double[] {1 * 7 + 2 * 8 + 3 * 9, 4 * 7 + 5 * 8 + 6 * 9},
                einsum("...i,i->...", new long[] {2}, new long[] {2, 3}, A23, new long[] {3},
                        new double[] {7, 8, 9}));
        // a '...' dim of 1 broadcasts against 2
        assertArrayEquals(new double[] {10, 20, 30, 40},
                einsum("...i,...i->...i", new long[] {2, 2}, new long[] {1, 2}, new double[] {10, 10},
                        new long[] {2, 2}, new double[] {1, 2, 3, 4}));
    }

    private static Op unpool(long[] src, long[] kernel, long[] strides, long[] pads, long[] out, boolean shapeInput) {
        Op.Builder b = Op.builder(0, OpKind.PartitaMaxUnpool).input(LogicalTensor.of(0, DataType.F32, src))
                .input(LogicalTensor.of(1, DataType.S64, src));
        if (shapeInput) {
            b.input(LogicalTensor.of(2, DataType.S64, out.length));
        }
        return b.output(LogicalTensor.of(9, DataType.F32, out)).attr("kernel", kernel).attr("strides", strides)
                .attr("pads_begin", pads).attr("pads_end", pads).build();
    }

    @Test
    void maxUnpoolScattersToTheIndicesAndZeroesTheRest() {
        // 2x2 kernel, stride 2 on a 4x4 MaxPool input: indices into the flat [1,1,4,4]
        Op op = unpool(new long[] {1, 1, 2, 2}, new long[] {2, 2}, new long[] {2, 2}, new long[] {0, 0},
                new long[] {1, 1, 4, 4}, false);
        double[] y = OpRunner.run(op, new double[] {1, 2, 3, 4}, new double[] {5, 7, 13, 15}).get(0);
        assertArrayEquals(new double[] {0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4}, y);
        // two channels: indices count over N and C too
        Op two = unpool(new long[] {1, 2, 1}, new long[] {2}, new long[] {2}, new long[] {0}, new long[] {1, 2, 2},
                false);
        assertArrayEquals(new double[] {0, 8, 9, 0},
                OpRunner.run(two, new double[] {8, 9}, new double[] {1, 2}).get(0));
    }

    @Test
    void maxUnpoolWithOutputShapePlacesTheResultAtTheStart() {
        Op op = unpool(new long[] {1, 1, 2, 2}, new long[] {2, 2}, new long[] {2, 2}, new long[] {0, 0},
                new long[] {1, 1, 5, 5}, true);
        double[] y = OpRunner.run(op, new double[] {5, 6, 7, 8}, new double[] {5, 7, 13, 15},
                new double[] {1, 1, 5, 5}).get(0);
        assertArrayEquals(new double[] {
            0, 0, 0, 0, 0,
            0, 5, 0, 6, 0,
            0, 0, 0, 0, 0,
            0, 7, 0, 8, 0,
            0, 0, 0, 0, 0}, y);
    }

    @Test
    void maxUnpoolRefusesAnOutputShapeOtherThanTheDeclaredDims() {
        Op op = unpool(new long[] {1, 1, 2}, new long[] {2}, new long[] {2}, new long[] {0}, new long[] {1, 1, 5},
                true);
        PartitaException e = assertThrows(PartitaException.class,
                () -> OpRunner.run(op, new double[] {1, 2}, new double[] {0, 3}, new double[] {1, 1, 6}));
        assertTrue(e.getMessage().contains("PartitaMaxUnpool") && e.getMessage().contains(
                "is declared [1,1,5] but its inputs give [1,1,6]"), e.getMessage());
    }

    @Test
    void maxUnpoolRefusesAnIndexOutsideTheUnpooledTensor() {
        Op op = unpool(new long[] {1, 1, 2}, new long[] {2}, new long[] {2}, new long[] {0}, new long[] {1, 1, 4},
                false);
        PartitaException e = assertThrows(PartitaException.class,
                () -> OpRunner.run(op, new double[] {1, 2}, new double[] {0, 4}));
        assertTrue(e.getMessage().contains("PartitaMaxUnpool") && e.getMessage().contains("index 4 at element 1")
                && e.getMessage().contains("expected [0, 3]"), e.getMessage());
    }
}
