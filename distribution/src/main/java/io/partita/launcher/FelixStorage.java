package io.partita.launcher;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Felix framework storage of one launcher process, a folder in the temporary directory named
 * {@code partita-felix-PID-RANDOM} with a lock file {@value #LOCK} inside that the process holds
 * locked while it runs. The launcher deletes its own folder when it exits; folders left by
 * processes that died without doing so (killed, crashed) are deleted by the next launcher.
 *
 * <p>A folder is stale only when both owners' marks say so: its lock is free and the PID in its
 * name is not a live process. The PID alone is not enough (a process in another PID namespace
 * sharing the temporary directory has a PID this one cannot see), nor is the lock alone (a starting
 * launcher has created its folder or lock file but not yet taken the lock). Folders of launchers
 * before this scheme ({@code partita-felix-RANDOM}, no PID) are left alone: whether their owner still
 * runs cannot be told.
 */
final class FelixStorage {
    static final String PREFIX = "partita-felix-";
    static final String LOCK = "partita.lock";
    private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-\\d+");

    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private boolean deleted;

    private FelixStorage(Path dir, FileChannel lockChannel, FileLock lock) {
        this.dir = dir;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /** Creates this process's storage folder in {@code tempDir} and locks it. */
    static FelixStorage create(Path tempDir) throws IOException {
        Path dir = Files.createTempDirectory(tempDir, PREFIX + ProcessHandle.current().pid() + "-");
        FileChannel ch = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        if (lock == null) { // a fresh file nobody else knows of: cannot be locked by anyone else
            ch.close();
            throw new IOException("cannot lock the new storage lock file " + dir.resolve(LOCK));
        }
        return new FelixStorage(dir, ch, lock);
    }

    Path path() {
        return dir;
    }

    /**
     * Deletes the folder, the lock file last, and releases the lock. Idempotent; what cannot be
     * deleted (a file still open elsewhere) is left for a later launcher's stale cleanup.
     */
    synchronized void delete() throws IOException {
        if (deleted) {
            return;
        }
        deleted = true;
        try {
            deleteTree(dir, dir.resolve(LOCK));
            Files.deleteIfExists(dir.resolve(LOCK));
        } finally {
            lock.release();
            lockChannel.close();
        }
        Files.deleteIfExists(dir);
    }

    /**
     * Deletes the storage folders in {@code tempDir} whose owning process is gone, and returns them.
     * Never throws: a folder that cannot be examined or deleted is skipped and reported through
     * {@code problems}, except another user's (access denied), which is skipped silently.
     */
    static List<Path> deleteStale(Path tempDir, List<String> problems) {
        List<Path> deleted = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(tempDir, PREFIX + "*")) {
            for (Path d : s) {
                OptionalLong pid = ownerPid(d);
                if (pid.isEmpty() || !Files.isDirectory(d) || pid.getAsLong() == ProcessHandle.current().pid()
                        || ProcessHandle.of(pid.getAsLong()).map(ProcessHandle::isAlive).orElse(false)) {
                    continue;
                }
                try {
                    if (deleteIfUnlocked(d)) {
                        deleted.add(d);
                    }
                } catch (java.nio.file.AccessDeniedException e) {
                    continue; // another user's, in a shared temporary directory: not ours to remove
                } catch (IOException e) {
                    problems.add("cannot remove stale storage " + d + ": " + e);
                }
            }
        } catch (IOException e) {
            problems.add("cannot list " + tempDir + " for stale storage: " + e);
        }
        return deleted;
    }

    /** The PID in a storage folder's name, empty for names of another form. */
    static OptionalLong ownerPid(Path dir) {
        Matcher m = NAME.matcher(dir.getFileName().toString());
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(m.group(1)));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Deletes a folder whose owner PID is dead, unless someone holds its lock. */
    private static boolean deleteIfUnlocked(Path d) throws IOException {
        Path lockFile = d.resolve(LOCK);
        FileChannel ch;
        try {
            // Not CREATE: a lock file another cleaner has just deleted must not be brought back.
            ch = FileChannel.open(lockFile, StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            // The owner died before creating its lock file (or another cleaner is at work): the
            // dead PID decides.
            deleteTree(d, null);
            Files.deleteIfExists(d);
            return true;
        }
        try (ch) {
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                return false; // held in this very JVM
            }
            if (l == null) {
                return false; // held by a live process, maybe in another PID namespace
            }
            try {
                deleteTree(d, lockFile);
                Files.deleteIfExists(lockFile);
            } finally {
                l.release();
            }
        }
        Files.deleteIfExists(d);
        return true;
    }

    /** Deletes everything under {@code root} but {@code root} itself and {@code keep}. */
    private static void deleteTree(Path root, Path keep) throws IOException {
        if (!Files.isDirectory(root)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (!file.equals(keep)) {
                    Files.deleteIfExists(file);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE; // removed meanwhile
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                if (!d.equals(root)) {
                    Files.deleteIfExists(d);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
