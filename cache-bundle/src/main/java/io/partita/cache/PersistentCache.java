package io.partita.cache;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Compiled kernels on disk (OpenCL program binaries, generated class bytes), shared by every process
 * of the user that points at the same directory. A key is the full description of what was compiled
 * (partition, shapes, backend and its version, device and driver, Partita and JVM versions): two
 * keys are the same kernel only if they are equal byte for byte. A value is a list of blobs.
 *
 * <p>The store is off until a directory and a capacity above 0 are set, and then only for the engine
 * kinds enabled (GPU by default). Settings are made on the {@link CacheManager}. Store and load never
 * fail a compile: an I/O problem, an unsafe directory or a damaged entry is a miss (logged), and a
 * damaged entry is removed so the next store rebuilds it.
 */
@ProviderType
public interface PersistentCache {

    /** Whether {@link #load} and {@link #store} work for this kind: directory set, capacity above 0, kind enabled. */
    boolean enabled(DeviceKind kind);

    Optional<Path> directory();

    /** Capacity in megabytes; 0 (the default) disables the store. */
    long capacityMegabytes();

    /**
     * The blobs stored under exactly this key, or empty (disabled, not stored, evicted, or the entry
     * was damaged: then it is removed and counted by reason in {@link PersistentCacheStats#rejects()}).
     */
    Optional<List<byte[]>> load(DeviceKind kind, byte[] key);

    /**
     * Stores the blobs under the key, evicting the oldest entries (first in, first out) to stay within
     * the capacity. Returns false when nothing was stored: disabled, larger than the capacity, the
     * directory refused or an I/O error (logged). Storing a key already present keeps the first entry.
     */
    boolean store(DeviceKind kind, byte[] key, List<byte[]> blobs);

    /**
     * Removes the entry stored under exactly this key, counted as {@link PersistentCacheStats.Reject#REFUSED}:
     * for a backend whose loader (the JVM's verifier, an OpenCL driver) refused blobs that passed the
     * checksum, so that its fresh {@link #store} replaces them. Returns false when there was none, the
     * store is disabled, or on an I/O error (logged).
     */
    boolean remove(DeviceKind kind, byte[] key);

    PersistentCacheStats stats();
}
