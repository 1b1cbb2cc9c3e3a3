package io.partita.backend.reference.ops;

/**
 * Double-precision functions behind the elementwise reference kernels, written to stay accurate
 * over the whole range (no overflow in softplus/sigmoid for large |x|, an erf good to ~1e-15 absolute).
 */
final class EltwiseMath {
    private EltwiseMath() {
    }

    static final double SQRT_2 = Math.sqrt(2.0);
    static final double SQRT_2_OVER_PI = Math.sqrt(2.0 / Math.PI);
    static final double INV_SQRT_2PI = 1.0 / Math.sqrt(2.0 * Math.PI);
    static final double TWO_OVER_SQRT_PI = 2.0 / Math.sqrt(Math.PI);
    static final double INV_SQRT_PI = 1.0 / Math.sqrt(Math.PI);
    /** The cubic coefficient of the tanh approximation of GELU. */
    static final double GELU_TANH_C = 0.044715;

    /** 1 / (1 + e^-x), without overflow. */
    static double sigmoid(double x) {
        if (x >= 0) {
            return 1.0 / (1.0 + Math.exp(-x));
        }
        double e = Math.exp(x);
        return e / (1.0 + e);
    }

    /** ln(1 + e^t), without overflow for large t and without losing small results for very negative t. */
    static double log1pExp(double t) {
        return t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
    }

    /** SoftPlus: (1 / beta) ln(1 + e^(beta x)). */
    static double softPlus(double x, double beta) {
        return log1pExp(beta * x) / beta;
    }

    /** max(0, min(1, alpha x + beta)). */
    static double hardSigmoid(double x, double alpha, double beta) {
        double v = alpha * x + beta;
        return v <= 0 ? 0 : v >= 1 ? 1 : v;
    }

    /** d/dx of x tanh(softplus(x)). */
    static double mishDerivative(double x) {
        double t = Math.tanh(log1pExp(x));
        return t + x * sigmoid(x) * (1 - t) * (1 + t);
    }

    /** 0.5 x (1 + erf(x / sqrt 2)). */
    static double geluErf(double x) {
        return 0.5 * x * (1 + erf(x / SQRT_2));
    }

    /** d/dx of {@link #geluErf}: Phi(x) + x phi(x). */
    static double geluErfDerivative(double x) {
        return 0.5 * (1 + erf(x / SQRT_2)) + x * INV_SQRT_2PI * Math.exp(-0.5 * x * x);
    }

    /** 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
    static double geluTanh(double x) {
        return 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * x * (1 + GELU_TANH_C * x * x)));
    }

    /** d/dx of {@link #geluTanh}. */
    static double geluTanhDerivative(double x) {
        double t = Math.tanh(SQRT_2_OVER_PI * x * (1 + GELU_TANH_C * x * x));
        double dg = SQRT_2_OVER_PI * (1 + 3 * GELU_TANH_C * x * x);
        return 0.5 * (1 + t) + 0.5 * x * (1 - t) * (1 + t) * dg;
    }

    /**
     * The error function. |x| < 2: erf(x) = 2/sqrt(pi) e^(-x^2) sum_n 2^n x^(2n+1) / (1 3 5 ... (2n+1))
     * (all terms positive, so no cancellation); |x| >= 2: 1 - erfc(x) with erfc from its continued
     * fraction; |x| >= 6: +-1 (erfc(6) < 3e-17).
     */
    static double erf(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        double a = Math.abs(x);
        double r;
        if (a >= 6) {
            r = 1;
        } else if (a < 2) {
            double x2 = a * a;
            double term = a;
            double sum = a;
            for (int n = 1; n < 200; n++) {
                term *= 2 * x2 / (2 * n + 1);
                sum += term;
                if (term < 1e-17 * sum) {
                    break;
                }
            }
            r = TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
        } else {
            r = 1 - erfcLarge(a);
        }
        return x < 0 ? -r : r;
    }

    /**
     * erfc(a) for a >= 2 by the continued fraction
     * e^(-a^2)/sqrt(pi) * 1/(a + (1/2)/(a + 1/(a + (3/2)/(a + 2/(a + ...))))), evaluated bottom-up.
     */
    static double erfcLarge(double a) {
        double t = a;
        for (int k = 80; k >= 1; k--) {
            t = a + (k / 2.0) / t;
        }
        return INV_SQRT_PI * Math.exp(-a * a) / t;
    }
}
