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
        FloatVector c = x.max(LOWEST);
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
        VectorMask<Float> under = x.lt(LOWEST);
        return e.blend(0f, under);
    }
}
