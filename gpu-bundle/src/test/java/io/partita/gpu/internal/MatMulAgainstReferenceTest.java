package io.partita.gpu.internal;

import static io.partita.gpu.internal.AgainstReference.constant;
import static io.partita.gpu.internal.AgainstReference.f32;
import static io.partita.gpu.internal.AgainstReference.out;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/** MatMul partitions on the OpenCL device (odd sizes, transposes, batches, 1-D operands, epilogues) against the reference. */
class MatMulAgainstReferenceTest {

    @ParameterizedTest(name = "[{0}x{1}] x [{1}x{2}] ta={3} tb={4}")
    @CsvSource({"1,1,1,false,false", "3,17,63,false,false", "17,63,65,false,false", "63,3,1,false,false",
        "65,129,130,false,false", "5,7,9,true,false", "6,9,4,false,true", "4,9,6,true,true", "33,1,17,true,true"})
    void plainProducts(long m, long k, long n, boolean ta, boolean tb) {
        long[] a = ta ? new long[] {k, m} : new long[] {m, k};
        long[] b = tb ? new long[] {n, k} : new long[] {k, n};
        List<Partition> parts = AgainstReference.checkBothMatMulKernels(g -> g.add(Op.builder(0, OpKind.MatMul)
                .inputs(f32(0, a), constant(1, b)).output(out(2))
                .attr("transpose_a", ta).attr("transpose_b", tb).build()), m * 7 + n);
        assertEquals(1, parts.size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"2,3,5,7;3,7,4", "2,3,5,7;7,4", "4,1,5,7;1,3,7,6", "1,5,7;3,1,7,2", "7;7,3", "2,5,7;7",
        "7;7", "7;2,7,3"})
    void batchesBroadcastAndOneDimensionalOperands(String spec) {
        String[] parts = spec.split(";");
        long[] a = dims(parts[0]);
        long[] b = dims(parts[1]);
        AgainstReference.checkBothMatMulKernels(g -> g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, a), constant(1, b))
                .output(out(2)).build()), 11);
    }

    @Test
    void biasInputBroadcasts() {
        AgainstReference.checkBothMatMulKernels(g -> g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 2, 5, 7), f32(1, 7, 9), f32(3, 1, 9))
                .output(out(2)).build()), 5);
    }

    private static long[] dims(String s) {
        return Arrays.stream(s.split(",")).mapToLong(Long::parseLong).toArray();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ReLU", "GELU", "Sigmoid", "Tanh", "Elu", "Clamp", "Exp", "Square", "Abs", "HardSwish",
        "LeakyReLU", "Mish", "SoftPlus", "HardSigmoid", "Round", "PartitaErf"})
    void biasAndAnActivationFuseIntoOneKernel(String activation) {
        OpKind kind = OpKind.valueOf(activation);
        List<Partition> parts = AgainstReference.checkBothMatMulKernels(g -> {
            g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 17, 33), constant(1, 33, 65)).output(f32(2, 17, 65)).build());
            g.add(Op.builder(1, OpKind.BiasAdd).inputs(f32(2, 17, 65), constant(3, 65)).output(f32(4, 17, 65)).build());
            Op.Builder act = Op.builder(2, kind).input(f32(4, 17, 65)).output(f32(5, 17, 65));
            switch (kind) {
                case Elu, LeakyReLU -> act.attr("alpha", 0.3f);
                case Clamp -> act.attr("min", -0.5f).attr("max", 0.7f);
                case HardSigmoid -> act.attr("alpha", 0.2f).attr("beta", 0.5f);
                default -> { }
            }
            g.add(act.build());
        }, 3);
        assertEquals(1, parts.size());
        assertEquals(3, parts.get(0).ops().size());
    }

    @Test
    void binaryPostOpsWithBroadcastOperandsOnEitherSide() {
        List<Partition> parts = AgainstReference.checkBothMatMulKernels(g -> {
            g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 3, 13, 19), constant(1, 19, 23)).output(f32(2, 3, 13, 23)).build());
            g.add(Op.builder(1, OpKind.Multiply).inputs(f32(2, 3, 13, 23), f32(3, 13, 1)).output(f32(4, 3, 13, 23)).build());
            g.add(Op.builder(2, OpKind.Subtract).inputs(f32(5, 3, 1, 23), f32(4, 3, 13, 23)).output(f32(6, 3, 13, 23)).build());
            g.add(Op.builder(3, OpKind.Divide).inputs(f32(6, 3, 13, 23), f32(7, 1)).output(f32(8, 3, 13, 23)).build());
            g.add(Op.builder(4, OpKind.Maximum).inputs(f32(8, 3, 13, 23), f32(9, 3, 13, 23)).output(f32(10, 3, 13, 23)).build());
        }, 9);
        assertEquals(1, parts.size());
        assertEquals(5, parts.get(0).ops().size());
    }

    @Test
    void stridedOperandsAreReadThroughTheirStrides() {
        // A is a column-major view ([7, 5] with strides [1, 7]), B a row-padded [5, 6] with row stride 8
        AgainstReference.checkBothMatMulKernels(g -> g.add(Op.builder(0, OpKind.MatMul)
                .inputs(io.partita.graph.LogicalTensor.of(0, io.partita.graph.DataType.F32, new long[] {7, 5},
                        io.partita.graph.LayoutType.STRIDED, new long[] {1, 7}, io.partita.graph.PropertyType.VARIABLE),
                        io.partita.graph.LogicalTensor.of(1, io.partita.graph.DataType.F32, new long[] {5, 6},
                                io.partita.graph.LayoutType.STRIDED, new long[] {8, 1}, io.partita.graph.PropertyType.VARIABLE))
                .output(out(2)).build()), 13);
    }
}
