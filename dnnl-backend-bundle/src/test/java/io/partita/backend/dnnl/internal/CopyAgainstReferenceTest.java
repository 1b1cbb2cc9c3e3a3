package io.partita.backend.dnnl.internal;

import static io.partita.backend.dnnl.internal.Tensors.any;
import static io.partita.backend.dnnl.internal.Tensors.assertClaimed;
import static io.partita.backend.dnnl.internal.Tensors.dims;
import static io.partita.backend.dnnl.internal.Tensors.f32;
import static io.partita.backend.dnnl.internal.Tensors.padded;
import static io.partita.backend.dnnl.internal.Tensors.stored;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/**
 * Reorder, TypeCast, StaticReshape, StaticTranspose and Concat partitions (strided sources and
 * destinations, odd sizes, vector tails) against the reference.
 */
class CopyAgainstReferenceTest {

    private static int[] order(String s) {
        return Arrays.stream(s.split(";")).mapToInt(Integer::parseInt).toArray();
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        "17,33|1;0|0;1", "17,33|0;1|1;0", "3,5,7,65|0;2;3;1|0;1;2;3", "3,5,7,65|0;1;2;3|0;3;1;2",
        "3,5,7,65|3;2;1;0|1;0;3;2", "1,1,65|2;0;1|0;1;2", "2,1,3|2;1;0|0;1;2", "1000,1000|1;0|0;1", "129|0|0"
    })
    void reorderBetweenLayouts(String shape, String from, String to) {
        long[] d = dims(shape);
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Reorder)
                .input(stored(0, DataType.F32, d, order(from))).output(stored(1, DataType.F32, d, order(to)))
                .build()), d.length);
        assertClaimed(parts, "dnnl", 0);
    }

    @Test
    void reorderFromPaddedRows() {
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Reorder)
                .input(padded(0, new long[] {5, 7, 33}, new long[] {5, 8, 40})).output(f32(1, 5, 7, 33)).build()), 3);
        assertClaimed(parts, "dnnl", 0);
    }

    @ParameterizedTest(name = "{0} -> {1} {2} stored {3}")
    @CsvSource(delimiter = '|', value = {
        "F32|BF16|1000003|0", "BF16|F32|1000003|0", "F32|F16|17,33|0;1", "F16|F32|17,33|0;1", "F32|BF16|17,33|1;0",
        "BF16|F32|5,7,65|2;0;1", "F32|F16|3,129|1;0", "F16|F32|1|0", "F32|BF16|15|0"
    })
    void typeCasts(String from, String to, String shape, String physical) {
        long[] d = dims(shape);
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.TypeCast)
                .input(stored(0, DataType.valueOf(from), d, order(physical)))
                .output(LogicalTensor.of(1, DataType.valueOf(to), d)).build()), 7);
        assertClaimed(parts, "dnnl", 0);
    }

    @Test
    void castRoundsToNearestEvenAndKeepsSpecialValues() {
        // log(relu(x)) * relu(x) gives -inf, NaN and finite values; casting there and back to f32
        // compares the rounding at f32 tolerance (a bf16 output alone is compared far more loosely)
        long[] d = {9, 37};
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.ReLU).input(f32(0, d)).output(f32(1, d)).build());
            g.add(Op.builder(1, OpKind.Log).input(f32(1, d)).output(f32(2, d)).build());
            g.add(Op.builder(2, OpKind.Multiply).inputs(f32(2, d), f32(1, d)).output(f32(3, d)).build());
            g.add(Op.builder(3, OpKind.TypeCast).input(f32(3, d)).output(LogicalTensor.of(4, DataType.BF16, d))
                    .build());
            g.add(Op.builder(4, OpKind.TypeCast).input(LogicalTensor.of(4, DataType.BF16, d)).output(f32(5, d))
                    .build());
            g.add(Op.builder(5, OpKind.TypeCast).input(f32(3, d)).output(LogicalTensor.of(6, DataType.F16, d))
                    .build());
            g.add(Op.builder(6, OpKind.TypeCast).input(LogicalTensor.of(6, DataType.F16, d)).output(f32(7, d))
                    .build());
            g.add(Op.builder(7, OpKind.TypeCast).input(f32(0, d)).output(LogicalTensor.of(8, DataType.BF16, d))
                    .build());
            g.add(Op.builder(8, OpKind.TypeCast).input(LogicalTensor.of(8, DataType.BF16, d)).output(f32(9, d))
                    .build());
        }, 5);
        for (long op = 3; op <= 8; op++) {
            assertClaimed(parts, "dnnl", op);
        }
    }

    @Test
    void reorderOfBf16() {
        long[] d = {17, 33};
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Reorder)
                .input(stored(0, DataType.BF16, d, 1, 0)).output(LogicalTensor.of(1, DataType.BF16, d)).build()), 7);
        assertClaimed(parts, "dnnl", 0);
    }

    @ParameterizedTest(name = "{0} stored {1} -> {2} stored {3}")
    @CsvSource(delimiter = '|', value = {
        "4,6,35|0;1;2|24,35|0;1", "4,6,35|2;0;1|24,35|0;1", "4,6,35|1;0;2|8,3,35|0;1;2", "4,6,35|0;2;1|8,105|0;1",
        "4,6,35|0;2;1|7,5,24|2;0;1", "6,35|1;0|210|0", "1,1,7|0;1;2|7|0", "2,3|1;0|3,2|1;0"
    })
    void reshapes(String from, String fromOrder, String to, String toOrder) {
        long[] d = dims(from);
        long[] o = dims(to);
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.StaticReshape)
                .input(stored(0, DataType.F32, d, order(fromOrder))).output(stored(1, DataType.F32, o, order(toOrder)))
                .attr("shape", o).attr("special_zero", false).build()), 11);
        assertClaimed(parts, "dnnl", 0);
    }

    @Test
    void reshapeWithInferredAndCopiedDims() {
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.StaticReshape)
                .input(stored(0, DataType.F32, new long[] {4, 6, 35}, 1, 0, 2)).output(any(1))
                .attr("shape", 0L, -1L, 7L).attr("special_zero", true).build()), 11);
        assertClaimed(parts, "dnnl", 0);
    }

    @ParameterizedTest(name = "{0} stored {1} order [{2}]")
    @CsvSource(delimiter = '|', value = {
        "17,33|0;1|1,0", "65,129|0;1|1,0", "3,17,5,33|0;1;2;3|0,2,1,3", "3,17,5,33|0;1;2;3|3,2,1,0",
        "3,17,5,33|0;1;2;3|0,2,3,1", "3,17,5,33|0;2;3;1|0,3,1,2", "2,3,5,7,33|0;1;2;3;4|0,1,2,4,3",
        "3,17,5,33|0;1;2;3|", "3,17,5,33|3;2;1;0|-1,-2,0,1", "1,2,3|0;1;2|2,0,1", "300,400|0;1|1,0"
    })
    void transposes(String shape, String physical, String order) {
        long[] d = dims(shape);
        long[] ord = order == null ? new long[0] : dims(order);
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.StaticTranspose)
                .input(stored(0, DataType.F32, d, order(physical))).output(any(1)).attr("order", ord).build()), 13);
        assertClaimed(parts, "dnnl", 0);
    }

    @ParameterizedTest(name = "axis {0}, stored {1}")
    @CsvSource({"0,0;1;2", "1,0;1;2", "2,0;1;2", "-1,2;1;0", "1,1;0;2", "-3,2;0;1"})
    void concats(long axis, String physical) {
        long[] a = {3, 5, 17};
        int ax = (int) (axis < 0 ? axis + 3 : axis);
        long[] b = a.clone();
        b[ax] = 1;
        long[] c = a.clone();
        c[ax] = 20;
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Concat)
                .inputs(stored(0, DataType.F32, a, order(physical)), f32(1, b), stored(2, DataType.F32, c, 2, 1, 0))
                .output(any(3)).attr("axis", axis).build()), 17);
        assertClaimed(parts, "dnnl", 0);
    }

    @Test
    void concatOfOneTensorTwiceIntoAStridedOutput() {
        long[] d = {4, 33};
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Concat)
                .inputs(f32(0, d), f32(0, d)).output(stored(1, DataType.F32, new long[] {4, 66}, 1, 0))
                .attr("axis", 1L).build()), 19);
        assertClaimed(parts, "dnnl", 0);
    }

    @Test
    void otherDataTypesOfPlainCopiesAreLeftToTheReference() {
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.StaticTranspose).input(LogicalTensor.of(0, DataType.BF16, 3, 5))
                    .output(LogicalTensor.unknownRank(1, DataType.BF16)).attr("order", 1L, 0L).build());
            g.add(Op.builder(1, OpKind.Concat).inputs(LogicalTensor.of(2, DataType.F16, 3, 5),
                    LogicalTensor.of(3, DataType.F16, 3, 5)).output(LogicalTensor.unknownRank(4, DataType.F16))
                    .attr("axis", 0L).build());
        }, 3);
        assertClaimed(parts, "reference", 0);
        assertClaimed(parts, "reference", 1);
    }
}
