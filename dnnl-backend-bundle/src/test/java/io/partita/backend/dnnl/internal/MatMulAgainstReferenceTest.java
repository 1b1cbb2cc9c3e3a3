package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PropertyType;

/** MatMul partitions (odd sizes, transposes, batches, 1-D operands, post-op chains) against the reference. */
class MatMulAgainstReferenceTest {

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static LogicalTensor constant(long id, long... dims) {
        return f32(id, dims).withProperty(PropertyType.CONSTANT);
    }

    @ParameterizedTest(name = "[{0}x{1}] x [{2}x{3}] ta={4} tb={5} constant={6}")
    @CsvSource({
        "1,1,1,1,false,false,true", "3,17,17,63,false,false,true", "17,63,63,65,false,false,false",
        "63,3,3,1,false,false,true", "65,129,129,130,false,false,true", "5,7,5,9,true,false,true",
        "6,4,9,4,false,true,true", "4,6,9,4,true,true,false", "200,300,300,70,false,false,true"
    })
    void plainProducts(long m, long ka, long kb, long n, boolean ta, boolean tb, boolean constant) {
        long[] a = ta ? new long[] {ka, m} : new long[] {m, ka};
        long[] b = tb ? new long[] {n, kb} : new long[] {kb, n};
        long k = ta ? a[0] : a[1];
        if (k != (tb ? b[1] : b[0])) {
            return; // only consistent shapes
        }
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.MatMul)
                .inputs(f32(0, a), constant ? constant(1, b) : f32(1, b)).output(LogicalTensor.unknownRank(2, DataType.F32))
                .attr("transpose_a", ta).attr("transpose_b", tb).build()), m * 7 + n);
        assertEquals("dnnl", parts.get(0).backendId());
    }

    @ParameterizedTest
    @ValueSource(strings = {"2,3,5,7;3,7,4", "2,3,5,7;7,4", "4,1,5,7;1,3,7,6", "1,5,7;3,1,7,2", "7;7,3", "2,5,7;7",
        "7;7", "7;2,7,3"})
    void batchesBroadcastAndOneDimensionalOperands(String spec) {
        String[] parts = spec.split(";");
        long[] a = dims(parts[0]);
        long[] b = dims(parts[1]);
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, a), constant(1, b))
                .output(LogicalTensor.unknownRank(2, DataType.F32)).build()), 11);
    }

    private static long[] dims(String s) {
        return java.util.Arrays.stream(s.split(",")).mapToLong(Long::parseLong).toArray();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ReLU", "GELU", "Sigmoid", "Tanh", "Elu", "Clamp", "Exp", "Square", "Abs", "HardSwish",
        "LeakyReLU", "Mish", "SoftPlus", "HardSigmoid", "Round"})
    void biasAndAnActivationFuse(String activation) {
        OpKind kind = OpKind.valueOf(activation);
        List<Partition> parts = AgainstReference.check(g -> {
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
        assertEquals(List.of(0L, 1L, 2L), parts.get(0).ops().stream().map(Op::id).toList());
    }

    @ParameterizedTest
    @CsvSource({"Add,1;65", "Multiply,17;1", "Subtract,1", "Divide,17;65", "Maximum,1;65", "Minimum,65"})
    void binaryPostOpsBroadcast(String binary, String otherDims) {
        OpKind kind = OpKind.valueOf(binary);
        long[] od = dims(otherDims.replace(';', ','));
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 17, 33), constant(1, 33, 65)).output(f32(2, 17, 65)).build());
            g.add(Op.builder(1, kind).inputs(f32(2, 17, 65), f32(3, od)).output(f32(4, 17, 65)).build());
            g.add(Op.builder(2, OpKind.ReLU).input(f32(4, 17, 65)).output(f32(5, 17, 65)).build());
            // the chain value as the right-hand side of a second binary op
            g.add(Op.builder(3, kind).inputs(f32(6, 65), f32(5, 17, 65)).output(f32(7, 17, 65)).build());
        }, 5);
        assertEquals(1, parts.size(), parts.toString());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void ownBiasInputAndTransposedWeights(boolean constant) {
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.MatMul)
                .inputs(f32(0, 3, 9, 20), constant ? constant(1, 31, 20) : f32(1, 31, 20), f32(2, 31))
                .output(f32(3, 3, 9, 31)).attr("transpose_b", true).build()), 9);
    }

    /**
     * A leading Add of one value per column is added as the tiles are stored (once, in the first
     * K block: K here spans two blocks); an Add varying along rows or batch items is not a column
     * bias and stays in the epilogue. Batched and 2-D, with the rest of the chain after it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"2,19,1500,70;70", "2,19,1500,70;1,1,70", "2,19,40,70;2,1,70", "2,19,40,70;19,1",
        "1,19,40,70;19,70", "1,200,300,97;1,97", "3,1,64,33;33"})
    void columnBiasIsAddedOnceAndOtherAddsStayInTheEpilogue(String spec) {
        String[] parts = spec.split(";");
        long[] d = dims(parts[0]);
        long[] bias = dims(parts[1]);
        long[] a = d[0] == 1 ? new long[] {d[1], d[2]} : new long[] {d[0], d[1], d[2]};
        long[] out = d[0] == 1 ? new long[] {d[1], d[3]} : new long[] {d[0], d[1], d[3]};
        List<Partition> ps = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, a), constant(1, d[2], d[3])).output(f32(2, out)).build());
            g.add(Op.builder(1, OpKind.Add).inputs(f32(2, out), f32(3, bias)).output(f32(4, out)).build());
            g.add(Op.builder(2, OpKind.GELU).input(f32(4, out)).output(f32(5, out)).build());
        }, 13);
        assertEquals(1, ps.size(), ps.toString());
    }
}
