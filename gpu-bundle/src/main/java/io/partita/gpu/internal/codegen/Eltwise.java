package io.partita.gpu.internal.codegen;

import java.util.Locale;

import io.partita.graph.Op;
import io.partita.graph.OpKind;

/**
 * OpenCL C expressions of the unary and binary elementwise ops, following the reference backend's
 * formulas (oneDNN's eltwise and binary definitions). Attribute values are baked into the source as
 * exact hexadecimal float literals.
 */
public final class Eltwise {
    private Eltwise() {
    }

    /** Helpers every generated program starts with. */
    public static final String PRELUDE = """
            inline float p_sigmoid(float x) { if (x >= 0.0f) { return 1.0f / (1.0f + exp(-x)); } float e = exp(x); return e / (1.0f + e); }
            inline float p_log1pexp(float t) { return t > 0.0f ? t + log1p(exp(-t)) : log1p(exp(t)); }
            inline float p_hsig(float x, float a, float b) { float v = a * x + b; return v <= 0.0f ? 0.0f : (v >= 1.0f ? 1.0f : v); }
            inline float p_clamp(float x, float lo, float hi) { float t = x > lo ? x : lo; return t < hi ? t : hi; }
            inline float p_max(float a, float b) { return (isnan(a) || isnan(b)) ? NAN : fmax(a, b); }
            inline float p_min(float a, float b) { return (isnan(a) || isnan(b)) ? NAN : fmin(a, b); }
            """;

    /** Whether {@link #unary} has an expression for this op. */
    public static boolean isUnary(OpKind k) {
        return switch (k) {
            case Abs, Clamp, Elu, Exp, GELU, HardSigmoid, HardSwish, LeakyReLU, Log, Mish, Reciprocal, ReLU, Round,
                    Sigmoid, SoftPlus, Sqrt, Square, Tanh, PartitaErf -> true;
            default -> false;
        };
    }

    /** Whether {@link #binary} has an expression for this op. */
    public static boolean isBinary(OpKind k) {
        return switch (k) {
            case Add, Subtract, Multiply, Divide, Maximum, Minimum, SquaredDifference -> true;
            default -> false;
        };
    }

    /** The expression of a unary op applied to {@code x} (an expression itself, evaluated once per use). */
    public static String unary(Op op, String x) {
        return switch (op.kind()) {
            case Abs -> "fabs(" + x + ")";
            case Clamp -> "p_clamp(" + x + ", " + lit(op.floatAttr("min")) + ", " + lit(op.floatAttr("max")) + ")";
            case Elu -> "(" + x + " > 0.0f ? " + x + " : " + lit(op.floatAttr("alpha")) + " * expm1(" + x + "))";
            case Exp -> "exp(" + x + ")";
            case GELU -> op.hasAttr("mode") && "gelu_tanh".equals(op.stringAttr("mode"))
                    ? "(0.5f * " + x + " * (1.0f + tanh(0.79788456080286535588f * " + x + " * (1.0f + 0.044715f * " + x
                            + " * " + x + "))))"
                    : "(0.5f * " + x + " * (1.0f + erf(" + x + " * 0.70710678118654752440f)))";
            case HardSigmoid -> "p_hsig(" + x + ", " + lit(op.floatAttr("alpha")) + ", " + lit(op.floatAttr("beta")) + ")";
            case HardSwish -> "(" + x + " * p_hsig(" + x + ", " + lit(1.0f / 6.0f) + ", 0.5f))";
            case LeakyReLU -> "(" + x + " >= 0.0f ? " + x + " : " + lit(op.floatAttr("alpha")) + " * " + x + ")";
            case Log -> "log(" + x + ")";
            case Mish -> "(" + x + " * tanh(p_log1pexp(" + x + ")))";
            case Reciprocal -> "(1.0f / " + x + ")";
            case ReLU -> "(" + x + " > 0.0f ? " + x + " : 0.0f)";
            case Round -> "rint(" + x + ")";
            case Sigmoid -> "p_sigmoid(" + x + ")";
            case SoftPlus -> {
                String b = lit(op.floatAttr("beta"));
                yield "(p_log1pexp(" + b + " * " + x + ") / " + b + ")";
            }
            case Sqrt -> "sqrt(" + x + ")";
            case Square -> "(" + x + " * " + x + ")";
            case Tanh -> "tanh(" + x + ")";
            case PartitaErf -> "erf(" + x + ")";
            default -> throw new IllegalArgumentException(op.describe() + " is not a unary elementwise op of the gpu engine");
        };
    }

    /** The expression of a binary op on {@code a} (input 0) and {@code b} (input 1). */
    public static String binary(OpKind k, String a, String b) {
        return switch (k) {
            case Add -> "(" + a + " + " + b + ")";
            case Subtract -> "(" + a + " - " + b + ")";
            case Multiply -> "(" + a + " * " + b + ")";
            case Divide -> "(" + a + " / " + b + ")";
            case Maximum -> "p_max(" + a + ", " + b + ")";
            case Minimum -> "p_min(" + a + ", " + b + ")";
            case SquaredDifference -> "((" + a + " - " + b + ") * (" + a + " - " + b + "))";
            default -> throw new IllegalArgumentException(k.spelling() + " is not a binary op of the gpu engine");
        };
    }

    /** An exact OpenCL C float literal. */
    public static String lit(float f) {
        if (Float.isNaN(f)) {
            return "NAN";
        }
        if (Float.isInfinite(f)) {
            return f > 0 ? "INFINITY" : "(-INFINITY)";
        }
        return "(" + Float.toHexString(f).toLowerCase(Locale.ROOT) + "f)";
    }
}
