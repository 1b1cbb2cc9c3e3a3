package io.partita.backend.compiler.internal.exec;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * exp(x) for x ≤ 0 (a score minus its row's running max) in about fifteen vector instructions.
 * The softmax inside the attention loop takes one exp per score, and the library exp
 * ({@code VectorOperators.EXP}) costs about as much as half of the two products around it.
 *
 * <p>exp(x) = 2^n · exp(r), n = round(x / ln 2), r = x − n·ln 2 in two steps (ln 2 split into a
 * part exact in 9 bits and the rest, so n·ln2_hi is exact), |r| ≤ ln 2 / 2, and exp(r) by its
 * Taylor polynomial of degree 7 (truncation below r^8/8! ≈ 5e-9, a tenth of an ulp; degree 6
 * left 2.5 ulps).
 * 2^n is built in the exponent bits. Below −87.3 (where f32's exp leaves the normal range) the
 * result is 0; −∞ gives 0 and NaN stays NaN.
 */
final class SoftmaxExp {
    private static final float LOG2E = 1.44269504088896341f;
    private static final float LN2_HI = 0.693359375f; // 355/512: n * LN2_HI is exact for |n| < 2^15
    private static final float LN2_LO = -2.12194440054690583e-4f; // ln 2 - LN2_HI
    /** 1.5 · 2^23: adding it rounds to an integer held in the low mantissa bits. */
    private static final float ROUNDER = 12582912f;
    private static final int ROUNDER_BITS = Float.floatToRawIntBits(ROUNDER);
    private static final float LOWEST = -87.33f;
    /** A constant species, as C2 needs to intrinsify the vector operations. */
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

    private SoftmaxExp() {
    }

    static FloatVector exp(FloatVector x) {
        // a compare and two blends: max() keeps Java's NaN rule at the cost of five instructions
        VectorMask<Float> under = x.lt(LOWEST); // false for NaN, which stays NaN
        FloatVector c = x.blend(LOWEST, under);
        FloatVector t = c.fma(FloatVector.broadcast(S, LOG2E), FloatVector.broadcast(S, ROUNDER));
        FloatVector n = t.sub(ROUNDER);
        FloatVector r = n.fma(FloatVector.broadcast(S, -LN2_HI), c);
        r = n.fma(FloatVector.broadcast(S, -LN2_LO), r);
        FloatVector p = r.fma(FloatVector.broadcast(S, 1f / 5040), FloatVector.broadcast(S, 1f / 720));
        p = p.fma(r, FloatVector.broadcast(S, 1f / 120));
        p = p.fma(r, FloatVector.broadcast(S, 1f / 24));
        p = p.fma(r, FloatVector.broadcast(S, 1f / 6));
        p = p.fma(r, FloatVector.broadcast(S, 0.5f));
        p = p.fma(r, FloatVector.broadcast(S, 1f));
        p = p.fma(r, FloatVector.broadcast(S, 1f));
        IntVector bits = (IntVector) t.reinterpretAsInts();
        FloatVector scale = bits.sub(ROUNDER_BITS - 127).lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
        FloatVector e = p.mul(scale);
        return e.blend(0f, under);
    }

    /**
     * The largest of {@code x[from..to)} that is not NaN (to - from a multiple of the vector
     * length), by compares and blends: a vector {@code max()} keeps Java's NaN rule at five
     * instructions per vector. A softmax needs no more: exp(NaN - max) makes the row NaN. Only
     * where nothing is above -inf (read as "every score masked") is the row redone with
     * {@link Math#max}, so a NaN there gives NaN.
     */
    static float rowMax(float[] x, int from, int to) {
        FloatVector mx = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        FloatVector my = mx; // two chains: one would wait on each compare's latency
        int c = from;
        int vl = S.length();
        for (; c + vl < to; c += 2 * vl) {
            FloatVector a = FloatVector.fromArray(S, x, c);
            FloatVector b = FloatVector.fromArray(S, x, c + vl);
            mx = mx.blend(a, a.compare(VectorOperators.GT, mx));
            my = my.blend(b, b.compare(VectorOperators.GT, my));
        }
        if (c < to) {
            FloatVector a = FloatVector.fromArray(S, x, c);
            mx = mx.blend(a, a.compare(VectorOperators.GT, mx));
        }
        float m = mx.blend(my, my.compare(VectorOperators.GT, mx)).reduceLanes(VectorOperators.MAX);
        if (m == Float.NEGATIVE_INFINITY) {
            for (int i = from; i < to; i++) {
                m = Math.max(m, x[i]);
            }
        }
        return m;
    }
}
