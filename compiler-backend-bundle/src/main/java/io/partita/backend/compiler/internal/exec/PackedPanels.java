package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;

import io.partita.cache.ConstantBuffer;
import io.partita.cache.Lease;

/**
 * Packed weights in the unified constant cache as a heap array, which the tiles read fastest (see
 * {@link Panels}); freed by the garbage collector once the cache and every lease have let go.
 */
final class PackedPanels implements ConstantBuffer {
    private final float[] data;

    PackedPanels(float[] data) {
        this.data = data;
    }

    /** The packed floats behind a lease on a buffer of this kind. */
    static float[] of(Lease lease) {
        return ((PackedPanels) lease.buffer()).data;
    }

    float[] data() {
        return data;
    }

    @Override
    public long byteSize() {
        return (long) data.length * Float.BYTES;
    }

    @Override
    public MemorySegment segment() {
        return MemorySegment.ofArray(data);
    }

    @Override
    public void free() {
        // heap memory: released when unreachable
    }
}
