package io.partita.cache;

import java.lang.foreign.MemorySegment;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Engine memory holding one processed constant tensor. The cache calls {@link #free()} exactly
 * once, after the buffer has left the cache and its last lease is closed.
 */
@ConsumerType
public interface ConstantBuffer {

    /** Bytes of engine memory the buffer takes. */
    long byteSize();

    /** The host memory of a CPU buffer. */
    MemorySegment segment();

    /** Releases the memory. */
    void free();

    /** A 64-byte aligned CPU buffer in its own arena, freed by closing the arena. */
    static ConstantBuffer allocateHost(long byteSize) {
        return new HostBuffer(byteSize);
    }
}
