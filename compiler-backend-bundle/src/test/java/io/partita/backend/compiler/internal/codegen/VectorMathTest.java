package io.partita.backend.compiler.internal.codegen;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import jdk.incubator.vector.FloatVector;

/** The generated kernels' GELU (erf form) and erf against double precision, negative x included. */
class VectorMathTest {

    @Test
    void geluErfAndErfStayAccurateWhereTheyAreSmall() {
        double worstGelu = 0;
        double worstErf = 0;
        for (int i = -1300; i <= 1300; i++) {
            float x = i / 100f;
            FloatVector v = FloatVector.broadcast(VectorMath.S, x);
            double gelu = 0.5 * x * erfc(-x / Math.sqrt(2));
            // float's rounding of x / sqrt 2 and its square moves exp(-x^2 / 2) by about 1e-7 x^2
            worstGelu = Math.max(worstGelu, Math.abs(VectorMath.geluErf(v).lane(0) - gelu)
                    / Math.max(Math.abs(gelu), Float.MIN_NORMAL) / (2e-6 + 2e-7 * x * x));
            double erf = 1 - erfc(x);
            // the approximation's 1.2e-7, plus exp's and the polynomial's rounding: the JDK's exp differs
            // per vector width (2.2e-7 in all with 512 bits on an AVX-512 Zen 4, below 2e-7 with 256)
            worstErf = Math.max(worstErf, Math.abs(VectorMath.erf(v).lane(0) - erf) / 3e-7);
        }
        assertTrue(worstGelu <= 1, "GELU error " + worstGelu + " of the allowed 2e-6 + 2e-7 x^2 (relative)");
        assertTrue(worstErf <= 1, "erf error " + worstErf + " of the allowed 3e-7 (absolute)");
    }

    /** 2/sqrt(pi) times the integral of exp(-t^2) from z, Simpson's rule to z + 12. */
    private static double erfc(double z) {
        if (z < 0) {
            return 2 - erfc(-z);
        }
        int n = 40_000;
        double h = 12.0 / n;
        double sum = Math.exp(-z * z) + Math.exp(-(z + 12) * (z + 12));
        for (int i = 1; i < n; i++) {
            double t = z + i * h;
            sum += (i % 2 == 1 ? 4 : 2) * Math.exp(-t * t);
        }
        return sum * h / 3 * 2 / Math.sqrt(Math.PI);
    }
}
