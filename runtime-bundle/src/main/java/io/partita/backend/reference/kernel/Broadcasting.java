package io.partita.backend.reference.kernel;

/** Index mapping for numpy-style broadcasting in the reference kernels. */
public final class Broadcasting {
    private Broadcasting() {
    }

    /**
     * For every element of an output of dims {@code out} (row-major), the offset of the element of
     * a dense input of dims {@code in} (right-aligned, size-1 dims stretched) it reads.
     */
    public static int[] offsets(long[] out, long[] in) {
        int rank = out.length;
        long[] inStrides = new long[rank];
        long acc = 1;
        for (int i = in.length - 1; i >= 0; i--) {
            int o = i + rank - in.length;
            inStrides[o] = in[i] == 1 && out[o] != 1 ? 0 : acc;
            acc *= in[i];
        }
        long n = 1;
        for (long d : out) {
            n *= d;
        }
        int[] offsets = new int[(int) n];
        long[] idx = new long[rank];
        long off = 0;
        for (int k = 0; k < n; k++) {
            offsets[k] = (int) off;
            for (int d = rank - 1; d >= 0; d--) {
                idx[d]++;
                off += inStrides[d];
                if (idx[d] < out[d]) {
                    break;
                }
                off -= inStrides[d] * idx[d];
                idx[d] = 0;
            }
        }
        return offsets;
    }
}
