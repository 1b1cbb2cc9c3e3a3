package io.partita.graph;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The API alone (no runtime jar on this module's class path) says what is missing. */
class GraphRuntimeFactoryTest {

    @Test
    void withoutARuntimeOnTheClassPathStandaloneNamesTheMissingJar() {
        PartitaException e = assertThrows(PartitaException.class, GraphRuntime::standalone);
        assertTrue(e.getMessage().contains("runtime-bundle"), e.getMessage());
        assertTrue(e.getMessage().contains(GraphRuntimeFactory.class.getName()), e.getMessage());
        assertThrows(PartitaException.class, GraphRuntime::referenceOnly);
    }
}
