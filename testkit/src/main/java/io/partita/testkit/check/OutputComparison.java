package io.partita.testkit.check;

import io.partita.graph.DataType;
import io.partita.graph.Tensor;

/**
 * Compares an output with the reference output. An element matches when
 * {@code |a - e| <= atol + rtol * max(|e|, scale)} where {@code scale} is a fraction of the largest
 * magnitude in the expected tensor: accumulating in the data type's precision makes errors grow
 * with the size of the partial sums, not with the (possibly cancelled) result. NaN matches NaN,
 * infinities must be equal; tolerances follow the data type's precision (s8/u8: one quantization
 * step).
 */
public final class OutputComparison {
    private OutputComparison() {
    }

    /** The outcome: whether every element matched, and the worst element. */
    public record Result(boolean matches, long elements, long mismatches, long worstIndex, double expected, double actual,
            double absError, double relError) {

        public String describe() {
            if (elements == 0) {
                return "empty";
            }
            return (matches ? "match" : mismatches + " of " + elements + " elements differ")
                    + String.format(" (worst at %d: expected %.6g got %.6g, abs err %.3g, rel err %.3g)", worstIndex,
                            expected, actual, absError, relError);
        }
    }

    /** Absolute and relative tolerance per data type. */
    public static double[] tolerance(DataType dt) {
        return switch (dt) {
            case F32 -> new double[] {1e-5, 1e-4};
            case BF16 -> new double[] {1e-2, 2e-2};
            case F16 -> new double[] {1e-3, 4e-3};
            case F8_E4M3, F8_E5M2 -> new double[] {6e-2, 0.13};
            // Quantized outputs: a value computed in f32 on one side of a rounding tie and in double
            // on the other differs by one step (benchdnn allows the same for int8 destinations).
            case S8, U8 -> new double[] {1, 0};
            default -> new double[] {0, 0};
        };
    }

    /** The fraction of the largest expected magnitude below which errors are judged absolutely. */
    static final double SCALE_FRACTION = 0.1;

    public static Result compare(Tensor expected, Tensor actual) {
        double[] t = tolerance(expected.logicalTensor().dataType());
        return compare(expected.toDoubleArray(), actual.toDoubleArray(), t[0], t[1]);
    }

    public static Result compare(double[] e, double[] a, double atol, double rtol) {
        double maxAbs = 0;
        for (double x : e) {
            if (Double.isFinite(x)) {
                maxAbs = Math.max(maxAbs, Math.abs(x));
            }
        }
        double scale = SCALE_FRACTION * maxAbs;
        if (e.length != a.length) {
            return new Result(false, e.length, Math.max(e.length, a.length), -1, e.length, a.length, Double.NaN,
                    Double.NaN);
        }
        long bad = 0;
        long worst = e.length == 0 ? -1 : 0;
        double worstScore = -1;
        double worstAbs = 0;
        double worstRel = 0;
        for (int i = 0; i < e.length; i++) {
            double x = e[i];
            double y = a[i];
            boolean ok;
            double abs;
            if (Double.isNaN(x) || Double.isNaN(y)) {
                ok = Double.isNaN(x) && Double.isNaN(y);
                abs = ok ? 0 : Double.POSITIVE_INFINITY;
            } else if (Double.isInfinite(x) || Double.isInfinite(y)) {
                ok = x == y;
                abs = ok ? 0 : Double.POSITIVE_INFINITY;
            } else {
                abs = Math.abs(x - y);
                ok = abs <= atol + rtol * Math.max(Math.abs(x), scale);
            }
            double score = Double.isInfinite(abs) ? Double.POSITIVE_INFINITY
                    : abs / (atol + rtol * Math.max(Math.abs(x), scale) + 1e-300);
            if (!ok) {
                bad++;
            }
            if (score > worstScore) {
                worstScore = score;
                worst = i;
                worstAbs = abs;
                worstRel = x == 0 ? (abs == 0 ? 0 : Double.POSITIVE_INFINITY) : abs / Math.abs(x);
            }
        }
        return new Result(bad == 0, e.length, bad, worst, worst >= 0 ? e[(int) worst] : 0,
                worst >= 0 ? a[(int) worst] : 0, worstAbs, worstRel);
    }
}
