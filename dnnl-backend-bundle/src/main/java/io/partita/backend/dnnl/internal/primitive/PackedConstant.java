package io.partita.backend.dnnl.internal.primitive;

import java.lang.foreign.MemorySegment;

import io.partita.backend.dnnl.internal.gemm.PackedB;
import io.partita.cache.ConstantBuffer;

/**
 * Packed weights living in the constant tensor cache: heap arrays (the micro-kernel reads them
 * fastest), one packed matrix per batch item, freed by the garbage collector once the cache and
 * every lease have let go.
 */
public final class PackedConstant implements ConstantBuffer {
    private final PackedB[] matrices;
    private final long bytes;

    public PackedConstant(PackedB[] matrices) {
        this.matrices = matrices.clone();
        long b = 0;
        for (PackedB p : matrices) {
            b += p.byteSize();
        }
        this.bytes = b;
    }

    public PackedB matrix(int i) {
        return matrices[i];
    }

    @Override
    public long byteSize() {
        return bytes;
    }

    @Override
    public MemorySegment segment() {
        return MemorySegment.ofArray(matrices[0].data());
    }

    @Override
    public void free() {
        // heap memory: released when unreachable
    }

    /** Bytes the packed form of {@code count} [k, n] matrices takes. */
    public static long bytesFor(int count, int k, int n) {
        return count * PackedB.packedLength(k, n) * Float.BYTES;
    }
}
