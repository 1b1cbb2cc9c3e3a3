package io.partita.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.cache.CacheManager;
import io.partita.cache.DeviceKind;
import io.partita.cache.InvalidCacheSettingException;
import io.partita.cache.PersistentCache;

/**
 * The persistent cache's settings three ways (environment read once, Config Admin PID
 * io.partita.cache.persistent, the CacheManager API): latest wins, a malformed value names the
 * setting and the expected form, and the previous value stays.
 */
class PersistentCacheSettingsTest {
    @TempDir
    Path tmp;

    @Test
    void theEnvironmentSetsDirectoryCapacityAndEngines() {
        Path dir = tmp.resolve("pc");
        CacheManagerImpl m = new CacheManagerImpl(Map.of(CacheManager.PERSISTENT_DIR_ENV, dir.toString(),
                CacheManager.PERSISTENT_CAPACITY_ENV, "256", CacheManager.PERSISTENT_ENGINES_ENV, "cpu;gpu"));
        PersistentCache p = m.persistentCache();
        assertEquals(Optional.of(dir), p.directory());
        assertEquals(256, p.capacityMegabytes());
        assertTrue(p.enabled(DeviceKind.CPU));
        assertTrue(p.enabled(DeviceKind.GPU));
        assertTrue(m.lastSettingError().isEmpty());
        assertTrue(p.store(DeviceKind.CPU, new byte[] {1}, java.util.List.of(new byte[] {2})));
        assertTrue(Files.isDirectory(dir), "created on the first store");
    }

    @Test
    void theDefaultsAreOffThenGpuOnlyOnceDirectoryAndCapacityAreSet() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of());
        PersistentCache p = m.persistentCache();
        assertEquals(0, p.capacityMegabytes());
        assertEquals(Optional.empty(), p.directory());
        assertFalse(p.enabled(DeviceKind.GPU));
        m.setPersistentCacheDirectory(tmp.resolve("pc"));
        assertFalse(p.enabled(DeviceKind.GPU), "capacity 0 by default, as in the seed");
        m.setPersistentCacheCapacity(64);
        assertTrue(p.enabled(DeviceKind.GPU));
        assertFalse(p.enabled(DeviceKind.CPU));
        m.setPersistentCacheEnabled(DeviceKind.CPU, true);
        m.setPersistentCacheEnabled(DeviceKind.GPU, false);
        assertTrue(p.enabled(DeviceKind.CPU));
        assertFalse(p.enabled(DeviceKind.GPU));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "PARTITA_PERSISTENT_CACHE_CAPACITY | lots | PARTITA_PERSISTENT_CACHE_CAPACITY='lots': not a number of megabytes; expected a non-negative integer",
        "PARTITA_PERSISTENT_CACHE_CAPACITY | -5 | PARTITA_PERSISTENT_CACHE_CAPACITY='-5': not a number of megabytes",
        "PARTITA_PERSISTENT_CACHE_CAPACITY | 99999999999999999999 | PARTITA_PERSISTENT_CACHE_CAPACITY='99999999999999999999': not a number",
        "PARTITA_PERSISTENT_CACHE_CAPACITY | 9999999999999999999 | too large; expected at most",
        "PARTITA_PERSISTENT_CACHE_ENGINES | cpu;tpu | PARTITA_PERSISTENT_CACHE_ENGINES='cpu;tpu': 'tpu' is not an engine kind",
        "PARTITA_PERSISTENT_CACHE_ENGINES | cpu;;gpu | entry 2 is empty (stray ';')",
        "PARTITA_PERSISTENT_CACHE_ENGINES | gpu;gpu | 'gpu' is listed twice",
    })
    void aMalformedEnvironmentValueIsIgnoredAndRemembered(String var, String value, String message) {
        CacheManagerImpl m = new CacheManagerImpl(Map.of(var, value));
        assertTrue(m.lastSettingError().orElseThrow().contains(message), m.lastSettingError().orElseThrow());
        assertEquals(0, m.persistentCache().capacityMegabytes());
        assertFalse(m.persistentCache().enabled(DeviceKind.CPU));
    }

    @Test
    void aFileAsDirectoryIsRefusedAndThePreviousDirectoryStays() throws IOException {
        CacheManagerImpl m = new CacheManagerImpl(Map.of());
        Path good = tmp.resolve("good");
        m.setPersistentCacheDirectory(good);
        Path file = Files.writeString(tmp.resolve("file"), "x");
        InvalidCacheSettingException e = assertThrows(InvalidCacheSettingException.class,
                () -> m.setPersistentCacheDirectory(file));
        assertTrue(e.getMessage().contains(file + " exists and is not a directory"), e.getMessage());
        assertEquals(Optional.of(good), m.persistentCache().directory());
        assertEquals(e.getMessage(), m.lastSettingError().orElseThrow());
    }

    @Test
    void anUnsafeDirectoryIsRefusedAsASettingThreeWays() throws IOException {
        assumeTrue(Files.getFileAttributeView(tmp, PosixFileAttributeView.class) != null);
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        CacheManagerImpl m = new CacheManagerImpl(Map.of(CacheManager.PERSISTENT_DIR_ENV, open.toString()));
        assertEquals(Optional.empty(), m.persistentCache().directory());
        assertTrue(m.lastSettingError().orElseThrow().startsWith("PARTITA_PERSISTENT_CACHE_DIR='" + open + "': " + open
                + " is writable by group or others (rwxrwxrwx)"), m.lastSettingError().orElseThrow());
        InvalidCacheSettingException e = assertThrows(InvalidCacheSettingException.class,
                () -> m.setPersistentCacheDirectory(open));
        assertTrue(e.getMessage().contains("expected a directory only its owner can write"), e.getMessage());
        new PersistentCacheConfiguration(m, Map.of(), config(open.toString(), "", ""));
        assertTrue(m.lastSettingError().orElseThrow().contains("io.partita.cache.persistent directory='" + open),
                m.lastSettingError().orElseThrow());
        assertEquals(Optional.empty(), m.persistentCache().directory());
    }

    @Test
    void configAdminSetsTheStoreAndARefusedPropertyKeepsThePreviousValue() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of(CacheManager.PERSISTENT_CAPACITY_ENV, "10"));
        Path dir = tmp.resolve("osgi");
        PersistentCacheConfiguration c = new PersistentCacheConfiguration(m, Map.of(), config(dir.toString(), "128", "cpu"));
        assertEquals(Optional.of(dir), m.persistentCache().directory());
        assertEquals(128, m.persistentCache().capacityMegabytes(), "Config Admin came later: it wins");
        assertTrue(m.persistentCache().enabled(DeviceKind.CPU));
        assertFalse(m.persistentCache().enabled(DeviceKind.GPU));
        c.configure(config("", "12x", "none"));
        assertEquals(128, m.persistentCache().capacityMegabytes(), "the refused capacity leaves the previous one");
        assertTrue(m.lastSettingError().orElseThrow().startsWith(
                "refused io.partita.cache.persistent capacity = '12x': expected a non-negative number of megabytes"),
                m.lastSettingError().orElseThrow());
        assertEquals(Optional.of(dir), m.persistentCache().directory(),
                "a removed directory without an environment default keeps the directory (capacity 0 would turn it off)");
        assertFalse(m.persistentCache().enabled(DeviceKind.CPU), "engines none: off everywhere");
        m.setPersistentCacheCapacity(7);
        assertEquals(7, m.persistentCache().capacityMegabytes(), "and the API after it wins");
        assertThrows(InvalidCacheSettingException.class, () -> m.setPersistentCacheCapacity(-1));
        assertEquals(7, m.persistentCache().capacityMegabytes());
    }

    @Test
    void theStatsLineShowsSettingsAndCounts() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of(CacheManager.PERSISTENT_DIR_ENV, tmp.resolve("s").toString(),
                CacheManager.PERSISTENT_CAPACITY_ENV, "2"));
        PersistentCache p = m.persistentCache();
        p.load(DeviceKind.GPU, new byte[] {1});
        p.store(DeviceKind.GPU, new byte[] {1}, java.util.List.of(new byte[100]));
        p.load(DeviceKind.GPU, new byte[] {1});
        String line = p.stats().describe();
        assertTrue(line.startsWith(tmp.resolve("s") + ", capacity 2 MB (engines gpu), 1 entries, "), line);
        assertTrue(line.endsWith("hits 1, misses 1, stores 1, rejects 0"), line);
    }

    /** The properties as FileInstall gives them: text; an empty one stands for a removed property. */
    static Map<String, Object> config(String directory, String capacity, String engines) {
        return Map.of("directory", directory, "capacity", capacity, "engines", engines);
    }
}
