package io.partita.backend.compiler.internal.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

class SoftmaxExpTest {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

    private static float[] exp(float... x) {
        float[] in = new float[(x.length + S.length() - 1) / S.length() * S.length()];
        System.arraycopy(x, 0, in, 0, x.length);
        float[] out = new float[in.length];
        for (int i = 0; i < in.length; i += S.length()) {
            SoftmaxExp.exp(FloatVector.fromArray(S, in, i)).intoArray(out, i);
        }
        return out;
    }

    @Test
    void withinTwoUlpsOfTheExactValueOverTheNormalRange() {
        SplittableRandom r = new SplittableRandom(3);
        int n = 1 << 16;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = i < 64 ? -i * 0.5f : (float) (-87.3 * r.nextDouble());
        }
        float[] y = exp(x);
        double worst = 0;
        for (int i = 0; i < n; i++) {
            double exact = Math.exp(x[i]);
            double ulps = Math.abs(y[i] - exact) / Math.ulp((float) exact);
            worst = Math.max(worst, ulps);
        }
        assertTrue(worst <= 2, "worst error " + worst + " ulps");
    }

    @Test
    void edgeValues() {
        float[] y = exp(0f, Float.NEGATIVE_INFINITY, Float.NaN, -87.4f, -1000f, -Float.MIN_VALUE, -1e-30f);
        assertEquals(1f, y[0], "exp(0) is exactly 1");
        assertEquals(0f, y[1], "exp(-inf)");
        assertTrue(Float.isNaN(y[2]), "NaN stays NaN");
        assertEquals(0f, y[3], "below the normal range: 0");
        assertEquals(0f, y[4]);
        assertEquals(1f, y[5]);
        assertEquals(1f, y[6]);
    }

    private static float rowMax(float... x) {
        int n = (x.length + S.length() - 1) / S.length() * S.length();
        float[] row = new float[n + 3];
        java.util.Arrays.fill(row, Float.NEGATIVE_INFINITY);
        System.arraycopy(x, 0, row, 3, x.length);
        return SoftmaxExp.rowMax(row, 3, 3 + n); // from an offset, as a row of the score block
    }

    @Test
    void rowMaxFollowsMathMax() {
        SplittableRandom r = new SplittableRandom(5);
        for (int n : new int[] {1, 15, 16, 17, 33, 100, 512}) {
            float[] x = new float[n];
            float expected = Float.NEGATIVE_INFINITY;
            for (int i = 0; i < n; i++) {
                x[i] = (float) (r.nextGaussian() * 50);
                expected = Math.max(expected, x[i]);
            }
            assertEquals(expected, rowMax(x), "n=" + n);
        }
        assertEquals(Float.NEGATIVE_INFINITY, rowMax(Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY));
        assertEquals(Float.POSITIVE_INFINITY, rowMax(1f, Float.POSITIVE_INFINITY, 2f));
        assertEquals(-0.5f, rowMax(-3f, -0.5f, -7f), "all negative");
    }

    @Test
    void rowMaxSkipsNaNUnlessNothingElseIsAboveMinusInfinity() {
        // the softmax's exp(NaN - max) carries a NaN score to its row; the max must not hide it
        // behind -inf, where the caller reads "every score masked"
        assertEquals(3f, rowMax(1f, Float.NaN, 3f));
        assertTrue(Float.isNaN(rowMax(Float.NaN)), "a lone NaN");
        assertTrue(Float.isNaN(rowMax(Float.NEGATIVE_INFINITY, Float.NaN, Float.NEGATIVE_INFINITY)),
                "NaN among masked scores");
    }
}
