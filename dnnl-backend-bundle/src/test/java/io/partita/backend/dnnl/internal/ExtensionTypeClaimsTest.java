package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/**
 * Partita's extension types (f64, s64, s16, u16, u64) are the reference backend's alone: an
 * arithmetic chain dnnl claims in f32 falls to the reference in these types, with the same results.
 */
class ExtensionTypeClaimsTest {

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"F32", "F64", "S64", "S16", "U16", "U64"})
    void arithmeticOnExtensionTypesFallsToTheReference(DataType dt) {
        long[] d = {3, 5};
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.Add).inputs(LogicalTensor.of(0, dt, d), LogicalTensor.of(1, dt, 5))
                    .output(LogicalTensor.of(2, dt, d)).build());
            g.add(Op.builder(1, OpKind.Multiply).inputs(LogicalTensor.of(2, dt, d), LogicalTensor.of(3, dt, d))
                    .output(LogicalTensor.of(4, dt, d)).build());
        }, 11);
        for (Partition p : parts) {
            // f32, the contrast: the same ops are this backend's.
            assertEquals(dt == DataType.F32 ? "dnnl" : "reference", p.backendId(), parts.toString());
        }
    }
}
