package io.partita.backend.acl.internal.ops;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import io.partita.backend.acl.internal.memory.AuxTensor;
import io.partita.backend.acl.internal.simd.Neon;
import io.partita.cache.Lease;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * Depthwise convolution (groups == input channels == output channels), a direct loop as ACL's
 * NEDepthwiseConvolutionLayer: no im2col. Channels-last data is vectorised over channels, with the
 * weights reshaped to [kh, kw, c] (taps outer, channels contiguous); channels-first data over
 * output columns (stride 1, inner columns; a scalar loop at the borders and for other strides),
 * with weights [c, kh, kw]. Bias and ReLU are applied before the store. Constant weights are
 * reshaped once into the unified constant cache, others each run into the {@code reshaped_weights}
 * auxiliary tensor (its only one, lifetime 0-1).
 */
public final class DepthwiseConvolution implements Operator {
    /** The convolution's descriptor, with groups == cin == cout. */
    public record Desc(GemmConvolution.Desc conv) {
    }

    private static final VectorSpecies<Float> F = Neon.FLOAT;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    private final GemmConvolution.Desc d;
    private final int taps;

    public DepthwiseConvolution(Desc desc) {
        this.d = desc.conv();
        if (d.groups() != d.cin() || d.cout() != d.cin()) {
            throw new IllegalArgumentException("not a depthwise convolution: " + d);
        }
        this.taps = d.kh() * d.kw();
    }

    private long weightBytes() {
        return (long) taps * d.cin() * Float.BYTES;
    }

    @Override
    public List<AuxTensor> auxTensors() {
        List<AuxTensor> aux = new ArrayList<>();
        if (!d.constantWeights()) {
            aux.add(new AuxTensor("reshaped_weights", weightBytes(), 0, 1));
        }
        return aux;
    }

    /** Weights in the form the loop reads: [tap][c] for channels-last, [c][tap] for channels-first. */
    private void reshape(MemorySegment w, MemorySegment dst) {
        int c = d.cin();
        for (int ch = 0; ch < c; ch++) {
            for (int t = 0; t < taps; t++) {
                // XIO: [kh, kw, 1, c]; OIX: [c, 1, kh, kw]
                float v = w.getAtIndex(JAVA_FLOAT_UNALIGNED, d.weightsXio() ? (long) t * c + ch : (long) ch * taps + t);
                dst.setAtIndex(JAVA_FLOAT_UNALIGNED, d.channelsLast() ? (long) t * c + ch : (long) ch * taps + t, v);
            }
        }
    }

    @Override
    public void run(Run r) {
        MemorySegment src = r.input(0), wts = r.input(1), dst = r.output(0);
        MemorySegment bias = d.bias() ? r.input(2) : null;
        String form = d.channelsLast() ? "dw_tap_c" : "dw_c_tap";
        try (Lease lease = d.constantWeights() ? r.constant(1, form, weightBytes(), seg -> reshape(wts, seg)) : null) {
            MemorySegment w;
            if (lease != null) {
                w = lease.segment();
            } else {
                w = r.pool().segment("reshaped_weights");
                reshape(wts, w);
            }
            if (d.channelsLast()) {
                channelsLast(src, w, bias, dst);
            } else {
                channelsFirst(src, w, bias, dst);
            }
        }
    }

    private int iy(int oy, int ky) {
        return oy * d.strideH() - d.padTop() + ky * d.dilH();
    }

    private int ix(int ox, int kx) {
        return ox * d.strideW() - d.padLeft() + kx * d.dilW();
    }

    private void channelsLast(MemorySegment src, MemorySegment w, MemorySegment bias, MemorySegment dst) {
        int c = d.cin();
        int full = c - c % F.length();
        for (int n = 0; n < d.batch(); n++) {
            long sBase = (long) n * d.h() * d.w() * c;
            long dBase = (long) n * d.ho() * d.wo() * c;
            for (int oy = 0; oy < d.ho(); oy++) {
                for (int ox = 0; ox < d.wo(); ox++) {
                    long out = dBase + ((long) oy * d.wo() + ox) * c;
                    for (int ch = 0; ch < c; ch += F.length()) {
                        boolean f = ch < full;
                        VectorMask<Float> m = f ? null : F.indexInRange(ch, c);
                        FloatVector acc = bias == null ? FloatVector.zero(F) : load(bias, ch, m);
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
                                FloatVector v = load(src, sBase + ((long) y * d.w() + x) * c + ch, m);
                                acc = v.fma(load(w, (long) (ky * d.kw() + kx) * c + ch, m), acc);
                            }
                        }
                        if (d.relu()) {
                            acc = acc.max(0f);
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

    private static FloatVector load(MemorySegment s, long at, VectorMask<Float> m) {
        return m == null ? FloatVector.fromMemorySegment(F, s, at * 4L, ORDER) : FloatVector.fromMemorySegment(F, s, at * 4L, ORDER, m);
    }

    private void channelsFirst(MemorySegment src, MemorySegment w, MemorySegment bias, MemorySegment dst) {
        int lanes = F.length();
        boolean vector = d.strideW() == 1;
        int lo = 0, hi = 0;
        if (vector) {
            lo = Math.min(d.wo(), Math.max(0, d.padLeft()));
            hi = Math.max(lo, Math.min(d.wo(), d.w() + d.padLeft() - (d.kw() - 1) * d.dilW()));
        }
        for (int n = 0; n < d.batch(); n++) {
            for (int ch = 0; ch < d.cin(); ch++) {
                long sBase = ((long) n * d.cin() + ch) * d.h() * d.w();
                long dBase = ((long) n * d.cin() + ch) * d.ho() * d.wo();
                long wBase = (long) ch * taps;
                float b = bias == null ? 0f : bias.getAtIndex(JAVA_FLOAT_UNALIGNED, ch);
                for (int oy = 0; oy < d.ho(); oy++) {
                    long out = dBase + (long) oy * d.wo();
                    int ox = 0;
                    if (vector) {
                        for (; ox < lo; ox++) {
                            scalar(src, w, b, dst, sBase, wBase, out, oy, ox);
                        }
                        for (; ox + lanes <= hi; ox += lanes) {
                            FloatVector acc = FloatVector.broadcast(F, b);
                            for (int ky = 0; ky < d.kh(); ky++) {
                                int y = iy(oy, ky);
                                if (y < 0 || y >= d.h()) {
                                    continue;
                                }
                                long row = sBase + (long) y * d.w();
                                for (int kx = 0; kx < d.kw(); kx++) {
                                    float wv = w.getAtIndex(JAVA_FLOAT_UNALIGNED, wBase + ky * d.kw() + kx);
                                    FloatVector v = FloatVector.fromMemorySegment(F, src, (row + ix(ox, kx)) * 4L, ORDER);
                                    acc = v.fma(FloatVector.broadcast(F, wv), acc);
                                }
                            }
                            if (d.relu()) {
                                acc = acc.max(0f);
                            }
                            acc.intoMemorySegment(dst, (out + ox) * 4L, ORDER);
                        }
                    }
                    for (; ox < d.wo(); ox++) {
                        scalar(src, w, b, dst, sBase, wBase, out, oy, ox);
                    }
                }
            }
        }
    }

    private void scalar(MemorySegment src, MemorySegment w, float b, MemorySegment dst, long sBase, long wBase, long out,
            int oy, int ox) {
        float acc = b;
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
                acc = Math.fma(src.getAtIndex(JAVA_FLOAT_UNALIGNED, sBase + (long) y * d.w() + x),
                        w.getAtIndex(JAVA_FLOAT_UNALIGNED, wBase + ky * d.kw() + kx), acc);
            }
        }
        dst.setAtIndex(JAVA_FLOAT_UNALIGNED, out + ox, d.relu() ? Math.max(acc, 0f) : acc);
    }
}
