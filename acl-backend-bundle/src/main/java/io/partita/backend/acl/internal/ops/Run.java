package io.partita.backend.acl.internal.ops;

import java.lang.foreign.MemorySegment;

import io.partita.backend.acl.internal.memory.PoolHandle;
import io.partita.cache.Lease;

/**
 * What one run of an operator gets: its tensors' memory (by the operator's own input and output
 * positions), the pool reserved for this run, and the constant cache for packed weights.
 */
public interface Run {

    MemorySegment input(int i);

    MemorySegment output(int i);

    PoolHandle pool();

    /**
     * Packed weights of a constant input from the unified constant cache (produced by
     * {@code packer} into a buffer of {@code bytes} on a miss), or null when the input is not
     * constant. The caller closes the lease.
     */
    Lease constant(int input, String form, long bytes, java.util.function.Consumer<MemorySegment> packer);
}
