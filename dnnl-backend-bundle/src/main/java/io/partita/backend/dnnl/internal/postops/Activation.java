package io.partita.backend.dnnl.internal.postops;

import java.util.Set;

import io.partita.graph.Op;
import io.partita.graph.OpKind;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import io.partita.backend.dnnl.internal.isa.Isa;

/**
 * A vectorized element-wise activation with its attributes, as oneDNN's eltwise post-ops define
 * them. {@link #SUPPORTED} lists the kinds this backend fuses or runs. Sigmoid with a non-zero
 * {@code alpha} is oneDNN's swish, {@code x * sigmoid(alpha * x)}: the graph's Sigmoid and
 * Multiply of the same value, fused.
 */
public record Activation(OpKind kind, float alpha, float beta, boolean tanhGelu) {
    static final VectorSpecies<Float> S = Isa.FLOAT;
    /** Floats per vector (a constant C2 folds). */
    static final int L = Isa.LANES;

    public static final Set<OpKind> SUPPORTED = Set.of(OpKind.ReLU, OpKind.LeakyReLU, OpKind.GELU, OpKind.Sigmoid,
            OpKind.Tanh, OpKind.Elu, OpKind.Clamp, OpKind.Exp, OpKind.Log, OpKind.Sqrt, OpKind.Square, OpKind.Abs,
            OpKind.HardSwish, OpKind.HardSigmoid, OpKind.Mish, OpKind.SoftPlus, OpKind.Round, OpKind.Reciprocal);

    /** The activation of an op of a supported kind (attributes already defaulted by the schema). */
    public static Activation of(Op op) {
        OpKind k = op.kind();
        return switch (k) {
            case LeakyReLU, Elu -> new Activation(k, op.floatAttr("alpha"), 0, false);
            case Clamp -> new Activation(k, op.floatAttr("min"), op.floatAttr("max"), false);
            case HardSigmoid -> new Activation(k, op.floatAttr("alpha"), op.floatAttr("beta"), false);
            case SoftPlus -> new Activation(k, 0, op.floatAttr("beta"), false);
            case GELU -> new Activation(k, 0, 0, op.hasAttr("mode") && "gelu_tanh".equals(op.stringAttr("mode")));
            default -> new Activation(k, 0, 0, false);
        };
    }

    /** x * sigmoid(x) (SiLU). */
    public static Activation swish() {
        return new Activation(OpKind.Sigmoid, 1f, 0, false);
    }

    /**
     * Applies to one vector. Kept a small dispatcher of one call per kind: the JIT inlines a hot method
     * only under 325 bytecodes, and a vector passed to a method that is not inlined is boxed on the heap
     * (at 421 bytes, with every formula in the switch, this method was never inlined into the store loops
     * and sometimes stayed in C1 code, where each vector operation runs its Java fallback).
     */
    public FloatVector apply(FloatVector x) {
        return switch (kind) {
            case ReLU -> relu(x);
            case LeakyReLU -> leakyRelu(x, alpha);
            case Clamp -> clamp(x, alpha, beta);
            case Abs -> x.abs();
            case Square -> x.mul(x);
            case Sqrt -> x.sqrt();
            case Exp -> x.lanewise(VectorOperators.EXP);
            case Log -> x.lanewise(VectorOperators.LOG);
            case Tanh -> x.lanewise(VectorOperators.TANH);
            case Sigmoid -> alpha == 0 ? sigmoid(x) : swish(x, alpha);
            case Elu -> elu(x, alpha);
            case GELU -> tanhGelu ? geluTanh(x) : geluErf(x);
            case HardSwish -> hardSwish(x);
            case HardSigmoid -> hardSigmoid(x, alpha, beta);
            case Mish -> mish(x);
            case SoftPlus -> softplus(x, beta);
            case Round -> round(x);
            case Reciprocal -> reciprocal(x);
            default -> throw unsupported(kind);
        };
    }

    /** Applies to one value (tails and scalar paths), the same formulas in float. */
    public float apply(float x) {
        return apply(FloatVector.broadcast(S, x)).lane(0);
    }

    private static IllegalStateException unsupported(OpKind kind) {
        return new IllegalStateException("no activation " + kind);
    }

    private static FloatVector clamp(FloatVector x, float lo, float hi) {
        return x.max(lo).min(hi);
    }

    private static FloatVector hardSigmoid(FloatVector x, float alpha, float beta) {
        return x.mul(alpha).add(beta).max(0f).min(1f);
    }

    private static FloatVector reciprocal(FloatVector x) {
        return FloatVector.broadcast(S, 1f).div(x);
    }

    private static FloatVector relu(FloatVector x) {
        return FloatVector.zero(S).blend(x, x.compare(VectorOperators.GT, 0f)); // NaN -> 0, as the reference
    }

    private static FloatVector leakyRelu(FloatVector x, float alpha) {
        return x.blend(x.mul(alpha), x.lt(0f));
    }

    private static FloatVector swish(FloatVector x, float alpha) {
        return x.mul(sigmoid(x.mul(alpha)));
    }

    private static FloatVector elu(FloatVector x, float alpha) {
        return x.blend(x.lanewise(VectorOperators.EXPM1).mul(alpha), x.lt(0f));
    }

    private static FloatVector hardSwish(FloatVector x) {
        return x.mul(x.mul(1f / 6).add(0.5f).max(0f).min(1f));
    }

    private static FloatVector mish(FloatVector x) {
        return x.mul(softplus(x, 1f).lanewise(VectorOperators.TANH));
    }

    private static FloatVector sigmoid(FloatVector x) {
        // 1 / (1 + exp(-x)) without overflow: exp of a non-positive argument only.
        FloatVector e = x.abs().neg().lanewise(VectorOperators.EXP);
        FloatVector pos = FloatVector.broadcast(S, 1f).div(e.add(1f));
        FloatVector neg = e.div(e.add(1f));
        return pos.blend(neg, x.lt(0f));
    }

    private static FloatVector softplus(FloatVector x, float beta) {
        // log(1 + exp(beta x)) / beta, stable: max(y, 0) + log1p(exp(-|y|))
        FloatVector y = x.mul(beta);
        FloatVector r = y.max(0f).add(y.abs().neg().lanewise(VectorOperators.EXP).lanewise(VectorOperators.LOG1P));
        return beta == 1f ? r : r.div(beta);
    }

    private static FloatVector geluTanh(FloatVector x) {
        FloatVector inner = x.add(x.mul(x).mul(x).mul(0.044715f)).mul((float) Math.sqrt(2 / Math.PI));
        return x.mul(0.5f).mul(inner.lanewise(VectorOperators.TANH).add(1f));
    }

    /**
     * 0.5 x (1 + erf(x / sqrt 2)), where 1 + erf(x / sqrt 2) is 2 - erfc(|x| / sqrt 2) for x >= 0
     * and erfc(|x| / sqrt 2) itself below: no 1 - erfc cancellation for negative x (relative error
     * 1.5e-6 against 0.08 through erf; GELU probe 2.05 against 2.75 ns per value on AVX2).
     */
    private static FloatVector geluErf(FloatVector x) {
        FloatVector e = erfc(x.abs().mul((float) (1 / Math.sqrt(2))));
        return x.mul(0.5f).mul(e.neg().add(2f).blend(e, x.lt(0f)));
    }

    /** erf(x) = sign(x) (1 - erfc(|x|)). */
    static FloatVector erf(FloatVector x) {
        FloatVector r = erfc(x.abs()).neg().add(1f);
        return r.blend(r.neg(), x.lt(0f));
    }

    /**
     * erfc(z) for z >= 0: t exp(-z^2 + P(t)), t = 1 / (1 + z/2), P of degree 9 (Numerical Recipes'
     * erfcc, relative error < 1.2e-7), evaluated with fused multiply-adds: a GELU's chain is a
     * quarter shorter than with separate multiplies and adds.
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

    private static FloatVector round(FloatVector x) {
        // round half to even: magic-number addition works for |x| < 2^23 (larger floats are integers)
        FloatVector magic = FloatVector.broadcast(S, 8388608f);
        FloatVector a = x.abs();
        FloatVector r = a.add(magic).sub(magic);
        r = r.blend(a, a.compare(VectorOperators.GE, 8388608f));
        return r.blend(r.neg(), x.lt(0f));
    }
}
