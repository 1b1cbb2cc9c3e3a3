package io.partita.backend.dnnl.internal.gemm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The right-hand matrix B[K, N] of a product, packed for the micro-kernel: panels of
 * {@link Sgemm#NR} columns, each panel K rows of NR contiguous floats (the last panel zero-padded),
 * in a heap array so the kernel reads it without bounds checks on long offsets.
 */
public final class PackedB implements PanelSource {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    final int k;
    final int n;
    final int panels;
    final float[] data;

    private PackedB(int k, int n) {
        this.k = k;
        this.n = n;
        this.panels = (n + Sgemm.NR - 1) / Sgemm.NR;
        this.data = new float[Math.multiplyExact(Math.multiplyExact(panels, k), Sgemm.NR)];
    }

    @Override
    public int k() {
        return k;
    }

    @Override
    public int n() {
        return n;
    }

    @Override
    public float[] panel(int panel, int k0, int kc, float[] scratch) {
        return data;
    }

    @Override
    public int offset(int panel, int k0) {
        return (panel * k + k0) * Sgemm.NR;
    }

    /** Bytes the packed matrix takes. */
    public long byteSize() {
        return (long) data.length * Float.BYTES;
    }

    public float[] data() {
        return data;
    }

    /** Wraps packed data (e.g. from the constant cache). */
    public static PackedB wrap(int k, int n, float[] data) {
        return new PackedB(k, n, data);
    }

    /**
     * Wraps packed data at the start of a possibly longer array (e.g. a reused scratch buffer); the
     * floats past the packed matrix are not read.
     */
    public static PackedB prefixOf(int k, int n, float[] data) {
        return new PackedB(k, n, data, true);
    }

    private PackedB(int k, int n, float[] data) {
        this(k, n, data, false);
    }

    private PackedB(int k, int n, float[] data, boolean prefix) {
        this.k = k;
        this.n = n;
        this.panels = (n + Sgemm.NR - 1) / Sgemm.NR;
        long need = (long) panels * k * Sgemm.NR;
        if (prefix ? data.length < need : data.length != need) {
            throw new IllegalArgumentException("packed data has " + data.length + " floats, expected "
                    + panels * k * Sgemm.NR);
        }
        this.data = data;
    }

    /** Floats a packed [k, n] matrix takes. */
    public static long packedLength(int k, int n) {
        return (long) ((n + Sgemm.NR - 1) / Sgemm.NR) * k * Sgemm.NR;
    }

    /**
     * Packs B from memory: element (kk, j) at byte offset {@code off + 4 * (kk * rowStride + j * colStride)}
     * (a transposed B is colStride = K-stride, rowStride = 1).
     */
    public static PackedB pack(MemorySegment b, long off, long rowStride, long colStride, int k, int n) {
        return pack(b, off, rowStride, colStride, k, n, null);
    }

    /** As {@link #pack}, into {@code reuse} (overwritten) when it has the same shape. */
    public static PackedB pack(MemorySegment b, long off, long rowStride, long colStride, int k, int n,
            PackedB reuse) {
        PackedB p = reuse != null && reuse.k == k && reuse.n == n ? reuse : new PackedB(k, n);
        p.fill(b, off, rowStride, colStride);
        return p;
    }

    /**
     * Packs B[k, n] given transposed in an array, element (kk, j) at {@code bt[j * k + kk]}, into
     * {@code dst} (at least {@link #packedLength} floats; a last panel's idle columns zero): a
     * convolution's dense weights, packed straight into the cached buffer.
     */
    public static void packTransposed(float[] bt, int k, int n, float[] dst) {
        if (dst.length < packedLength(k, n)) {
            throw new IllegalArgumentException("packed B needs " + packedLength(k, n) + " floats, got " + dst.length);
        }
        fill(MemorySegment.ofArray(bt), 0, 1, k, k, n, dst);
    }

    /** Per thread: one column of a transposed B (packing runs per call for weights that are not constant). */
    private static final ThreadLocal<float[][]> COLUMN = ThreadLocal.withInitial(() -> new float[1][0]);

    private static float[] column(int k) {
        float[][] holder = COLUMN.get();
        if (holder[0].length < k) {
            holder[0] = new float[k];
        }
        return holder[0];
    }

    void fill(MemorySegment b, long off, long rowStride, long colStride) {
        fill(b, off, rowStride, colStride, k, n, data);
    }

    /** Packs B[k, n] (element (kk, j) at byte {@code off + 4 * (kk * rowStride + j * colStride)}) into {@code dst}. */
    private static void fill(MemorySegment b, long off, long rowStride, long colStride, int k, int n, float[] dst) {
        int nr = Sgemm.NR;
        int panels = (n + nr - 1) / nr;
        for (int panel = 0; panel < panels; panel++) {
            int j0 = panel * nr;
            int cols = Math.min(nr, n - j0);
            int base = panel * k * nr;
            if (cols < nr) {
                Arrays.fill(dst, base, base + k * nr, 0f); // the idle columns of a reused buffer
            }
            if (colStride == 1) {
                for (int kk = 0; kk < k; kk++) {
                    long src = off + 4L * (kk * rowStride + j0);
                    MemorySegment.copy(b, F, src, dst, base + kk * nr, cols);
                }
            } else if (rowStride == 1) {
                // B transposed (a [N, K] weight, as ONNX Gemm's transB): each column is one run of K
                // floats, copied in bulk and spread from the array; read one by one, a classifier's
                // 2048 x 1000 weights took 0.1 s of ResNet-50's first iteration
                float[] column = column(k);
                for (int j = 0; j < cols; j++) {
                    MemorySegment.copy(b, F, off + 4L * ((long) (j0 + j) * colStride), column, 0, k);
                    for (int kk = 0, o = base + j; kk < k; kk++, o += nr) {
                        dst[o] = column[kk];
                    }
                }
            } else {
                for (int j = 0; j < cols; j++) {
                    long src = off + 4L * ((long) (j0 + j) * colStride);
                    for (int kk = 0; kk < k; kk++) {
                        dst[base + kk * nr + j] = b.get(F, src + 4L * kk * rowStride);
                    }
                }
            }
        }
    }
}
