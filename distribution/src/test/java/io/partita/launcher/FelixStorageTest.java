package io.partita.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which storage folders the launcher's stale cleanup removes, and that it never takes a live one. */
class FelixStorageTest {
    @TempDir
    Path tmp;

    /** The PID of a process that has ended (PIDs are not reused that fast). */
    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        long pid = p.pid();
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        return pid;
    }

    /** A storage folder as a launcher leaves it, with some Felix cache content and a lock file. */
    private Path fakeStorage(long pid, boolean lockFile) throws IOException {
        Path d = Files.createDirectory(tmp.resolve(FelixStorage.PREFIX + pid + "-" + System.nanoTime()));
        Files.createDirectories(d.resolve("bundle3/version0.0"));
        Files.writeString(d.resolve("bundle3/version0.0/bundle.jar"), "jar");
        Files.writeString(d.resolve("cache.lock"), "");
        if (lockFile) {
            Files.writeString(d.resolve(FelixStorage.LOCK), "");
        }
        return d;
    }

    private List<Path> deleteStale() {
        List<String> problems = new ArrayList<>();
        List<Path> deleted = FelixStorage.deleteStale(tmp, problems);
        assertEquals(List.of(), problems);
        return deleted;
    }

    @Test
    void aDeadOwnersUnlockedStorageIsRemoved() throws Exception {
        Path stale = fakeStorage(deadPid(), true);
        Path staleWithoutLockFile = fakeStorage(deadPid(), false);
        List<Path> deleted = deleteStale();
        assertEquals(2, deleted.size(), deleted.toString());
        assertFalse(Files.exists(stale));
        assertFalse(Files.exists(staleWithoutLockFile));
    }

    @Test
    void aLiveLaunchersStorageIsKept() throws Exception {
        FelixStorage mine = FelixStorage.create(tmp);
        try {
            Files.writeString(mine.path().resolve("cache.lock"), "");
            assertEquals(OptionalLong.of(ProcessHandle.current().pid()), FelixStorage.ownerPid(mine.path()));
            assertEquals(List.of(), deleteStale());
            assertTrue(Files.exists(mine.path().resolve("cache.lock")));
        } finally {
            mine.delete();
        }
        assertFalse(Files.exists(mine.path()), "a launcher's own storage is gone after delete");
    }

    /** A live PID keeps a folder even without a lock yet (a launcher between mkdir and lock). */
    @Test
    void aLivePidKeepsAnUnlockedStorage() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            Path starting = fakeStorage(sleeper.pid(), false);
            Path unlocked = fakeStorage(sleeper.pid(), true);
            assertEquals(List.of(), deleteStale());
            assertTrue(Files.exists(starting.resolve("cache.lock")));
            assertTrue(Files.exists(unlocked.resolve("cache.lock")));
        } finally {
            sleeper.destroy();
        }
    }

    /**
     * A lock held by another process keeps a folder whose PID looks dead (an owner in another PID
     * namespace sharing the temporary directory). The holder is a second JVM: a lock held in this
     * one would only exercise the in-JVM overlap check.
     */
    @Test
    void aLockHeldByAnotherProcessKeepsTheStorage() throws Exception {
        Path held = fakeStorage(deadPid(), true);
        Path holder = tmp.resolve("HoldLock.java");
        Files.writeString(holder, """
                import java.nio.channels.FileChannel;
                import java.nio.file.Path;
                import java.nio.file.StandardOpenOption;
                public class HoldLock {
                    public static void main(String[] a) throws Exception {
                        try (FileChannel ch = FileChannel.open(Path.of(a[0]), StandardOpenOption.WRITE);
                                var lock = ch.lock()) {
                            System.out.println("locked");
                            System.in.read(); // until the test closes our stdin
                        }
                    }
                }
                """);
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, holder.toString(), held.resolve(FelixStorage.LOCK).toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("locked", out.readLine());
            assertEquals(List.of(), deleteStale());
            assertTrue(Files.exists(held.resolve("bundle3/version0.0/bundle.jar")));
        } finally {
            p.getOutputStream().close();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        }
        // The holder is gone now: the same folder is stale.
        assertEquals(List.of(held), deleteStale());
        assertFalse(Files.exists(held));
    }

    @Test
    void foldersOfOtherFormsAreLeftAlone() throws Exception {
        Path legacy = Files.createDirectory(tmp.resolve(FelixStorage.PREFIX + "8172635412"));
        Path other = Files.createDirectory(tmp.resolve("partita-felix-notapid-1"));
        Path file = Files.writeString(tmp.resolve(FelixStorage.PREFIX + deadPid() + "-1"), "a file, not a folder");
        assertEquals(List.of(), deleteStale());
        assertTrue(Files.exists(legacy));
        assertTrue(Files.exists(other));
        assertTrue(Files.exists(file));
    }
}
