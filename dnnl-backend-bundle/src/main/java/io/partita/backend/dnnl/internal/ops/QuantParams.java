package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import io.partita.spi.CpuTeam;
import io.partita.graph.DataType;
import io.partita.graph.ElementCodec;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * The scales and zero points of a static Quantize or Dequantize (per tensor, or per channel along
 * {@code axis}) for an 8-bit integer tensor, and the conversions between it and dense f32 data.
 * Both compute as the reference backend does: in double, {@code (q - zp) * scale} rounded once to
 * f32, and {@code q = saturate(rint(x / scale + zp))} (round half to even).
 *
 * @param axis the per-channel axis, or -1 per tensor
 */
public record QuantParams(DataType type, float[] scales, long[] zps, int axis) {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    /** Elements per parallel task: enough to amortize a task, small enough to split rows. */
    private static final long CHUNK = 1 << 14;

    /** The parameters of a static Quantize / Dequantize whose integer side has type {@code type}. */
    public static QuantParams of(Op op, DataType type, int rank) {
        float[] s = op.floatsAttr("scales");
        long[] z = op.hasAttr("zps") ? op.longsAttr("zps") : new long[s.length];
        int axis = -1;
        if ("per_channel".equals(op.stringAttr("qtype"))) {
            long a = op.longAttr("axis");
            axis = (int) (a < 0 ? a + rank : a);
        }
        return new QuantParams(type, s.clone(), z.clone(), axis);
    }

    /** Whether this backend converts the type: 8-bit integers (float8 rounding is another matter). */
    public static boolean supports(DataType t) {
        return t == DataType.S8 || t == DataType.U8;
    }

    /** Integer {@code src} (any strides) to dense f32 {@code dst}. */
    void dequantize(MemorySegment src, LogicalTensor srcLt, MemorySegment dst, CpuTeam pool) {
        long[] dims = srcLt.dims();
        long[] strides = srcLt.strides();
        long inner = axis < 0 ? 1 : Strided.product(dims, axis + 1, dims.length);
        boolean unsigned = type == DataType.U8;
        forChunks(Strided.product(dims, 0, dims.length), pool, (from, to) -> {
            Odometer o = new Odometer(dims, strides);
            o.seek(from);
            for (long i = from; i < to; i++, o.next()) {
                int c = axis < 0 ? 0 : (int) (i / inner % dims[axis]);
                byte b = src.get(ValueLayout.JAVA_BYTE, o.offset());
                int q = unsigned ? b & 0xff : b;
                dst.setAtIndex(F32, i, (float) ((q - zps[c]) * (double) scales[c]));
            }
        });
    }

    /** Dense f32 {@code src} to integer {@code dst} (any strides). */
    void quantize(MemorySegment src, MemorySegment dst, LogicalTensor dstLt, CpuTeam pool) {
        long[] dims = dstLt.dims();
        long[] strides = dstLt.strides();
        long inner = axis < 0 ? 1 : Strided.product(dims, axis + 1, dims.length);
        double lo = type == DataType.U8 ? 0 : -128;
        double hi = type == DataType.U8 ? 255 : 127;
        forChunks(Strided.product(dims, 0, dims.length), pool, (from, to) -> {
            Odometer o = new Odometer(dims, strides);
            o.seek(from);
            for (long i = from; i < to; i++, o.next()) {
                int c = axis < 0 ? 0 : (int) (i / inner % dims[axis]);
                double v = src.getAtIndex(F32, i) / (double) scales[c] + zps[c];
                dst.set(ValueLayout.JAVA_BYTE, o.offset(), (byte) ElementCodec.saturate(v, lo, hi));
            }
        });
    }

    private interface LongRange {
        void run(long from, long to);
    }

    private static void forChunks(long n, CpuTeam pool, LongRange body) {
        int tasks = (int) Math.ceilDiv(n, CHUNK);
        if (pool == null || tasks <= 1) {
            body.run(0, n);
            return;
        }
        pool.parallelFor(tasks, (t0, t1) -> body.run(t0 * CHUNK, Math.min(n, t1 * CHUNK)));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QuantParams p && p.type == type && Arrays.equals(p.scales, scales)
                && Arrays.equals(p.zps, zps) && p.axis == axis;
    }

    @Override
    public int hashCode() {
        return (type.hashCode() * 31 + Arrays.hashCode(scales)) * 31 + Arrays.hashCode(zps) + axis;
    }

    @Override
    public String toString() {
        return type.spelling() + (axis < 0 ? " per tensor" : " per channel " + axis);
    }
}
