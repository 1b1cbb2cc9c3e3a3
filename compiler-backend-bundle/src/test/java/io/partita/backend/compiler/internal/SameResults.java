package io.partita.backend.compiler.internal;

/** Comparing the outputs of two kernels that run the same generated code. */
public final class SameResults {
    private SameResults() {
    }

    /**
     * The same code computes the same up to the Vector API's tiers: its transcendental operations
     * (exp, tanh) run as SVML stubs once compiled and as Java fallbacks before, which may differ in
     * the last bits, and when a method is compiled depends on timing. A wrong or foreign kernel is
     * off by far more than this.
     */
    public static void assertSameResults(float[] expected, float[] actual, String... what) {
        org.junit.jupiter.api.Assertions.assertEquals(expected.length, actual.length, String.join(" ", what));
        float scale = 1;
        for (float v : expected) {
            scale = Math.max(scale, Math.abs(v));
        }
        for (int i = 0; i < expected.length; i++) {
            float e = expected[i];
            float a = actual[i];
            if (!(Math.abs(e - a) <= 1e-5f * scale)) {
                org.junit.jupiter.api.Assertions.fail(String.join(" ", what) + " element " + i + ": expected " + e
                        + " but was " + a + " (tolerance " + 1e-5f * scale + ")");
            }
        }
    }
}
