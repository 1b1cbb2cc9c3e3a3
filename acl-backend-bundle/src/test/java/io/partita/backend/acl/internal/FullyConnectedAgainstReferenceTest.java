package io.partita.backend.acl.internal;

import static io.partita.backend.acl.internal.AgainstReference.assertAcl;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PropertyType;

/** MatMul / fully connected partitions of odd sizes, transposes, bias and fused ReLU against the reference. */
class FullyConnectedAgainstReferenceTest {

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static LogicalTensor weights(long id, boolean constant, long... dims) {
        return constant ? f32(id, dims).withProperty(PropertyType.CONSTANT) : f32(id, dims);
    }

    @ParameterizedTest(name = "m={0} k={1} n={2} ta={3} tb={4} constant={5} bias={6} relu={7}")
    @CsvSource({
        "1,1,1,false,false,true,false,false", "3,17,63,false,false,true,true,false", "17,63,65,false,false,false,false,true",
        "63,3,1,false,true,true,true,true", "65,129,130,true,false,true,false,false", "5,7,9,true,true,false,true,false",
        "4,9,4,false,true,false,false,true", "200,300,70,false,false,true,true,true", "7,5,33,true,false,false,true,true"
    })
    void products(int m, int k, int n, boolean ta, boolean tb, boolean constant, boolean bias, boolean relu) {
        List<Partition> parts = AgainstReference.check(g -> {
            Op.Builder mm = Op.builder(0, OpKind.MatMul).input(f32(0, ta ? new long[] {k, m} : new long[] {m, k}))
                    .input(weights(1, constant, tb ? new long[] {n, k} : new long[] {k, n}))
                    .attr("transpose_a", ta).attr("transpose_b", tb);
            if (bias) {
                mm.input(weights(2, constant, n));
            }
            g.add(mm.output(f32(3, m, n)).build());
            if (relu) {
                g.add(Op.builder(1, OpKind.ReLU).input(f32(3, m, n)).output(f32(4, m, n)).build());
            }
        }, m * 31L + n);
        assertAcl(parts, relu ? "fc_relu" : "fc");
    }

    @ParameterizedTest
    @CsvSource(value = {"2;3;5;7", "4;1;9;3"}, delimiter = ';')
    void leadingBatchDimsFoldIntoRows(long b0, long b1, long k, long n) {
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.MatMul)
                .inputs(f32(0, b0, b1, k), weights(1, true, k, n)).output(f32(2, b0, b1, n)).build()), 5);
        assertAcl(parts, "fc");
        assertEquals(List.of(0L), parts.get(0).ops().stream().map(Op::id).toList());
    }
}
