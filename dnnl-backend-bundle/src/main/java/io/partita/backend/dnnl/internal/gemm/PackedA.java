package io.partita.backend.dnnl.internal.gemm;

/**
 * The left-hand matrix A[M, K] packed once for every call (constant weights): per K block of
 * {@link Sgemm}, all rows in groups of {@link Sgemm#MR} interleaved by k, the layout a call would
 * otherwise pack into its scratch each time. The kernels read it in place.
 */
public final class PackedA implements RowSource {
    private final int m;
    private final int k;
    private final float[] data;

    private PackedA(int m, int k, float[] data) {
        this.m = m;
        this.k = k;
        this.data = data;
    }

    /** Floats a packed [m, k] matrix takes. */
    public static long packedLength(int m, int k) {
        return (long) Math.ceilDiv(m, Sgemm.MR) * Sgemm.MR * k;
    }

    /** Packs all of {@code a} into {@code into} (at least {@link #packedLength} floats). */
    public static PackedA pack(RowSource a, float[] into) {
        int m = a.m();
        int k = a.k();
        if (into.length < packedLength(m, k)) {
            throw new IllegalArgumentException("packed A needs " + packedLength(m, k) + " floats, got " + into.length);
        }
        int padded = Math.ceilDiv(m, Sgemm.MR) * Sgemm.MR;
        int kBlocks = Sgemm.kBlocks(k);
        for (int kb = 0; kb < kBlocks; kb++) {
            int k0 = Sgemm.kStart(k, kBlocks, kb);
            a.pack(0, m, k0, Sgemm.kStart(k, kBlocks, kb + 1) - k0, into, padded * k0);
        }
        return new PackedA(m, k, into);
    }

    /** Wraps data packed by {@link #pack} (e.g. from the constant cache). */
    public static PackedA wrap(int m, int k, float[] data) {
        if (data.length < packedLength(m, k)) {
            throw new IllegalArgumentException("packed A needs " + packedLength(m, k) + " floats, got " + data.length);
        }
        return new PackedA(m, k, data);
    }

    @Override
    public int m() {
        return m;
    }

    @Override
    public int k() {
        return k;
    }

    float[] data() {
        return data;
    }

    /** Where rows from {@code r0} (a multiple of MR) of K block [k0, k0 + kc) start. */
    int offset(int r0, int k0, int kc) {
        return Math.ceilDiv(m, Sgemm.MR) * Sgemm.MR * k0 + r0 * kc;
    }

    @Override
    public void pack(int i0, int rows, int k0, int kc, float[] ap, int apOff) {
        int mr = Sgemm.MR;
        for (int g = 0; g * mr < rows; g++) {
            System.arraycopy(data, offset(i0 + g * mr, k0, kc), ap, apOff + g * kc * mr, kc * mr);
        }
    }
}
