package io.partita.backend.acl.internal;

import static io.partita.backend.acl.internal.AgainstReference.assertAcl;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/** SoftMax on the last axis and on others, odd sizes, against the reference. */
class SoftMaxAgainstReferenceTest {

    @ParameterizedTest(name = "dims={0} axis={1} mode={2}")
    @CsvSource({
        "3x37, -1, none",
        "2x5x129, 2, none",
        "1x1000, 1, inf_as_zero",
        "4x7, 0, none",
        "2x13x9x3, 1, none",
        "3x33x5, 1, inf_as_zero",
        "2x3x4x67, -2, none",
        "5x1, 1, none",
        "6x40, 0, none"
    })
    void softmax(String shape, long axis, String mode) {
        long[] dims = Arrays.stream(shape.split("x")).mapToLong(Long::parseLong).toArray();
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.SoftMax)
                .input(LogicalTensor.of(0, DataType.F32, dims)).attr("axis", axis).attr("mode", mode)
                .output(LogicalTensor.of(1, DataType.F32, dims)).build()), Arrays.hashCode(dims) + axis);
        assertAcl(parts, "softmax");
    }
}
