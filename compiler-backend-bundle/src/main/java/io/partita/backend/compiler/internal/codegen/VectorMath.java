package io.partita.backend.compiler.internal.codegen;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The vector functions generated kernels call, one static method per {@link
 * io.partita.backend.compiler.internal.expr.Fn} (named by {@code Fn.method()}). Static and small,
 * so C2 inlines them into the generated loop. Formulas follow the reference backend's in float,
 * written to avoid overflow (exp of non-positive arguments only).
 */
public final class VectorMath {
    public static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final float SQRT_2_OVER_PI = (float) Math.sqrt(2 / Math.PI);
    private static final float INV_SQRT_2 = (float) (1 / Math.sqrt(2));

    private VectorMath() {
    }

    public static FloatVector broadcast(float v) {
        return FloatVector.broadcast(S, v);
    }

    /** {@code base, base + 1, …}: column indices of the lanes (exact below 2^24). */
    public static FloatVector index(int base) {
        return FloatVector.zero(S).addIndex(1).add(base);
    }

    public static FloatVector relu(FloatVector x) {
        return x.max(0f);
    }

    public static FloatVector sigmoid(FloatVector x) {
        FloatVector e = x.abs().neg().lanewise(VectorOperators.EXP);
        FloatVector d = e.add(1f);
        FloatVector pos = FloatVector.broadcast(S, 1f).div(d);
        return pos.blend(e.div(d), x.lt(0f));
    }

    public static FloatVector tanh(FloatVector x) {
        return x.lanewise(VectorOperators.TANH);
    }

    public static FloatVector exp(FloatVector x) {
        return x.lanewise(VectorOperators.EXP);
    }

    public static FloatVector log(FloatVector x) {
        return x.lanewise(VectorOperators.LOG);
    }

    public static FloatVector abs(FloatVector x) {
        return x.abs();
    }

    public static FloatVector sqrt(FloatVector x) {
        return x.sqrt();
    }

    public static FloatVector square(FloatVector x) {
        return x.mul(x);
    }

    public static FloatVector reciprocal(FloatVector x) {
        return FloatVector.broadcast(S, 1f).div(x);
    }

    /** Half to even, as {@code Math.rint}: adding 2^23 rounds in the FPU's mode; larger floats are integers. */
    public static FloatVector round(FloatVector x) {
        FloatVector a = x.abs();
        FloatVector r = a.add(8388608f).sub(8388608f);
        r = r.blend(a, a.compare(VectorOperators.GE, 8388608f));
        return r.blend(r.neg(), x.lt(0f));
    }

    /** erf from the erfc rational approximation of Numerical Recipes (relative error below 1.2e-7). */
    public static FloatVector erf(FloatVector x) {
        FloatVector r = erfc(x.abs()).neg().add(1f);
        return r.blend(r.neg(), x.lt(0f));
    }

    /**
     * erfc(z) for z >= 0: t exp(-z^2 + P(t)), t = 1 / (1 + z/2), P of degree 9 (Numerical Recipes'
     * erfcc), evaluated with fused multiply-adds: a GELU's chain is a quarter shorter than with
     * separate multiplies and adds.
     */
    static FloatVector erfc(FloatVector z) {
        FloatVector one = FloatVector.broadcast(S, 1f);
        FloatVector t = one.div(z.fma(FloatVector.broadcast(S, 0.5f), one));
        FloatVector p = t.fma(FloatVector.broadcast(S, 0.17087277f), FloatVector.broadcast(S, -0.82215223f));
        p = p.fma(t, FloatVector.broadcast(S, 1.48851587f));
        p = p.fma(t, FloatVector.broadcast(S, -1.13520398f));
        p = p.fma(t, FloatVector.broadcast(S, 0.27886807f));
        p = p.fma(t, FloatVector.broadcast(S, -0.18628806f));
        p = p.fma(t, FloatVector.broadcast(S, 0.09678418f));
        p = p.fma(t, FloatVector.broadcast(S, 0.37409196f));
        p = p.fma(t, FloatVector.broadcast(S, 1.00002368f));
        p = p.fma(t, FloatVector.broadcast(S, -1.26551223f));
        return t.mul(z.neg().fma(z, p).lanewise(VectorOperators.EXP));
    }

    /**
     * 0.5 x (1 + erf(x / sqrt 2)), where 1 + erf(x / sqrt 2) is 2 - erfc(|x| / sqrt 2) for x >= 0
     * and erfc(|x| / sqrt 2) itself below: no 1 - erfc cancellation for negative x (relative error
     * 1.5e-6 against 0.08 through erf; GELU probe 2.05 against 2.75 ns per value on AVX2).
     */
    public static FloatVector geluErf(FloatVector x) {
        FloatVector e = erfc(x.abs().mul(INV_SQRT_2));
        return x.mul(0.5f).mul(e.neg().add(2f).blend(e, x.lt(0f)));
    }

    public static FloatVector geluTanh(FloatVector x) {
        FloatVector inner = x.mul(x).mul(0.044715f).add(1f).mul(x).mul(SQRT_2_OVER_PI);
        return x.mul(0.5f).mul(inner.lanewise(VectorOperators.TANH).add(1f));
    }

    public static FloatVector mish(FloatVector x) {
        return x.mul(softPlus(x, 1f).lanewise(VectorOperators.TANH));
    }

    public static FloatVector hardSwish(FloatVector x) {
        return x.mul(hardSigmoid(x, 1f / 6, 0.5f));
    }

    public static FloatVector elu(FloatVector x, float alpha) {
        return x.blend(x.lanewise(VectorOperators.EXPM1).mul(alpha), x.lt(0f));
    }

    public static FloatVector leakyRelu(FloatVector x, float alpha) {
        return x.blend(x.mul(alpha), x.lt(0f));
    }

    /** log(1 + exp(beta x)) / beta as max(y, 0) + log1p(exp(-|y|)). */
    public static FloatVector softPlus(FloatVector x, float beta) {
        FloatVector y = x.mul(beta);
        FloatVector r = y.max(0f).add(y.abs().neg().lanewise(VectorOperators.EXP).lanewise(VectorOperators.LOG1P));
        return beta == 1f ? r : r.div(beta);
    }

    public static FloatVector pow(FloatVector x, float beta) {
        return x.lanewise(VectorOperators.POW, beta);
    }

    public static FloatVector clamp(FloatVector x, float lo, float hi) {
        return x.max(lo).min(hi);
    }

    public static FloatVector hardSigmoid(FloatVector x, float alpha, float beta) {
        return x.mul(alpha).add(beta).max(0f).min(1f);
    }

    public static FloatVector add(FloatVector a, FloatVector b) {
        return a.add(b);
    }

    public static FloatVector sub(FloatVector a, FloatVector b) {
        return a.sub(b);
    }

    public static FloatVector mul(FloatVector a, FloatVector b) {
        return a.mul(b);
    }

    public static FloatVector div(FloatVector a, FloatVector b) {
        return a.div(b);
    }

    /** NaN-propagating, as the reference's Math.max. */
    public static FloatVector max(FloatVector a, FloatVector b) {
        return a.max(b);
    }

    public static FloatVector min(FloatVector a, FloatVector b) {
        return a.min(b);
    }

    public static FloatVector squaredDiff(FloatVector a, FloatVector b) {
        FloatVector d = a.sub(b);
        return d.mul(d);
    }

    public static FloatVector power(FloatVector a, FloatVector b) {
        return a.lanewise(VectorOperators.POW, b);
    }

    /** 1 where {@code a >= b}, else 0. */
    public static FloatVector ge(FloatVector a, FloatVector b) {
        return FloatVector.zero(S).blend(1f, a.compare(VectorOperators.GE, b));
    }

    /** {@code c != 0 ? a : b}. */
    public static FloatVector select(FloatVector c, FloatVector a, FloatVector b) {
        return b.blend(a, c.compare(VectorOperators.NE, 0f));
    }
}
