package io.partita.backend.acl.internal.ops;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.List;

import io.partita.backend.acl.internal.memory.AuxTensor;
import io.partita.backend.acl.internal.simd.Neon;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * 2-D MaxPool / AvgPool (ACL's NEPoolingLayer) with oneDNN's semantics: windows at
 * {@code o * stride - pad_begin + k * dilation}, positions outside the source take no part (a max
 * window with none gives the lowest finite float), the average divides by the kernel size, or by
 * the positions inside the source with {@code exclude_pad}. The output size is the output tensor's
 * (floor or ceil rounding was applied when the shape was inferred). Channels-last data is
 * vectorised over channels; channels-first over output columns where the stride is 1 and every
 * tap of the block lies inside the row, with a scalar loop at the borders and for other strides.
 * Needs no auxiliary tensor.
 */
public final class Pooling implements Operator {
    /** Shapes and attributes; max: MaxPool (else AvgPool); dilations 1 for AvgPool. */
    public record Desc(boolean max, int batch, int c, int h, int w, int ho, int wo, int kh, int kw, int strideH,
            int strideW, int padTop, int padLeft, int dilH, int dilW, boolean excludePad, boolean channelsLast) {
    }

    private static final VectorSpecies<Float> F = Neon.FLOAT;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final float LOWEST = -Float.MAX_VALUE;

    private final Desc d;

    public Pooling(Desc d) {
        this.d = d;
    }

    @Override
    public List<AuxTensor> auxTensors() {
        return List.of();
    }

    @Override
    public void run(Run r) {
        if (d.channelsLast()) {
            channelsLast(r.input(0), r.output(0));
        } else {
            channelsFirst(r.input(0), r.output(0));
        }
    }

    private int iy(int oy, int ky) {
        return oy * d.strideH() - d.padTop() + ky * d.dilH();
    }

    private int ix(int ox, int kx) {
        return ox * d.strideW() - d.padLeft() + kx * d.dilW();
    }

    private float divisor(int count) {
        return d.excludePad() ? count : d.kh() * d.kw();
    }

    private void channelsLast(MemorySegment src, MemorySegment dst) {
        int c = d.c();
        int full = c - c % F.length();
        for (int n = 0; n < d.batch(); n++) {
            long sBase = (long) n * d.h() * d.w() * c;
            long dBase = (long) n * d.ho() * d.wo() * c;
            for (int oy = 0; oy < d.ho(); oy++) {
                for (int ox = 0; ox < d.wo(); ox++) {
                    long out = dBase + ((long) oy * d.wo() + ox) * c;
                    int count = 0;
                    for (int ky = 0; ky < d.kh(); ky++) {
                        int y = iy(oy, ky);
                        if (y >= 0 && y < d.h()) {
                            for (int kx = 0; kx < d.kw(); kx++) {
                                int x = ix(ox, kx);
                                if (x >= 0 && x < d.w()) {
                                    count++;
                                }
                            }
                        }
                    }
                    float scale = d.max() || count == 0 ? 1f : 1f / divisor(count);
                    for (int ch = 0; ch < c; ch += F.length()) {
                        VectorMask<Float> m = ch < full ? null : F.indexInRange(ch, c);
                        FloatVector acc = FloatVector.broadcast(F, d.max() ? (count == 0 ? LOWEST : Float.NEGATIVE_INFINITY) : 0f);
                        for (int ky = 0; ky < d.kh(); ky++) {
                            int y = iy(oy, ky);
                            if (y < 0 || y >= d.h()) {
                                continue;
                            }
                            for (int kx = 0; kx < d.kw(); kx++) {
                                int x = ix(ox, kx);
                                if (x < 0 || x >= d.w()) {
                                    continue;
                                }
                                long at = (sBase + ((long) y * d.w() + x) * c + ch) * 4L;
                                FloatVector v = m == null ? FloatVector.fromMemorySegment(F, src, at, ORDER)
                                        : FloatVector.fromMemorySegment(F, src, at, ORDER, m);
                                acc = d.max() ? acc.max(v) : acc.add(v);
                            }
                        }
                        if (!d.max()) {
                            acc = acc.mul(scale);
                        }
                        if (m == null) {
                            acc.intoMemorySegment(dst, (out + ch) * 4L, ORDER);
                        } else {
                            acc.intoMemorySegment(dst, (out + ch) * 4L, ORDER, m);
                        }
                    }
                }
            }
        }
    }

    private void channelsFirst(MemorySegment src, MemorySegment dst) {
        int lanes = F.length();
        // columns whose every tap lies in the row: x = ox - padLeft + kx * dilW in [0, w) for all kx
        int lo = 0, hi = 0;
        boolean vector = d.strideW() == 1;
        if (vector) {
            lo = Math.min(d.wo(), Math.max(0, d.padLeft()));
            hi = Math.max(lo, Math.min(d.wo(), d.w() + d.padLeft() - (d.kw() - 1) * d.dilW()));
        }
        for (int plane = 0; plane < d.batch() * d.c(); plane++) {
            long sBase = (long) plane * d.h() * d.w();
            long dBase = (long) plane * d.ho() * d.wo();
            for (int oy = 0; oy < d.ho(); oy++) {
                long out = dBase + (long) oy * d.wo();
                int rows = 0;
                for (int ky = 0; ky < d.kh(); ky++) {
                    int y = iy(oy, ky);
                    if (y >= 0 && y < d.h()) {
                        rows++;
                    }
                }
                int ox = 0;
                if (vector) {
                    for (; ox < lo; ox++) {
                        scalar(src, dst, sBase, out, oy, ox);
                    }
                    int count = rows * d.kw();
                    float scale = d.max() || count == 0 ? 1f : 1f / divisor(count);
                    for (; ox + lanes <= hi; ox += lanes) {
                        FloatVector acc = FloatVector.broadcast(F, d.max() ? (count == 0 ? LOWEST : Float.NEGATIVE_INFINITY) : 0f);
                        for (int ky = 0; ky < d.kh(); ky++) {
                            int y = iy(oy, ky);
                            if (y < 0 || y >= d.h()) {
                                continue;
                            }
                            long row = sBase + (long) y * d.w();
                            for (int kx = 0; kx < d.kw(); kx++) {
                                FloatVector v = FloatVector.fromMemorySegment(F, src, (row + ix(ox, kx)) * 4L, ORDER);
                                acc = d.max() ? acc.max(v) : acc.add(v);
                            }
                        }
                        if (!d.max()) {
                            acc = acc.mul(scale);
                        }
                        acc.intoMemorySegment(dst, (out + ox) * 4L, ORDER);
                    }
                }
                for (; ox < d.wo(); ox++) {
                    scalar(src, dst, sBase, out, oy, ox);
                }
            }
        }
    }

    private void scalar(MemorySegment src, MemorySegment dst, long sBase, long out, int oy, int ox) {
        float acc = d.max() ? Float.NEGATIVE_INFINITY : 0f;
        int count = 0;
        for (int ky = 0; ky < d.kh(); ky++) {
            int y = iy(oy, ky);
            if (y < 0 || y >= d.h()) {
                continue;
            }
            for (int kx = 0; kx < d.kw(); kx++) {
                int x = ix(ox, kx);
                if (x < 0 || x >= d.w()) {
                    continue;
                }
                float v = src.getAtIndex(JAVA_FLOAT_UNALIGNED, sBase + (long) y * d.w() + x);
                acc = d.max() ? Math.max(acc, v) : acc + v;
                count++;
            }
        }
        float v;
        if (d.max()) {
            v = count == 0 ? LOWEST : acc;
        } else {
            v = count == 0 ? 0f : acc / divisor(count);
        }
        dst.setAtIndex(JAVA_FLOAT_UNALIGNED, out + ox, v);
    }
}
