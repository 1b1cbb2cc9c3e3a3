package io.partita.backend.dnnl.internal.ops;

/**
 * Walks the row-major index space of some dims, keeping the element offset of the current index
 * under given strides, so a loop over a strided view advances with additions only. One per
 * thread: mutable.
 */
final class Odometer {
    private final long[] dims;
    private final long[] strides;
    private final long[] idx;
    private long offset;

    Odometer(long[] dims, long[] strides) {
        this.dims = dims;
        this.strides = strides;
        this.idx = new long[dims.length];
    }

    /** Moves to row-major flat index {@code flat}. */
    void seek(long flat) {
        offset = 0;
        for (int d = dims.length - 1; d >= 0; d--) {
            idx[d] = flat % dims[d];
            flat /= dims[d];
            offset += idx[d] * strides[d];
        }
    }

    long offset() {
        return offset;
    }

    /** Moves to the next index (wrapping to 0 after the last). */
    void next() {
        for (int d = dims.length - 1; d >= 0; d--) {
            idx[d]++;
            offset += strides[d];
            if (idx[d] < dims[d]) {
                return;
            }
            offset -= strides[d] * idx[d];
            idx[d] = 0;
        }
    }
}
