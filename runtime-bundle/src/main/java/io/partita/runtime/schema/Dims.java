package io.partita.runtime.schema;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;

import java.util.function.LongBinaryOperator;
import java.util.function.LongUnaryOperator;

/**
 * Arithmetic on dims that may be {@code UNKNOWN_DIM} or {@code DYNAMIC_DIM}: a result depending on a
 * dynamic dim is dynamic, otherwise on an unknown dim unknown.
 */
public final class Dims {
    private Dims() {
    }

    public static boolean isKnown(long d) {
        return d >= 0;
    }

    public static boolean allKnown(long[] dims) {
        if (dims == null) {
            return false;
        }
        for (long d : dims) {
            if (d < 0) {
                return false;
            }
        }
        return true;
    }

    /** {@code f(a)} if a is known, else a's placeholder. */
    public static long map(long a, LongUnaryOperator f) {
        return a < 0 ? a : f.applyAsLong(a);
    }

    /** {@code f(a, b)} if both known; DYNAMIC if either is dynamic; else UNKNOWN. */
    public static long combine(long a, long b, LongBinaryOperator f) {
        if (a == DYNAMIC_DIM || b == DYNAMIC_DIM) {
            return DYNAMIC_DIM;
        }
        if (a == UNKNOWN_DIM || b == UNKNOWN_DIM) {
            return UNKNOWN_DIM;
        }
        return f.applyAsLong(a, b);
    }

    /** The placeholder a result derived from all these dims gets (dynamic wins over unknown). */
    public static long placeholderOf(long... dims) {
        long r = 0;
        for (long d : dims) {
            if (d == DYNAMIC_DIM) {
                return DYNAMIC_DIM;
            }
            if (d == UNKNOWN_DIM) {
                r = UNKNOWN_DIM;
            }
        }
        return r;
    }

    /** Product of dims, or the placeholder when one is not known. */
    public static long product(long[] dims, int from, int to) {
        long p = 1;
        for (int i = from; i < to; i++) {
            if (dims[i] < 0) {
                return placeholderOf(java.util.Arrays.copyOfRange(dims, from, to));
            }
            p *= dims[i];
        }
        return p;
    }

    /**
     * Normalizes an axis in [-rank, rank) to [0, rank).
     *
     * @return -1 when out of range (the caller reports the error with the op)
     */
    public static int normalizeAxis(long axis, int rank) {
        long a = axis < 0 ? axis + rank : axis;
        return a < 0 || a >= rank ? -1 : (int) a;
    }

    /**
     * Merges two descriptions of the same dim: a known value wins over a placeholder.
     *
     * @return the merged dim, or null when both are known and differ
     */
    public static Long merge(long a, long b) {
        if (a >= 0 && b >= 0) {
            return a == b ? a : null;
        }
        if (a >= 0) {
            return a;
        }
        if (b >= 0) {
            return b;
        }
        return a == DYNAMIC_DIM || b == DYNAMIC_DIM ? DYNAMIC_DIM : UNKNOWN_DIM;
    }
}
