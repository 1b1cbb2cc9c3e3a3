package io.partita.cli.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.cache.CacheManager;
import io.partita.cache.DeviceKind;

/** {@code partita cache} shows the persistent store on one line, with its counts. */
class CacheCommandTest {
    @TempDir
    Path tmp;

    @Test
    void thePersistentCacheIsOneLineWithEntriesBytesHitsMissesStoresAndRejects() {
        CacheManager m = manager();
        m.setPersistentCacheDirectory(tmp.resolve("pc"));
        m.setPersistentCacheCapacity(8);
        m.persistentCache().load(DeviceKind.GPU, new byte[] {7});
        m.persistentCache().store(DeviceKind.GPU, new byte[] {7}, List.of(new byte[2048]));
        m.persistentCache().load(DeviceKind.GPU, new byte[] {7});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CacheCommand.print(m, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("persistent cache"))
                .toList();
        assertEquals(1, lines.size(), bytes.toString(StandardCharsets.UTF_8));
        assertTrue(lines.get(0).matches("persistent cache .*pc, capacity 8 MB \\(engines gpu\\), 1 entries, 2\\.0 KB, "
                + "hits 1, misses 1, stores 1, rejects 0"), lines.get(0));
    }

    /** A rejected entry is named with its reason under the store's line (the end of {@code partita run}). */
    @Test
    void aRejectedEntryIsNamedWithItsReason() throws java.io.IOException {
        CacheManager m = manager();
        m.setPersistentCacheDirectory(tmp.resolve("pc"));
        m.setPersistentCacheCapacity(8);
        m.persistentCache().store(DeviceKind.GPU, new byte[] {9}, List.of(new byte[512]));
        Path kernelBin;
        try (var files = java.nio.file.Files.walk(tmp.resolve("pc"))) {
            kernelBin = files.filter(f -> f.getFileName().toString().equals("kernel.bin")).findFirst().orElseThrow();
        }
        byte[] b = java.nio.file.Files.readAllBytes(kernelBin);
        b[b.length / 2] ^= 1;
        java.nio.file.Files.write(kernelBin, b);
        assertTrue(m.persistentCache().load(DeviceKind.GPU, new byte[] {9}).isEmpty());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CacheCommand.print(m, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("rejects 1 (checksum 1)"), text);
        assertTrue(text.contains("  rejected entry " + kernelBin.getParent() + ": checksum"), text);
    }

    /** As the CLI gets it on a plain class path (the test environment sets no PARTITA_PERSISTENT_* variable). */
    private static CacheManager manager() {
        return ServiceLoader.load(CacheManager.class).findFirst().orElseThrow();
    }

    @Test
    void anUnsetPersistentCacheSaysItIsOff() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CacheCommand.print(manager(), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("persistent cache off (no directory) (engines gpu), "
                + "0 entries"), bytes.toString(StandardCharsets.UTF_8));
    }
}
