package io.partita.cache;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A CPU constant buffer owning a shared arena (closed on free, so the memory returns at once). */
final class HostBuffer implements ConstantBuffer {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;

    HostBuffer(long byteSize) {
        if (byteSize < 0) {
            throw new IllegalArgumentException("buffer size must be >= 0, got " + byteSize);
        }
        this.segment = arena.allocate(Math.max(byteSize, 1), 64).asSlice(0, byteSize);
    }

    @Override
    public long byteSize() {
        return segment.byteSize();
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public void free() {
        arena.close();
    }
}
