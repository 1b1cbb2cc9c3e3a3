package io.partita.cache.internal;

import static io.partita.cache.internal.StoreFixtures.actualBytes;
import static io.partita.cache.internal.StoreFixtures.blobs;
import static io.partita.cache.internal.StoreFixtures.entries;
import static io.partita.cache.internal.StoreFixtures.entryOf;
import static io.partita.cache.internal.StoreFixtures.key;
import static io.partita.cache.internal.StoreFixtures.same;
import static io.partita.cache.internal.StoreFixtures.sizeTxt;
import static io.partita.cache.internal.StoreFixtures.store;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.cache.DeviceKind;
import io.partita.cache.PersistentCacheStats;
import io.partita.cache.PersistentCacheStats.Reject;

/** The on-disk store in one process: layout, round trips, every kind of damaged entry, FIFO, permissions, off switches. */
class PersistentStoreTest {
    @TempDir
    Path tmp;

    private Path dir() {
        return tmp.resolve("cache");
    }

    @Test
    void anEntryRoundTripsInTheSeedLayoutAndSizeTxtCountsIt() throws IOException {
        PersistentStore s = store(dir(), 16);
        assertTrue(s.load(DeviceKind.GPU, key(1)).isEmpty());
        List<byte[]> blobs = List.of(new byte[] {1, 2, 3}, new byte[0], new byte[1000]);
        assertTrue(s.store(DeviceKind.GPU, key(1), blobs));
        Path entry = dir().resolve(EntryFormat.bucket(key(1))).resolve("0");
        assertTrue(Files.isRegularFile(entry.resolve("key.bin")));
        assertTrue(Files.isRegularFile(entry.resolve("kernel.bin")));
        assertTrue(same(blobs, s.load(DeviceKind.GPU, key(1)).orElseThrow()));
        assertEquals(actualBytes(dir()) + " 1", sizeTxt(dir()));
        PersistentCacheStats st = s.stats();
        assertEquals(1, st.entries());
        assertEquals(actualBytes(dir()), st.bytes());
        assertEquals(1, st.hits());
        assertEquals(1, st.misses());
        assertEquals(1, st.stores());
        assertEquals(0, st.rejected());
        // a second store of the same key keeps one entry
        assertTrue(s.store(DeviceKind.GPU, key(1), blobs));
        assertEquals(1, entries(dir()).size());
        // another process (here: another store instance) sees it
        assertTrue(same(blobs, store(dir(), 16).load(DeviceKind.CPU, key(1)).orElseThrow()));
    }

    /** A backend that cannot use an intact entry removes it, so its fresh store replaces the refused blobs. */
    @Test
    void onlyCanonicalDecimalFolderNamesAreEntries() {
        for (String ok : List.of("0", "1", "9", "10", "123456789")) {
            assertTrue(PersistentStore.isEntryNumber(ok), ok);
        }
        for (String bad : List.of("", "00", "01", "-1", "+1", "1234567890", "1a", " 1", "\u0661", ".tmp")) {
            assertFalse(PersistentStore.isEntryNumber(bad), bad);
        }
    }

    @Test
    void anEntryTheBackendRefusedIsRemovedAndReplacedByTheNextStore() throws IOException {
        PersistentStore s = store(dir(), 16);
        assertFalse(s.remove(DeviceKind.GPU, key(1)), "nothing to remove");
        assertTrue(s.store(DeviceKind.GPU, key(1), List.of(new byte[] {9, 9})));
        assertTrue(s.store(DeviceKind.GPU, key(2), blobs(2, 100)));
        assertTrue(s.remove(DeviceKind.GPU, key(1)));
        assertTrue(s.load(DeviceKind.GPU, key(1)).isEmpty());
        assertTrue(s.load(DeviceKind.GPU, key(2)).isPresent(), "other entries stay");
        assertEquals(actualBytes(dir()) + " 1", sizeTxt(dir()));
        assertEquals(1, s.stats().rejects().get(Reject.REFUSED));
        assertTrue(s.stats().describe().contains("refused 1"), s.stats().describe());
        List<byte[]> fresh = List.of(new byte[] {1, 2, 3});
        assertTrue(s.store(DeviceKind.GPU, key(1), fresh));
        assertTrue(same(fresh, s.load(DeviceKind.GPU, key(1)).orElseThrow()));
        s.setEngines(Set.of(DeviceKind.CPU));
        assertFalse(s.remove(DeviceKind.GPU, key(1)), "disabled for gpu");
    }

    @Test
    void theDirectoryAndItsFilesAreOwnerOnly() throws IOException {
        assumeTrue(posix());
        PersistentStore s = store(dir(), 16);
        assertTrue(s.store(DeviceKind.GPU, key(1), blobs(1, 100)));
        Path entry = entryOf(dir(), key(1));
        assertEquals("rwx------", perms(dir()));
        assertEquals("rwx------", perms(entry));
        assertEquals("rw-------", perms(entry.resolve("kernel.bin")));
    }

    @Test
    void anotherKeysEntryPlantedInABucketIsRemovedNotServed() throws IOException {
        PersistentStore s = store(dir(), 16);
        assertTrue(s.store(DeviceKind.GPU, key(1), blobs(1, 100)));
        // a valid entry of another key planted as entry 0 of key 2's bucket
        Path bucket2 = dir().resolve(EntryFormat.bucket(key(2)));
        Files.createDirectories(bucket2);
        byte[] other = "another key".getBytes();
        byte[] keyFile = EntryFormat.encodeKey(other);
        Path e0 = bucket2.resolve("0");
        Files.createDirectory(e0);
        Files.write(e0.resolve("key.bin"), keyFile);
        Files.write(e0.resolve("kernel.bin"), EntryFormat.encodeKernel(keyFile, blobs(9, 10)));
        // its key does not hash to this bucket, so it is no collision but a key mismatch: removed
        assertTrue(s.load(DeviceKind.GPU, key(2)).isEmpty());
        assertEquals(1, s.stats().rejects().get(Reject.KEY_MISMATCH));
        assertTrue(s.store(DeviceKind.GPU, key(2), blobs(2, 100)));
        assertTrue(same(blobs(2, 100), s.load(DeviceKind.GPU, key(2)).orElseThrow()));
        assertTrue(same(blobs(1, 100), s.load(DeviceKind.GPU, key(1)).orElseThrow()));
    }

    // ---- damaged entries: each is detected, counted by reason, removed, never returned, and rebuilt ----

    private void damagedEntryIsRejected(Reject reason, Damage damage) throws IOException {
        PersistentStore s = store(dir(), 16);
        List<byte[]> good = blobs(5, 4000);
        assertTrue(s.store(DeviceKind.GPU, key(5), good));
        assertTrue(s.store(DeviceKind.GPU, key(6), blobs(6, 4000)));
        Path entry = entryOf(dir(), key(5));
        damage.apply(entry);
        PersistentStore fresh = store(dir(), 16); // another process: no state shared
        assertEquals(Optional.empty(), fresh.load(DeviceKind.GPU, key(5)), "a " + reason + " entry must not load");
        PersistentCacheStats st = fresh.stats();
        assertEquals(1, st.rejects().get(reason), () -> "rejects " + st.rejects());
        assertEquals(1, st.rejected(), () -> "rejects " + st.rejects());
        // named for the end-of-run report: the entry's folder and the reason
        assertEquals(1, st.rejections().size(), st.rejections()::toString);
        assertEquals(entry.toString(), st.rejections().get(0).entry());
        assertEquals(reason, st.rejections().get(0).reason());
        assertTrue(st.rejections().get(0).describe().startsWith(entry + ": " + reason.spelling()),
                st.rejections().get(0).describe());
        assertFalse(Files.exists(entry), "the damaged entry is removed");
        assertEquals(actualBytes(dir()) + " 1", sizeTxt(dir()), "size.txt follows the removal");
        // loading again finds nothing and counts nothing more; the next compile rebuilds it
        assertTrue(fresh.load(DeviceKind.GPU, key(5)).isEmpty());
        assertEquals(1, fresh.stats().rejected());
        assertTrue(fresh.store(DeviceKind.GPU, key(5), good));
        assertTrue(same(good, fresh.load(DeviceKind.GPU, key(5)).orElseThrow()));
        assertTrue(same(blobs(6, 4000), fresh.load(DeviceKind.GPU, key(6)).orElseThrow()), "the other entry is untouched");
    }

    @FunctionalInterface
    interface Damage {
        void apply(Path entry) throws IOException;
    }

    private static void truncate(Path file, int keep) throws IOException {
        byte[] b = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(b, keep));
    }

    private static void flip(Path file, int fromEnd) throws IOException {
        byte[] b = Files.readAllBytes(file);
        b[b.length - fromEnd] ^= 0x40;
        Files.write(file, b);
    }

    @Test
    void aTruncatedKernelBinIsRejected() throws IOException {
        damagedEntryIsRejected(Reject.TRUNCATED, e -> truncate(e.resolve("kernel.bin"),
                (int) Files.size(e.resolve("kernel.bin")) / 2));
    }

    @Test
    void aKernelBinCutInsideItsHeaderIsRejectedAsTruncated() throws IOException {
        damagedEntryIsRejected(Reject.TRUNCATED, e -> truncate(e.resolve("kernel.bin"), 10));
    }

    @Test
    void aTruncatedKeyBinIsRejected() throws IOException {
        damagedEntryIsRejected(Reject.TRUNCATED, e -> truncate(e.resolve("key.bin"), 14));
    }

    @Test
    void anEmptyKeyBinIsRejectedAsTruncated() throws IOException {
        damagedEntryIsRejected(Reject.TRUNCATED, e -> truncate(e.resolve("key.bin"), 0));
    }

    @Test
    void aMissingKernelBinIsRejectedAsTruncated() throws IOException {
        damagedEntryIsRejected(Reject.TRUNCATED, e -> Files.delete(e.resolve("kernel.bin")));
    }

    @Test
    void aFlippedByteInABlobIsRejectedByTheChecksum() throws IOException {
        damagedEntryIsRejected(Reject.CHECKSUM, e -> flip(e.resolve("kernel.bin"), 100));
    }

    @Test
    void aFlippedByteInTheChecksumItselfIsRejected() throws IOException {
        damagedEntryIsRejected(Reject.CHECKSUM, e -> flip(e.resolve("kernel.bin"), 1));
    }

    @Test
    void aFlippedByteInTheKeyIsRejectedByTheChecksumOverBothFiles() throws IOException {
        damagedEntryIsRejected(Reject.CHECKSUM, e -> flip(e.resolve("key.bin"), 3));
    }

    @Test
    void aKernelBinWithTrailingBytesIsRejected() throws IOException {
        damagedEntryIsRejected(Reject.CHECKSUM, e -> Files.write(e.resolve("kernel.bin"), new byte[] {0},
                java.nio.file.StandardOpenOption.APPEND));
    }

    @Test
    void anotherFormatVersionIsRejected() throws IOException {
        damagedEntryIsRejected(Reject.VERSION, e -> {
            byte[] b = Files.readAllBytes(e.resolve("kernel.bin"));
            ByteBuffer.wrap(b).putInt(4, EntryFormat.VERSION + 1);
            Files.write(e.resolve("kernel.bin"), b);
        });
    }

    @Test
    void aKeyBinOfAnotherFormatIsRejectedAsVersion() throws IOException {
        damagedEntryIsRejected(Reject.VERSION, e -> Files.writeString(e.resolve("key.bin"), "not an entry at all"));
    }

    @Test
    void aConsistentEntryWithAnotherKeyInThisBucketIsAKeyMismatch() throws IOException {
        damagedEntryIsRejected(Reject.KEY_MISMATCH, e -> {
            // the whole entry of key 6 (consistent: its checksum holds) moved over key 5's
            Path other = entryOf(e.getParent().getParent(), key(6));
            Files.copy(other.resolve("key.bin"), e.resolve("key.bin"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.copy(other.resolve("kernel.bin"), e.resolve("kernel.bin"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        });
    }

    @Test
    void aKeyBinFromAnotherEntryIsRejectedByTheChecksum() throws IOException {
        damagedEntryIsRejected(Reject.CHECKSUM, e -> Files.copy(entryOf(e.getParent().getParent(), key(6))
                .resolve("key.bin"), e.resolve("key.bin"), java.nio.file.StandardCopyOption.REPLACE_EXISTING));
    }

    @Test
    void aGroupWritableEntryIsRejectedForPermission() throws IOException {
        assumeTrue(posix());
        damagedEntryIsRejected(Reject.PERMISSION, e -> Files.setPosixFilePermissions(e.resolve("kernel.bin"),
                PosixFilePermissions.fromString("rw-rw-r--")));
    }

    @Test
    void aSymbolicLinkAsKernelBinIsRejectedForPermission() throws IOException {
        assumeTrue(posix());
        damagedEntryIsRejected(Reject.PERMISSION, e -> {
            Path elsewhere = tmp.resolve("elsewhere.bin");
            Files.move(e.resolve("kernel.bin"), elsewhere);
            Files.createSymbolicLink(e.resolve("kernel.bin"), elsewhere);
        });
    }

    // ---- capacity ----

    @Test
    void atCapacityTheOldestKernelBinIsEvictedFirst() throws IOException, InterruptedException {
        PersistentStore s = store(dir(), 1);
        byte[] blob = new byte[300_000];
        for (int i = 0; i < 3; i++) {
            assertTrue(s.store(DeviceKind.GPU, key(i), List.of(blob)));
            Thread.sleep(20); // distinct creation times even on coarse clocks
        }
        // reading the oldest does not make it younger (FIFO, not LRU)
        assertTrue(s.load(DeviceKind.GPU, key(0)).isPresent());
        assertTrue(s.store(DeviceKind.GPU, key(3), List.of(blob)));
        assertTrue(s.load(DeviceKind.GPU, key(0)).isEmpty(), "the first in is the first out");
        for (int i = 1; i <= 3; i++) {
            assertTrue(s.load(DeviceKind.GPU, key(i)).isPresent(), "entry " + i);
        }
        Thread.sleep(20);
        assertTrue(s.store(DeviceKind.GPU, key(4), List.of(blob)));
        assertTrue(s.load(DeviceKind.GPU, key(1)).isEmpty(), "then the second");
        assertTrue(s.load(DeviceKind.GPU, key(2)).isPresent());
        assertEquals(3, entries(dir()).size());
        assertTrue(actualBytes(dir()) <= 1 << 20);
        assertEquals(actualBytes(dir()) + " 3", sizeTxt(dir()));
        // an entry larger than the whole capacity is not stored and evicts nothing
        assertFalse(s.store(DeviceKind.GPU, key(9), List.of(new byte[2 << 20])));
        assertEquals(3, entries(dir()).size());
    }

    @Test
    void loweringTheCapacityEvictsAtTheNextStore() throws IOException, InterruptedException {
        PersistentStore s = store(dir(), 4);
        for (int i = 0; i < 8; i++) {
            assertTrue(s.store(DeviceKind.GPU, key(i), List.of(new byte[400_000])));
            Thread.sleep(5);
        }
        assertEquals(8, entries(dir()).size());
        s.setCapacity(1);
        assertTrue(s.store(DeviceKind.GPU, key(8), List.of(new byte[100])));
        assertEquals(3, entries(dir()).size());
        assertTrue(s.load(DeviceKind.GPU, key(8)).isPresent());
        assertTrue(s.load(DeviceKind.GPU, key(7)).isPresent());
        assertTrue(s.load(DeviceKind.GPU, key(5)).isEmpty());
    }

    @Test
    void capacityZeroDisablesTheStoreAndTouchesNoFile() throws IOException {
        PersistentStore s = store(dir(), 0);
        assertFalse(s.enabled(DeviceKind.GPU));
        assertFalse(s.store(DeviceKind.GPU, key(1), blobs(1, 10)));
        assertTrue(s.load(DeviceKind.GPU, key(1)).isEmpty());
        assertFalse(Files.exists(dir()), "nothing created");
        assertEquals(0, s.stats().misses(), "a disabled store is not asked");
        s.setCapacity(1);
        assertTrue(s.store(DeviceKind.GPU, key(1), blobs(1, 10)));
        s.setCapacity(0);
        assertTrue(s.load(DeviceKind.GPU, key(1)).isEmpty(), "disabled again, the entry stays on disk but is not read");
        assertEquals(1, entries(dir()).size());
        assertTrue(s.stats().describe().contains("off (capacity 0)"), s.stats().describe());
    }

    @Test
    void onlyTheEnabledEngineKindsUseTheStore() {
        PersistentStore s = store(dir(), 4);
        s.setEngines(Set.of(DeviceKind.GPU));
        assertFalse(s.store(DeviceKind.CPU, key(1), blobs(1, 10)));
        assertTrue(s.store(DeviceKind.GPU, key(1), blobs(1, 10)));
        assertTrue(s.load(DeviceKind.CPU, key(1)).isEmpty());
        assertTrue(s.load(DeviceKind.GPU, key(1)).isPresent());
    }

    @Test
    void theDefaultIsOffUntilADirectoryAndACapacityAreSetThenGpuOnly() {
        PersistentStore s = new PersistentStore();
        assertFalse(s.enabled(DeviceKind.GPU));
        s.setCapacity(8);
        assertFalse(s.enabled(DeviceKind.GPU), "no directory yet");
        s.setDirectory(dir());
        assertTrue(s.enabled(DeviceKind.GPU));
        assertFalse(s.enabled(DeviceKind.CPU));
        assertTrue(new PersistentStore().stats().describe().startsWith("off (no directory)"));
    }

    @Test
    void aWrongSizeTxtIsReconciledWithTheDirectory() throws IOException {
        PersistentStore s = store(dir(), 16);
        assertTrue(s.store(DeviceKind.GPU, key(1), blobs(1, 1000)));
        assertTrue(s.store(DeviceKind.GPU, key(2), blobs(2, 1000)));
        Files.writeString(dir().resolve("size.txt"), "999999 77\n");
        assertTrue(store(dir(), 16).store(DeviceKind.GPU, key(3), blobs(3, 1000)), "a new process recounts");
        assertEquals(actualBytes(dir()) + " 3", sizeTxt(dir()));
        Files.writeString(dir().resolve("size.txt"), "garbage");
        assertTrue(s.store(DeviceKind.GPU, key(4), blobs(4, 1000)), "a malformed size.txt is recounted");
        assertEquals(actualBytes(dir()) + " 4", sizeTxt(dir()));
        Files.delete(dir().resolve("size.txt"));
        assertTrue(s.store(DeviceKind.GPU, key(5), blobs(5, 1000)), "so is a missing one");
        assertEquals(actualBytes(dir()) + " 5", sizeTxt(dir()));
    }

    // ---- the directory's permissions ----

    @Test
    void aWorldWritableDirectoryIsRefusedWithAClearMessage() throws IOException {
        assumeTrue(posix());
        PersistentStore s = store(dir(), 16);
        assertTrue(s.store(DeviceKind.GPU, key(1), blobs(1, 10)));
        Files.setPosixFilePermissions(dir(), PosixFilePermissions.fromString("rwxrwxrwx"));
        assertTrue(s.load(DeviceKind.GPU, key(1)).isEmpty(), "nothing is loaded from a directory others can write");
        assertFalse(s.store(DeviceKind.GPU, key(2), blobs(2, 10)));
        String problem = s.stats().problem();
        assertNotNull(problem);
        assertTrue(problem.contains(dir().toString()) && problem.contains("writable by group or others")
                && problem.contains("rwxrwxrwx"), problem);
        assertTrue(s.stats().describe().contains("refused: "), s.stats().describe());
        Files.setPosixFilePermissions(dir(), PosixFilePermissions.fromString("rwx------"));
        assertTrue(s.load(DeviceKind.GPU, key(1)).isPresent(), "usable again once fixed");
        assertNull(s.stats().problem());
    }

    @Test
    void aGroupWritableDirectoryIsRefusedAsASetting() throws IOException {
        assumeTrue(posix());
        Files.createDirectories(dir());
        Files.setPosixFilePermissions(dir(), PosixFilePermissions.fromString("rwxrwx---"));
        var e = org.junit.jupiter.api.Assertions.assertThrows(io.partita.cache.InvalidCacheSettingException.class,
                () -> PersistentStore.parseDirectory("PARTITA_PERSISTENT_CACHE_DIR", dir().toString()));
        assertTrue(e.getMessage().startsWith("PARTITA_PERSISTENT_CACHE_DIR='" + dir() + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("writable by group or others"), e.getMessage());
    }

    @Test
    void aDirectoryOwnedByAnotherUserIsRefused() throws IOException {
        assumeTrue(posix());
        Files.createDirectories(dir());
        UserPrincipal me = Files.getOwner(dir());
        UserPrincipal nobody;
        try {
            nobody = dir().getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
            Files.setOwner(dir(), nobody); // only root may give a file away
        } catch (IOException | UnsupportedOperationException e) {
            assumeTrue(false, "cannot give a directory to another user here: " + e);
            return;
        }
        assumeTrue(!nobody.equals(me));
        PersistentStore s = store(dir(), 16);
        assertFalse(s.store(DeviceKind.GPU, key(1), blobs(1, 10)));
        assertTrue(s.stats().problem().contains("is owned by nobody"), s.stats().problem());
    }

    private boolean posix() {
        return Files.getFileAttributeView(tmp, PosixFileAttributeView.class) != null;
    }

    private static String perms(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
