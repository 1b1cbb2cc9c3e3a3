package io.partita.cache;

import java.lang.foreign.MemorySegment;

/**
 * Which memory a processed constant was made from, for backend keys of the constant tensor cache:
 * the segment's scope (a new arena at a reused address is another scope), its address or heap
 * array, and its size. Compared by identity of scope and array, so two equal-looking buffers in
 * different arenas never share an entry.
 */
public final class SourceMemory {
    private final MemorySegment.Scope scope;
    private final Object heapBase;
    private final long address;
    private final long bytes;

    private SourceMemory(MemorySegment s) {
        this.scope = s.scope();
        this.heapBase = s.heapBase().orElse(null);
        this.address = s.isNative() ? s.address() : 0;
        this.bytes = s.byteSize();
    }

    public static SourceMemory of(MemorySegment s) {
        return new SourceMemory(s);
    }

    /** False once the arena the memory belonged to is closed: entries made from it can go. */
    public boolean isAlive() {
        return scope.isAlive();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SourceMemory x && x.scope == scope && x.heapBase == heapBase && x.address == address
                && x.bytes == bytes;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(address) * 31 + System.identityHashCode(scope) + Long.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "memory@" + Long.toHexString(address) + "+" + bytes;
    }
}
