package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.graph.BackendInfo;
import io.partita.graph.EngineKind;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.testing.FactoryMadeBackend;

/** On a plain class path the runtime finds backends through META-INF/services. */
class StandaloneRuntimeTest {

    @Test
    void discoversServiceLoaderBackendsRankedAboveTheReference() {
        List<BackendInfo> backends = GraphRuntime.standalone().backends();
        assertEquals(List.of("discovered", "factory-made", "reference"), backends.stream().map(BackendInfo::id).toList());
        assertEquals(3, backends.get(0).rank());
        assertEquals(2, backends.get(1).rank());
        assertTrue(backends.get(2).engineKinds().contains(EngineKind.CPU));
        assertEquals(BackendInfo.State.ACTIVE, backends.get(0).state());
    }

    @Test
    void eachRuntimeHandsItsOwnCachesToTheBackendsItCreates() {
        int before = FactoryMadeBackend.CREATED.size();
        RuntimeCore a = new StandaloneRuntime().discover();
        RuntimeCore b = new StandaloneRuntime().discover();
        List<FactoryMadeBackend> made = FactoryMadeBackend.CREATED.subList(before, FactoryMadeBackend.CREATED.size());
        assertEquals(2, made.size());
        assertSame(a.caches(), made.get(0).caches);
        assertSame(b.caches(), made.get(1).caches);
        assertNotSame(a.caches(), b.caches(), "no process-wide cache manager");
    }

    @Test
    void threadSettingReachesPresentAndLaterBackendsAndABadValueChangesNothing() {
        RuntimeCore rt = StandaloneRuntime.of();
        FactoryMadeBackend present = (FactoryMadeBackend) new FactoryMadeBackend.Factory().create(rt.caches());
        rt.addBackend(present, 5);
        rt.setThreads(3);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> rt.setThreads(0));
        assertTrue(e.getMessage().contains("0") && e.getMessage().contains("1 to 1024"), e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> rt.setThreads(1025));
        FactoryMadeBackend later = (FactoryMadeBackend) new FactoryMadeBackend.Factory().create(rt.caches());
        rt.addBackend(later, 4);
        assertEquals(List.of(3), present.threadSettings);
        assertEquals(List.of(3), later.threadSettings, "a backend arriving later gets the setting too");
    }

    @Test
    void chosenBackendsAreKeptAndTheCachesSetUpBeforeAnyBackendExists() {
        int before = FactoryMadeBackend.CREATED.size();
        List<Integer> backendsWhenSetUp = new java.util.ArrayList<>();
        GraphRuntime rt = GraphRuntime.standalone(java.util.Set.of("factory-made"),
                caches -> backendsWhenSetUp.add(FactoryMadeBackend.CREATED.size() - before));
        assertEquals(List.of("factory-made", "reference"), rt.backends().stream().map(BackendInfo::id).toList());
        assertEquals(List.of(0), backendsWhenSetUp, "the hook runs once, before the backends are created");
        assertEquals(List.of("discovered", "factory-made", "reference"),
                GraphRuntime.standalone(java.util.Set.of(), c -> { }).backends().stream().map(BackendInfo::id).toList(),
                "no ids: every backend found");
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> GraphRuntime.standalone(java.util.Set.of("dnnl"), c -> { }));
        assertEquals("backend 'dnnl' is not on the class path; found [discovered, factory-made] (and the reference backend,"
                + " always present)", e.getMessage());
    }

    @Test
    void referenceOnlyHasJustTheOracle() {
        assertEquals(List.of("reference"), GraphRuntime.referenceOnly().backends().stream().map(BackendInfo::id).toList());
        assertEquals(List.of("reference"), GraphRuntime.standalone().reference().backends().stream()
                .map(BackendInfo::id).toList());
    }
}
