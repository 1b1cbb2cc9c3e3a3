package io.partita.backend.dnnl.internal.gemm;

/**
 * One thread's MR x NR tile: where the kernels leave a tile that is not stored straight to C (a
 * partial one, or one the caller post-processes). A heap array, not a segment over one: see
 * {@link MicroKernels#runStaged}.
 */
public final class TileBuffer {
    final float[] values = new float[Sgemm.MR * Sgemm.NR];

    public TileBuffer() {
    }
}
