package io.partita.backend.dnnl.internal.postops;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import io.partita.graph.OpKind;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

import io.partita.backend.dnnl.internal.isa.Isa;

/**
 * One post-op step over a run of stored output values, each its own small loop. Small on purpose:
 * C2 inlines the step's vector code into a loop this size, so no vector crosses a call (a vector
 * passed to a call that is not inlined is boxed on the heap).
 */
final class InPlace {
    private static final VectorSpecies<Float> S = Isa.FLOAT;
    private static final int L = Isa.LANES;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    private InPlace() {
    }

    /** The activation on {@code count} floats from byte offset {@code off}. */
    static void activate(Activation act, MemorySegment out, long off, int count) {
        int q = 0;
        for (; q + L <= count; q += L) {
            long o = off + 4L * q;
            act.apply(FloatVector.fromMemorySegment(S, out, o, ORDER)).intoMemorySegment(out, o, ORDER);
        }
        if (q < count) {
            long o = off + 4L * q;
            VectorMask<Float> m = S.indexInRange(q, count);
            act.apply(FloatVector.fromMemorySegment(S, out, o, ORDER, m)).intoMemorySegment(out, o, ORDER, m);
        }
    }

    /** value (op) operand, or operand (op) value when the chain is the right side: one operand for all. */
    static void binaryScalar(OpKind kind, boolean chainIsRight, float operand, MemorySegment out, long off,
            int count) {
        FloatVector w = FloatVector.broadcast(S, operand);
        int q = 0;
        for (; q + L <= count; q += L) {
            long o = off + 4L * q;
            FloatVector v = FloatVector.fromMemorySegment(S, out, o, ORDER);
            binary(kind, chainIsRight, v, w).intoMemorySegment(out, o, ORDER);
        }
        if (q < count) {
            long o = off + 4L * q;
            VectorMask<Float> m = S.indexInRange(q, count);
            FloatVector v = FloatVector.fromMemorySegment(S, out, o, ORDER, m);
            binary(kind, chainIsRight, v, w).intoMemorySegment(out, o, ORDER, m);
        }
    }

    /** As {@link #binaryScalar}, the operands consecutive in {@code operand} from {@code from}. */
    static void binaryArray(OpKind kind, boolean chainIsRight, float[] operand, int from, MemorySegment out,
            long off, int count) {
        int q = 0;
        for (; q + L <= count; q += L) {
            long o = off + 4L * q;
            FloatVector v = FloatVector.fromMemorySegment(S, out, o, ORDER);
            FloatVector w = FloatVector.fromArray(S, operand, from + q);
            binary(kind, chainIsRight, v, w).intoMemorySegment(out, o, ORDER);
        }
        if (q < count) {
            long o = off + 4L * q;
            VectorMask<Float> m = S.indexInRange(q, count);
            FloatVector v = FloatVector.fromMemorySegment(S, out, o, ORDER, m);
            FloatVector w = FloatVector.fromArray(S, operand, from + q, m);
            binary(kind, chainIsRight, v, w).intoMemorySegment(out, o, ORDER, m);
        }
    }

    /** As {@link #binaryScalar}, the operand laid out as the output (at the same byte offsets). */
    static void binarySame(OpKind kind, boolean chainIsRight, MemorySegment operand, MemorySegment out, long off,
            int count) {
        binaryRun(kind, chainIsRight, operand, off, out, off, count);
    }

    /** As {@link #binaryScalar}, the operands consecutive in {@code operand} from byte offset {@code from}. */
    static void binaryRun(OpKind kind, boolean chainIsRight, MemorySegment operand, long from, MemorySegment out,
            long off, int count) {
        int q = 0;
        for (; q + L <= count; q += L) {
            long o = off + 4L * q;
            FloatVector v = FloatVector.fromMemorySegment(S, out, o, ORDER);
            FloatVector w = FloatVector.fromMemorySegment(S, operand, from + 4L * q, ORDER);
            binary(kind, chainIsRight, v, w).intoMemorySegment(out, o, ORDER);
        }
        if (q < count) {
            long o = off + 4L * q;
            VectorMask<Float> m = S.indexInRange(q, count);
            FloatVector v = FloatVector.fromMemorySegment(S, out, o, ORDER, m);
            FloatVector w = FloatVector.fromMemorySegment(S, operand, from + 4L * q, ORDER, m);
            binary(kind, chainIsRight, v, w).intoMemorySegment(out, o, ORDER, m);
        }
    }

    private static FloatVector binary(OpKind kind, boolean chainIsRight, FloatVector chain, FloatVector operand) {
        return chainIsRight ? PostOpChain.binary(kind, operand, chain) : PostOpChain.binary(kind, chain, operand);
    }
}
