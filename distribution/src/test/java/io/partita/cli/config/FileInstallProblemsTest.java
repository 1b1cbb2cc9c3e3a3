package io.partita.cli.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.junit.jupiter.api.Test;

class FileInstallProblemsTest {

    @Test
    void anUnparseableFileIsOneLineThatSaysItWasNotApplied() {
        assertEquals("partita: configuration: Failed to install artifact: conf/x.cfg: Unable to parse unicode value:"
                + " ZZZZ (not applied: the configuration keeps its previous values until the file is fixed)",
                FileInstallProblems.line("Failed to install artifact: conf/x.cfg",
                        new IllegalArgumentException("Unable to parse unicode value: ZZZZ")));
    }

    @Test
    void warningsOfFileInstallReachStderrAndDebugDoesNot() {
        PrintStream saved = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Logger log = Logger.getLogger("fileinstall-test");
        try {
            System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            FileInstallProblems.reportOnStderr(log);
            log.log(Level.FINE, "Installing conf/y.cfg");
            log.log(Level.SEVERE, "Failed to install artifact: conf/y.cfg", new RuntimeException("bad\nvalue"));
        } finally {
            System.setErr(saved);
        }
        assertEquals("partita: configuration: Failed to install artifact: conf/y.cfg: bad value (not applied: the"
                + " configuration keeps its previous values until the file is fixed)\n",
                bytes.toString(StandardCharsets.UTF_8));
    }
}
