package io.partita.backend.dnnl.internal.ops;

/** Index arithmetic on dims and strides. */
final class Strided {
    private Strided() {
    }

    static long product(long[] dims, int from, int to) {
        long p = 1;
        for (int i = from; i < to; i++) {
            p *= dims[i];
        }
        return p;
    }

    /**
     * Element offset of the batch item with flat index {@code flat} over {@code outBatch}, in an
     * operand with batch dims {@code dims} (right-aligned, 1 broadcasts) and strides {@code strides}.
     */
    static long batchOffset(long flat, long[] outBatch, long[] dims, long[] strides) {
        long off = 0;
        for (int d = outBatch.length - 1; d >= 0; d--) {
            long idx = flat % outBatch[d];
            flat /= outBatch[d];
            int o = d - (outBatch.length - dims.length);
            if (o >= 0 && dims[o] != 1) {
                off += idx * strides[o];
            }
        }
        return off;
    }
}
