package io.partita.cache.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.util.EnumSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The readers-writer lock of one cache directory: an in-process {@link ReentrantReadWriteLock}, then
 * a shared or exclusive {@link FileLock} on the directory's {@code lock} file for other processes.
 * One per directory per JVM (a JVM may hold only one lock on a file region, and closing any channel
 * to the file may release the JVM's other locks on it), so at most one channel to the lock file is
 * open at a time: the readers of this process share one shared file lock, counted.
 */
final class DirLock {
    private static final ConcurrentHashMap<Path, DirLock> LOCKS = new ConcurrentHashMap<>();

    @FunctionalInterface
    interface IoBody<T> {
        T run() throws IOException;
    }

    private final Path lockFile;
    private final FileAttribute<?>[] attributes;
    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private int readers;
    private FileChannel readChannel;

    private DirLock(Path lockFile, FileAttribute<?>[] attributes) {
        this.lockFile = lockFile;
        this.attributes = attributes;
    }

    /** The lock of a directory, by its real path (two spellings of one directory share the lock). */
    static DirLock of(Path realDirectory, FileAttribute<?>[] fileAttributes) {
        return LOCKS.computeIfAbsent(realDirectory, d -> new DirLock(d.resolve("lock"), fileAttributes));
    }

    <T> T shared(IoBody<T> body) throws IOException {
        rw.readLock().lock();
        try {
            acquireShared();
            try {
                return body.run();
            } finally {
                releaseShared();
            }
        } finally {
            rw.readLock().unlock();
        }
    }

    <T> T exclusive(IoBody<T> body) throws IOException {
        rw.writeLock().lock();
        try (FileChannel ch = open(); FileLock l = ch.lock()) {
            return body.run();
        } finally {
            rw.writeLock().unlock();
        }
    }

    private synchronized void acquireShared() throws IOException {
        if (readers == 0) {
            FileChannel ch = open();
            try {
                ch.lock(0, Long.MAX_VALUE, true);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            readChannel = ch;
        }
        readers++;
    }

    private synchronized void releaseShared() throws IOException {
        if (--readers == 0) {
            FileChannel ch = readChannel;
            readChannel = null;
            ch.close(); // releases the file lock
        }
    }

    private FileChannel open() throws IOException {
        return FileChannel.open(lockFile, EnumSet.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.CREATE), attributes);
    }
}
