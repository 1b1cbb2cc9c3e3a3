package io.partita.backend.acl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.List;

import io.partita.backend.acl.internal.memory.AuxTensor;
import io.partita.backend.acl.internal.simd.Neon;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * SoftMax along one axis (ACL's NESoftmaxLayer): dst = exp(x - max) / sum(exp(x - max)). The
 * tensor is seen as [outer, axis, inner]. On the last axis (inner 1) each row is reduced in
 * vectors along the row; on any other axis the vectors run along the contiguous inner dim, each
 * lane a separate line, so no transposition is needed. The exponentials are written to dst and
 * scaled in place: no auxiliary tensor. A line of only -inf gives NaN, or zeros with mode
 * {@code inf_as_zero}.
 */
public final class SoftMax implements Operator {
    public record Desc(long outer, int axis, long inner, boolean infAsZero) {
    }

    private static final VectorSpecies<Float> F = Neon.FLOAT;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    private final Desc d;

    public SoftMax(Desc d) {
        this.d = d;
    }

    @Override
    public List<AuxTensor> auxTensors() {
        return List.of();
    }

    @Override
    public void run(Run r) {
        MemorySegment x = r.input(0), y = r.output(0);
        if (d.inner() == 1) {
            for (long o = 0; o < d.outer(); o++) {
                row(x, y, o * d.axis());
            }
        } else {
            for (long o = 0; o < d.outer(); o++) {
                long base = o * d.axis() * d.inner();
                for (long i = 0; i < d.inner(); i += F.length()) {
                    columns(x, y, base + i, F.indexInRange(i, d.inner()));
                }
            }
        }
    }

    private static FloatVector load(MemorySegment s, long at, VectorMask<Float> m, boolean full) {
        return full ? FloatVector.fromMemorySegment(F, s, at * 4L, ORDER) : FloatVector.fromMemorySegment(F, s, at * 4L, ORDER, m);
    }

    private static void store(FloatVector v, MemorySegment s, long at, VectorMask<Float> m, boolean full) {
        if (full) {
            v.intoMemorySegment(s, at * 4L, ORDER);
        } else {
            v.intoMemorySegment(s, at * 4L, ORDER, m);
        }
    }

    /** One contiguous line of {@code axis} floats at {@code at}. */
    private void row(MemorySegment x, MemorySegment y, long at) {
        int n = d.axis();
        int lanes = F.length();
        int full = n - n % lanes;
        VectorMask<Float> tail = F.indexInRange(full, n);
        FloatVector mv = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        for (int k = 0; k < n; k += lanes) {
            boolean f = k < full;
            FloatVector v = load(x, at + k, tail, f);
            mv = f ? mv.max(v) : mv.max(v.blend(Float.NEGATIVE_INFINITY, tail.not()));
        }
        float max = mv.reduceLanes(VectorOperators.MAX);
        if (max == Float.NEGATIVE_INFINITY && d.infAsZero()) {
            y.asSlice(at * 4L, n * 4L).fill((byte) 0);
            return;
        }
        FloatVector sv = FloatVector.zero(F);
        for (int k = 0; k < n; k += lanes) {
            boolean f = k < full;
            FloatVector e = load(x, at + k, tail, f).sub(max).lanewise(VectorOperators.EXP);
            if (!f) {
                e = e.blend(0f, tail.not());
            }
            store(e, y, at + k, tail, f);
            sv = sv.add(e);
        }
        float inv = 1f / sv.reduceLanes(VectorOperators.ADD);
        for (int k = 0; k < n; k += lanes) {
            boolean f = k < full;
            store(load(y, at + k, tail, f).mul(inv), y, at + k, tail, f);
        }
    }

    /** Lines at {@code at + lane} (the lanes of mask {@code m}), {@code inner} apart along the axis. */
    private void columns(MemorySegment x, MemorySegment y, long at, VectorMask<Float> m) {
        boolean f = m.allTrue();
        long step = d.inner();
        int n = d.axis();
        FloatVector mv = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        for (int k = 0; k < n; k++) {
            mv = mv.max(load(x, at + k * step, m, f));
        }
        VectorMask<Float> dead = mv.compare(VectorOperators.EQ, Float.NEGATIVE_INFINITY);
        FloatVector sv = FloatVector.zero(F);
        for (int k = 0; k < n; k++) {
            FloatVector e = load(x, at + k * step, m, f).sub(mv).lanewise(VectorOperators.EXP);
            store(e, y, at + k * step, m, f);
            sv = sv.add(e);
        }
        FloatVector inv = FloatVector.broadcast(F, 1f).div(sv);
        if (d.infAsZero()) {
            inv = inv.blend(0f, dead);
        }
        for (int k = 0; k < n; k++) {
            FloatVector v = load(y, at + k * step, m, f).mul(inv);
            if (d.infAsZero()) {
                v = v.blend(0f, dead); // exp(-inf - -inf) is NaN: NaN * 0 stays NaN
            }
            store(v, y, at + k * step, m, f);
        }
    }
}
