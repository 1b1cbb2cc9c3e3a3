package io.partita.gpu.internal.cl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signal chaining is detected from the process's mappings, and the build's test forks run with it
 * (the pom preloads libjsig, as the launcher does): a fork that opens PoCL without it can die later
 * with no error report.
 */
class SignalChainingTest {

    @Test
    void detectedFromTheMappedLibraries(@TempDir Path dir) throws IOException {
        Path with = Files.writeString(dir.resolve("with"),
                "7f1c2a000000-7f1c2a001000 r-xp 00000000 08:01 123 /usr/lib/jvm/jdk-25/lib/libjsig.so\n");
        Path without = Files.writeString(dir.resolve("without"),
                "7f1c2b000000-7f1c2b001000 r-xp 00000000 08:01 124 /usr/lib/jvm/jdk-25/lib/server/libjvm.so\n");
        assertTrue(SignalChaining.active(with, "Linux"));
        assertFalse(SignalChaining.active(without, "Linux"));
        assertTrue(SignalChaining.active(dir.resolve("missing"), "Linux"), "cannot tell: no warning on a guess");
        assertTrue(SignalChaining.active(without, "Mac OS X"), "checked on Linux only");
    }

    @Test
    void theTestForksRunWithChaining() {
        if (System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            assertTrue(SignalChaining.active(), "LD_PRELOAD=" + System.getenv("LD_PRELOAD")
                    + ": the surefire fork should preload " + System.getProperty("java.home") + "/lib/libjsig.so");
        }
    }
}
