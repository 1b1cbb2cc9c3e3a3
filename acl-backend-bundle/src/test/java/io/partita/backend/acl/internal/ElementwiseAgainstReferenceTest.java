package io.partita.backend.acl.internal;

import static io.partita.backend.acl.internal.AgainstReference.assertAcl;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/** Binary arithmetic with a fused activation (odd element counts: vector tails) against the reference. */
class ElementwiseAgainstReferenceTest {

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    @ParameterizedTest(name = "{0} {1} then {2}")
    @CsvSource({"Add,1;1,none", "Add,3;17,ReLU", "Subtract,5;7;9,Clamp", "Multiply,65,ReLU", "Maximum,2;33,none",
        "Minimum,31;3,Clamp", "Add,4;4;4,Clamp"})
    void arithmeticThenActivation(String kind, String dimSpec, String activation) {
        long[] dims = java.util.Arrays.stream(dimSpec.split(";")).mapToLong(Long::parseLong).toArray();
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.valueOf(kind)).inputs(f32(0, dims), f32(1, dims)).output(f32(2, dims)).build());
            if (!activation.equals("none")) {
                Op.Builder act = Op.builder(1, OpKind.valueOf(activation)).input(f32(2, dims)).output(f32(3, dims));
                if (activation.equals("Clamp")) {
                    act.attr("min", -0.25f).attr("max", 0.5f);
                }
                g.add(act.build());
            }
        }, dims.length * 7L + dims[0]);
        assertAcl(parts, activation.equals("none") ? "eltwise" : "eltwise_" + activation.toLowerCase());
    }

    @Test
    void broadcastingOperandsAreLeftToOtherBackends() {
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Add)
                .inputs(f32(0, 3, 5), f32(1, 5)).output(f32(2, 3, 5)).build()), 1);
        assertEquals("reference", parts.get(0).backendId(), parts.toString());
    }
}
