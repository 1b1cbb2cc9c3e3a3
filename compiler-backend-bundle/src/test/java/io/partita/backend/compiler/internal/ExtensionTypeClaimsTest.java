package io.partita.backend.compiler.internal;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;

/**
 * Partita's extension types are the reference backend's alone: the dynamic elementwise chain the
 * compiler fuses in f32 is left to the reference in f64, s64, s16, u16 and u64.
 */
class ExtensionTypeClaimsTest {

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"F32", "F64", "S64", "S16", "U16", "U64"})
    void dynamicArithmeticChainOnExtensionTypesIsNotClaimed(DataType dt) {
        long[] d = {DYNAMIC_DIM, 8};
        List<Partition> parts = RowFusionChecks.graph(RowFusionChecks.RUNTIME, g -> {
            g.add(Op.builder(0, OpKind.Add).inputs(LogicalTensor.of(0, dt, d), LogicalTensor.of(1, dt, 8))
                    .output(LogicalTensor.of(2, dt, d)).build());
            g.add(Op.builder(1, OpKind.Multiply).inputs(LogicalTensor.of(2, dt, d), LogicalTensor.of(3, dt, 1))
                    .output(LogicalTensor.of(4, dt, d)).build());
        }).partitions(PartitionPolicy.FUSION);
        for (Partition p : parts) {
            // f32, the contrast: the same ops are this backend's.
            assertEquals(dt == DataType.F32 ? CompilerBackend.ID : "reference", p.backendId(), parts.toString());
        }
    }
}
