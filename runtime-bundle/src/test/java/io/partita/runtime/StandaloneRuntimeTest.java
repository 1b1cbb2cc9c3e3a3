package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.graph.BackendInfo;
import io.partita.graph.EngineKind;
import io.partita.graph.GraphRuntime;

/** On a plain class path the runtime finds backends through META-INF/services. */
class StandaloneRuntimeTest {

    @Test
    void discoversServiceLoaderBackendsRankedAboveTheReference() {
        List<BackendInfo> backends = GraphRuntime.standalone().backends();
        assertEquals(List.of("discovered", "reference"), backends.stream().map(BackendInfo::id).toList());
        assertEquals(3, backends.get(0).rank());
        assertTrue(backends.get(1).engineKinds().contains(EngineKind.CPU));
        assertEquals(BackendInfo.State.ACTIVE, backends.get(0).state());
    }

    @Test
    void referenceOnlyHasJustTheOracle() {
        assertEquals(List.of("reference"), GraphRuntime.referenceOnly().backends().stream().map(BackendInfo::id).toList());
    }
}
