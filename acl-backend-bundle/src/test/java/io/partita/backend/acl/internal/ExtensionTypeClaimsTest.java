package io.partita.backend.acl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/** Partita's extension types are the reference backend's alone: ACL claims no elementwise op on them. */
class ExtensionTypeClaimsTest {

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"F32", "F64", "S64", "S16", "U16", "U64"})
    void arithmeticOnExtensionTypesFallsToTheReference(DataType dt) {
        long[] d = {4, 6};
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Add)
                .inputs(LogicalTensor.of(0, dt, d), LogicalTensor.of(1, dt, d)).output(LogicalTensor.of(2, dt, d))
                .build()), 5);
        assertEquals(1, parts.size(), parts.toString());
        // f32, the contrast: the same op is ACL's.
        assertEquals(dt == DataType.F32 ? AclBackend.ID : "reference", parts.get(0).backendId(), parts.toString());
    }
}
