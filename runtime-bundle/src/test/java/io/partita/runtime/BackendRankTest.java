package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.testing.TestBackend;

/** The rank a backend service is bound at, from its {@code service.ranking} property, and its {@code enabled} switch. */
class BackendRankTest {
    private final TestBackend backend = TestBackend.matmulRelu("t", 7);

    @Test
    void anIntegerRankingIsTheRank() {
        assertEquals(200, RuntimeCore.rank(backend, Map.of("service.ranking", 200), 1));
    }

    /** FileInstall's .cfg files give every value as a String. */
    @Test
    void aRankingGivenAsTextIsParsed() {
        assertEquals(200, RuntimeCore.rank(backend, Map.of("service.ranking", " 200 "), 1));
        assertEquals(-5, RuntimeCore.rank(backend, Map.of("service.ranking", "-5"), 1));
    }

    @Test
    void anUnusableRankingKeepsTheCurrentRankAndAMissingOneIsTheDefault() {
        assertEquals(42, RuntimeCore.rank(backend, Map.of("service.ranking", "high"), 42));
        assertEquals(42, RuntimeCore.rank(backend, Map.of("service.ranking", 2.5), 42));
        assertEquals(42, RuntimeCore.rank(backend, Map.of("service.ranking", "99999999999"), 42));
        assertEquals(backend.defaultRank(), RuntimeCore.rank(backend, Map.of(), 42));
    }

    @Test
    void enabledIsTrueFalseOrKeepsTheCurrentState() {
        assertTrue(RuntimeCore.enabled(backend, Map.of(), false));
        assertFalse(RuntimeCore.enabled(backend, Map.of("enabled", "FALSE "), true));
        assertFalse(RuntimeCore.enabled(backend, Map.of("enabled", false), true));
        assertTrue(RuntimeCore.enabled(backend, Map.of("enabled", "true"), false));
        assertFalse(RuntimeCore.enabled(backend, Map.of("enabled", "off"), false));
        assertTrue(RuntimeCore.enabled(backend, Map.of("enabled", "off"), true));
    }

    /** The runtime's binding: a live rank change, then disabling and enabling the backend. */
    @Test
    void updatesReRankDisableAndEnable() {
        RuntimeCore rt = new RuntimeCore(new io.partita.cache.internal.CacheManagerImpl(Map.of()));
        rt.bindBackend(backend, Map.of("service.ranking", "5"));
        assertEquals(5, rt.backends().get(0).rank());
        rt.updatedBackend(backend, Map.of("service.ranking", "9"));
        assertEquals(9, rt.backends().get(0).rank());
        rt.updatedBackend(backend, Map.of("service.ranking", "nine"));
        assertEquals(9, rt.backends().get(0).rank(), "a refused ranking keeps the current rank");
        rt.updatedBackend(backend, Map.of("service.ranking", "9", "enabled", "false"));
        assertEquals(io.partita.graph.BackendInfo.State.DISABLED, rt.backends().get(0).state());
        assertEquals("reference", rt.activeBackends().get(0).id());
        rt.updatedBackend(backend, Map.of("service.ranking", "9", "enabled", "true"));
        assertEquals("t", rt.backends().get(0).id());
        assertEquals(9, rt.backends().get(0).rank());
    }
}
