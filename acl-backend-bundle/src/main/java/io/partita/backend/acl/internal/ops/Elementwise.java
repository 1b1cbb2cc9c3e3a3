package io.partita.backend.acl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.List;

import io.partita.backend.acl.internal.memory.AuxTensor;
import io.partita.backend.acl.internal.simd.Neon;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * Binary elementwise arithmetic of two same-shaped tensors with a fused activation, as ACL's
 * NEArithmeticAddition and friends take an ActivationLayerInfo: the result is activated in
 * registers before it is stored. Needs no auxiliary tensor.
 */
public final class Elementwise implements Operator {
    public enum Arith { ADD, SUB, MUL, MAX, MIN }

    /** ACL's activation functions that fuse here: RELU, and LU_BOUNDED_RELU as Clamp(lo, hi). */
    public enum Act { NONE, RELU, CLAMP }

    public record Desc(Arith arith, long count, Act act, float lo, float hi) {
    }

    private static final VectorSpecies<Float> F = Neon.FLOAT;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    private final Desc d;

    public Elementwise(Desc d) {
        this.d = d;
    }

    @Override
    public List<AuxTensor> auxTensors() {
        return List.of();
    }

    @Override
    public void run(Run r) {
        MemorySegment a = r.input(0), b = r.input(1), c = r.output(0);
        long n = d.count();
        long i = 0;
        for (long full = n - n % F.length(); i < full; i += F.length()) {
            FloatVector v = apply(FloatVector.fromMemorySegment(F, a, i * 4, ORDER), FloatVector.fromMemorySegment(F, b, i * 4, ORDER));
            v.intoMemorySegment(c, i * 4, ORDER);
        }
        if (i < n) {
            VectorMask<Float> m = F.indexInRange(i, n);
            FloatVector v = apply(FloatVector.fromMemorySegment(F, a, i * 4, ORDER, m),
                    FloatVector.fromMemorySegment(F, b, i * 4, ORDER, m));
            v.intoMemorySegment(c, i * 4, ORDER, m);
        }
    }

    private FloatVector apply(FloatVector x, FloatVector y) {
        FloatVector v = switch (d.arith()) {
            case ADD -> x.add(y);
            case SUB -> x.sub(y);
            case MUL -> x.mul(y);
            case MAX -> x.max(y);
            case MIN -> x.min(y);
        };
        return switch (d.act()) {
            case NONE -> v;
            case RELU -> v.max(0f);
            case CLAMP -> v.max(d.lo()).min(d.hi());
        };
    }
}
