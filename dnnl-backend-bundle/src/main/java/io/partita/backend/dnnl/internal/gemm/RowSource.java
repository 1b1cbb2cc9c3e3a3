package io.partita.backend.dnnl.internal.gemm;

/**
 * Where the left-hand matrix A[M, K] comes from: the micro-kernel wants rows in groups of
 * {@link Sgemm#MR}, interleaved by k. Strided memory is the common case; a convolution packs the
 * rows of its im2col view straight from the input.
 */
public interface RowSource {

    int m();

    int k();

    /**
     * Packs rows [i0, i0 + rows) x columns [k0, k0 + kc) into {@code ap} from {@code apOff}: group g
     * (rows g*MR .. g*MR+MR-1) takes kc * MR floats, element (r, kk) at {@code g*kc*MR + kk*MR + r};
     * rows past {@code rows} are zero.
     */
    void pack(int i0, int rows, int k0, int kc, float[] ap, int apOff);
}
