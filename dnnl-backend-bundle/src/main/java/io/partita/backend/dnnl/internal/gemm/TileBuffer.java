package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.MemorySegment;

/**
 * One thread's MR x NR tile for partial tiles: the floats, and the segment view through which the
 * four-row kernel stores them. The view is made once: made per call it was allocated in steady
 * state (the kernel is too large to inline, so escape analysis keeps the view and its session).
 */
public final class TileBuffer {
    final float[] values = new float[Sgemm.MR * Sgemm.NR];
    final MemorySegment view = MemorySegment.ofArray(values);

    public TileBuffer() {
    }
}
