package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import io.partita.spi.CpuTeam;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import io.partita.backend.dnnl.internal.isa.Isa;

/**
 * Copies the elements of one strided view into another in logical row-major order, converting
 * between f32, bf16 and f16 (round to nearest even, as oneDNN). Both views are reduced to one set
 * of dims (drop size-1 dims, merge dims that are contiguous in both, split dims where the other
 * view has a break), so a reshape, a transpose and a reorder are all "copy these dims with those
 * two stride vectors". Runs that are contiguous on both sides are block copies or vector
 * conversions; a transpose (unit stride on different dims of the two sides) goes tile by tile so
 * both sides stay in cache.
 */
public final class StridedCopy {
    private static final VectorSpecies<Float> S = Isa.FLOAT;
    /** Floats per vector (a constant C2 folds). */
    private static final int L = Isa.LANES;
    private static final VectorSpecies<Short> SH = Isa.SHORT;
    private static final VectorSpecies<Integer> I = Isa.INT;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfShort H = ValueLayout.JAVA_SHORT_UNALIGNED;
    /** Elements per task of a long contiguous run. */
    private static final int CHUNK = 1 << 14;
    /** Tile edge of a transposing copy. */
    private static final int TILE = 32;

    /**
     * The copy as common dims with the source's and destination's strides (elements);
     * {@code tileDim} is the dim with unit source stride when the destination's innermost dim is
     * unit-stride but the source's is not (a transpose), else -1. Zero elements: {@code dims} empty
     * and {@code total} 0.
     */
    record Plan(long[] dims, long[] src, long[] dst, int tileDim, long total) {
    }

    private StridedCopy() {
    }

    /**
     * Plans a copy from a view with {@code srcDims}/{@code srcStrides} to one with
     * {@code dstDims}/{@code dstStrides} holding as many elements; null when the two views have no
     * common dims (a reshape between two non-dense views that break at incompatible places).
     */
    static Plan plan(long[] srcDims, long[] srcStrides, long[] dstDims, long[] dstStrides) {
        long total = Views.product(srcDims, 0, srcDims.length);
        if (total != Views.product(dstDims, 0, dstDims.length)) {
            throw new IllegalArgumentException("copy of " + total + " elements into "
                    + Views.product(dstDims, 0, dstDims.length));
        }
        if (total == 0) {
            return new Plan(new long[0], new long[0], new long[0], -1, 0);
        }
        long[][] a = coalesce(srcDims, srcStrides);
        long[][] b = coalesce(dstDims, dstStrides);
        List<long[]> rev = new ArrayList<>(); // {dim, srcStride, dstStride}, innermost first
        int i = a[0].length - 1;
        int j = b[0].length - 1;
        long remA = i >= 0 ? a[0][i] : 1;
        long remB = j >= 0 ? b[0][j] : 1;
        long sa = i >= 0 ? a[1][i] : 1;
        long sb = j >= 0 ? b[1][j] : 1;
        while (i >= 0 && j >= 0) {
            if (remA == remB) {
                rev.add(new long[] {remA, sa, sb});
                i--;
                j--;
                if (i >= 0) {
                    remA = a[0][i];
                    sa = a[1][i];
                }
                if (j >= 0) {
                    remB = b[0][j];
                    sb = b[1][j];
                }
            } else if (remA < remB) {
                if (remB % remA != 0) {
                    return null;
                }
                rev.add(new long[] {remA, sa, sb});
                sb *= remA;
                remB /= remA;
                i--;
                if (i >= 0) {
                    remA = a[0][i];
                    sa = a[1][i];
                }
            } else {
                if (remA % remB != 0) {
                    return null;
                }
                rev.add(new long[] {remB, sa, sb});
                sa *= remB;
                remA /= remB;
                j--;
                if (j >= 0) {
                    remB = b[0][j];
                    sb = b[1][j];
                }
            }
        }
        // Merge neighbours contiguous on both sides (outer k, inner k + 1).
        List<long[]> dims = new ArrayList<>();
        for (int k = rev.size() - 1; k >= 0; k--) {
            long[] cur = rev.get(k);
            if (!dims.isEmpty()) {
                long[] last = dims.get(dims.size() - 1);
                // last is outer, cur inner
                if (last[1] == cur[1] * cur[0] && last[2] == cur[2] * cur[0]) {
                    dims.set(dims.size() - 1, new long[] {last[0] * cur[0], cur[1], cur[2]});
                    continue;
                }
            }
            dims.add(cur.clone());
        }
        if (dims.isEmpty()) {
            dims.add(new long[] {1, 1, 1});
        }
        int r = dims.size();
        long[] d = new long[r];
        long[] s = new long[r];
        long[] t = new long[r];
        for (int k = 0; k < r; k++) {
            d[k] = dims.get(k)[0];
            s[k] = dims.get(k)[1];
            t[k] = dims.get(k)[2];
        }
        int tile = -1;
        if (r >= 2 && t[r - 1] == 1 && s[r - 1] != 1 && d[r - 1] >= 4) {
            for (int k = 0; k < r - 1; k++) {
                if (s[k] == 1 && d[k] >= 4) {
                    tile = k;
                }
            }
        }
        return new Plan(d, s, t, tile, total);
    }

    /** Dims and strides without size-1 dims, neighbours that are contiguous merged. */
    private static long[][] coalesce(long[] dims, long[] strides) {
        List<long[]> out = new ArrayList<>();
        for (int k = 0; k < dims.length; k++) {
            if (dims[k] == 1) {
                continue;
            }
            if (!out.isEmpty()) {
                long[] last = out.get(out.size() - 1);
                if (last[1] == strides[k] * dims[k]) {
                    out.set(out.size() - 1, new long[] {last[0] * dims[k], strides[k]});
                    continue;
                }
            }
            out.add(new long[] {dims[k], strides[k]});
        }
        long[][] r = new long[2][out.size()];
        for (int k = 0; k < out.size(); k++) {
            r[0][k] = out.get(k)[0];
            r[1][k] = out.get(k)[1];
        }
        return r;
    }

    /** Element type codes of the inner loops. */
    static final int F32 = 0;
    static final int BF16 = 1;
    static final int F16 = 2;

    static int code(DataType t) {
        return switch (t) {
            case F32 -> F32;
            case BF16 -> BF16;
            case F16 -> F16;
            default -> throw new IllegalArgumentException("no copy of " + t + " elements");
        };
    }

    static int size(int code) {
        return code == F32 ? 4 : 2;
    }

    /**
     * Copies a dense tensor with {@code dst}'s dims and data type into {@code out}, laid out with
     * {@code dst}'s strides (a primitive's dense result relayed into a strided partition output).
     */
    public static void denseInto(MemorySegment dense, LogicalTensor dst, MemorySegment out, CpuTeam pool) {
        long[] dims = dst.dims();
        Plan p = plan(dims, LogicalTensor.denseStrides(dims), dims, dst.strides());
        int t = code(dst.dataType());
        run(p, dense, 0, t, out, 0, t, pool);
    }

    /**
     * Runs a plan: source elements at {@code srcOff} (elements) of {@code src} of type code
     * {@code st}, destination at {@code dstOff} of {@code dst} of type code {@code dt}.
     */
    static void run(Plan p, MemorySegment src, long srcOff, int st, MemorySegment dst, long dstOff, int dt,
            CpuTeam pool) {
        if (p.total == 0) {
            return;
        }
        if (p.tileDim >= 0) {
            runTiled(p, src, srcOff, st, dst, dstOff, dt, pool);
            return;
        }
        long[] d = p.dims;
        int r = d.length;
        long len = d[r - 1];
        long ss = p.src[r - 1];
        long ds = p.dst[r - 1];
        long rows = Views.product(d, 0, r - 1);
        long perRow = (len + CHUNK - 1) / CHUNK;
        int tasks = (int) Math.min(Integer.MAX_VALUE, rows * perRow);
        int threads = Views.threads(pool);
        if (perRow == 1 && rows > (long) threads * 64) {
            tasks = threads * 16; // rows grouped per task; the odometer walks them
        }
        int taskCount = tasks;
        CpuTeam.RangeBody body = perRow > 1 ? (t0, t1) -> {
            for (int task = t0; task < t1; task++) {
                long row = task / perRow;
                long from = task % perRow * CHUNK;
                int n = (int) Math.min(CHUNK, len - from);
                copyRun(src, srcOff + Views.offset(row, d, p.src, 0, r - 1) + from * ss, ss, st, dst,
                        dstOff + Views.offset(row, d, p.dst, 0, r - 1) + from * ds, ds, dt, n);
            }
        } : (t0, t1) -> {
            long r0 = rows * t0 / taskCount;
            long r1 = rows * t1 / taskCount;
            if (r0 >= r1) {
                return;
            }
            long[] idx = new long[Math.max(r - 1, 0)];
            long rem = r0;
            long so = srcOff;
            long dof = dstOff;
            for (int k = r - 2; k >= 0; k--) {
                idx[k] = rem % d[k];
                rem /= d[k];
                so += idx[k] * p.src[k];
                dof += idx[k] * p.dst[k];
            }
            for (long row = r0; row < r1; row++) {
                copyRun(src, so, ss, st, dst, dof, ds, dt, (int) len);
                for (int k = r - 2; k >= 0; k--) {
                    idx[k]++;
                    so += p.src[k];
                    dof += p.dst[k];
                    if (idx[k] < d[k]) {
                        break;
                    }
                    so -= idx[k] * p.src[k];
                    dof -= idx[k] * p.dst[k];
                    idx[k] = 0;
                }
            }
        };
        Views.parallel(pool, tasks, p.total, body);
    }

    /** A transposing copy: the plane (tileDim, innermost) in TILE x TILE tiles, other dims outside. */
    private static void runTiled(Plan p, MemorySegment src, long srcOff, int st, MemorySegment dst, long dstOff,
            int dt, CpuTeam pool) {
        long[] d = p.dims;
        int r = d.length;
        int k = p.tileDim;
        long[] od = new long[r - 2];
        long[] os = new long[r - 2];
        long[] ot = new long[r - 2];
        for (int x = 0, y = 0; x < r - 1; x++) {
            if (x != k) {
                od[y] = d[x];
                os[y] = p.src[x];
                ot[y] = p.dst[x];
                y++;
            }
        }
        long outer = Views.product(od, 0, od.length);
        int rowsK = (int) d[k];
        int cols = (int) d[r - 1];
        long dk = p.dst[k];
        long sj = p.src[r - 1];
        int blocks = (rowsK + TILE - 1) / TILE;
        long tasks = outer * blocks;
        Views.parallel(pool, (int) tasks, p.total, (t0, t1) -> {
            for (int task = t0; task < t1; task++) {
                long o = task / blocks;
                int i0 = (int) (task % blocks) * TILE;
                int i1 = Math.min(rowsK, i0 + TILE);
                long sb = srcOff + Views.offset(o, od, os, 0, od.length);
                long db = dstOff + Views.offset(o, od, ot, 0, od.length);
                for (int j0 = 0; j0 < cols; j0 += TILE) {
                    int j1 = Math.min(cols, j0 + TILE);
                    if (st == F32 && dt == F32) {
                        for (int i = i0; i < i1; i++) {
                            long so = sb + i;
                            long dof = db + i * dk;
                            for (int j = j0; j < j1; j++) {
                                dst.set(F, 4 * (dof + j), src.get(F, 4 * (so + j * sj)));
                            }
                        }
                    } else {
                        for (int i = i0; i < i1; i++) {
                            long so = sb + i;
                            long dof = db + i * dk;
                            for (int j = j0; j < j1; j++) {
                                write(dst, dof + j, dt, read(src, so + j * sj, st));
                            }
                        }
                    }
                }
            }
        });
    }

    /** Copies n elements with the given element strides, converting. */
    static void copyRun(MemorySegment src, long so, long ss, int st, MemorySegment dst, long dof, long ds, int dt,
            int n) {
        if (ss == 1 && ds == 1) {
            copyContiguous(src, so, st, dst, dof, dt, n);
            return;
        }
        if (st == F32 && dt == F32) {
            for (int q = 0; q < n; q++) {
                dst.set(F, 4 * (dof + q * ds), src.get(F, 4 * (so + q * ss)));
            }
            return;
        }
        for (int q = 0; q < n; q++) {
            write(dst, dof + q * ds, dt, read(src, so + q * ss, st));
        }
    }

    /** n consecutive elements: a block copy for equal types, vector conversions f32 <-> bf16. */
    static void copyContiguous(MemorySegment src, long so, int st, MemorySegment dst, long dof, int dt, int n) {
        if (st == dt) {
            int sz = size(st);
            MemorySegment.copy(src, sz * so, dst, sz * dof, (long) sz * n);
            return;
        }
        int q = 0;
        if (st == F32 && dt == BF16) {
            for (; q + L <= n; q += L) {
                FloatVector v = FloatVector.fromMemorySegment(S, src, 4 * (so + q), ORDER);
                toBf16(v).intoMemorySegment(dst, 2 * (dof + q), ORDER);
            }
        } else if (st == BF16 && dt == F32) {
            for (; q + L <= n; q += L) {
                ShortVector h = ShortVector.fromMemorySegment(SH, src, 2 * (so + q), ORDER);
                fromBf16(h).intoMemorySegment(dst, 4 * (dof + q), ORDER);
            }
        }
        for (; q < n; q++) {
            write(dst, dof + q, dt, read(src, so + q, st));
        }
    }

    /** bf16 bits of a vector of floats: round to nearest even, NaN stays a quiet NaN. */
    static ShortVector toBf16(FloatVector v) {
        IntVector bits = v.reinterpretAsInts();
        IntVector high = bits.lanewise(VectorOperators.LSHR, 16);
        IntVector rounded = bits.add(high.and(1).add(0x7fff)).lanewise(VectorOperators.LSHR, 16);
        VectorMask<Integer> nan = v.test(VectorOperators.IS_NAN).cast(I);
        rounded = rounded.blend(high.or(0x40), nan);
        return (ShortVector) rounded.convertShape(VectorOperators.I2S, SH, 0);
    }

    /** A vector of floats from bf16 bits. */
    static FloatVector fromBf16(ShortVector h) {
        IntVector i = (IntVector) h.convertShape(VectorOperators.ZERO_EXTEND_S2I, I, 0);
        return i.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }

    static float read(MemorySegment s, long i, int type) {
        return switch (type) {
            case F32 -> s.get(F, 4 * i);
            case BF16 -> Float.intBitsToFloat((s.get(H, 2 * i) & 0xffff) << 16);
            default -> Float.float16ToFloat(s.get(H, 2 * i));
        };
    }

    static void write(MemorySegment s, long i, int type, float v) {
        switch (type) {
            case F32 -> s.set(F, 4 * i, v);
            case BF16 -> s.set(H, 2 * i, bf16Bits(v));
            default -> s.set(H, 2 * i, Float.floatToFloat16(v));
        }
    }

    /** bf16 bits of a float, rounding to nearest even; NaN stays a quiet NaN. */
    static short bf16Bits(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return (short) ((bits >>> 16) | 0x40);
        }
        return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
    }
}
