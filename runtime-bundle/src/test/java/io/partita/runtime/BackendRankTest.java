package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.testing.TestBackend;

/** The rank a backend service is bound at, from its {@code service.ranking} property. */
class BackendRankTest {
    private final TestBackend backend = TestBackend.matmulRelu("t", 7);

    @Test
    void anIntegerRankingIsTheRank() {
        assertEquals(200, RuntimeCore.rank(backend, Map.of("service.ranking", 200)));
    }

    /** FileInstall's .cfg files give every value as a String. */
    @Test
    void aRankingGivenAsTextIsParsed() {
        assertEquals(200, RuntimeCore.rank(backend, Map.of("service.ranking", " 200 ")));
        assertEquals(-5, RuntimeCore.rank(backend, Map.of("service.ranking", "-5")));
    }

    @Test
    void anUnusableOrMissingRankingKeepsTheDefault() {
        assertEquals(backend.defaultRank(), RuntimeCore.rank(backend, Map.of("service.ranking", "high")));
        assertEquals(backend.defaultRank(), RuntimeCore.rank(backend, Map.of("service.ranking", 2.5)));
        assertEquals(backend.defaultRank(), RuntimeCore.rank(backend, Map.of()));
    }
}
