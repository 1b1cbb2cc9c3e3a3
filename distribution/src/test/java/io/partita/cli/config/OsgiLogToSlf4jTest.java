package io.partita.cli.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class OsgiLogToSlf4jTest {

    @Test
    void anEntryAndItsCausesAreOneLine() {
        assertEquals("Failed to install artifact: conf/x.cfg: Unable to parse unicode value: ZZZZ: radix 16",
                OsgiLogToSlf4j.oneLine("Failed to install artifact: conf/x.cfg",
                        new IllegalArgumentException("Unable to parse unicode value: ZZZZ",
                                new NumberFormatException("radix\n 16"))));
        assertEquals("refused: java.lang.IllegalStateException", OsgiLogToSlf4j.oneLine("refused",
                new IllegalStateException()));
    }
}
