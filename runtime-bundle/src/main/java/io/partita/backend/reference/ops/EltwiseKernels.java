package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Function;

import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;

/**
 * Reference kernels of the unary elementwise ops, forward and backward, in double precision.
 *
 * <p>Formulas follow oneDNN's eltwise definitions (the algorithms the Graph ops map to). Backward
 * kernels see input 0 ({@code x}: the forward src, or its dst where {@code use_dst} is true) and
 * {@code diff_dst} ({@code dd}) and give {@code diff_src}.
 */
public final class EltwiseKernels {
    private EltwiseKernels() {
    }

    /** HardSwish is oneDNN's hardswish with alpha = 1/6, beta = 1/2. */
    private static final double HARDSWISH_ALPHA = 1.0 / 6.0;
    private static final double HARDSWISH_BETA = 0.5;

    public static void register(BiConsumer<OpKind, RefOp> r) {
        // Forward.
        r.accept(OpKind.Abs, unary(Math::abs));
        r.accept(OpKind.Clamp, unaryOf(op -> {
            double min = op.floatAttr("min");
            double max = op.floatAttr("max");
            return x -> clamp(x, min, max);
        }));
        r.accept(OpKind.Elu, unaryOf(op -> {
            double alpha = op.floatAttr("alpha");
            return x -> x > 0 ? x : alpha * Math.expm1(x);
        }));
        r.accept(OpKind.Exp, unary(Math::exp));
        r.accept(OpKind.GELU, unaryOf(op -> isGeluTanh(op) ? EltwiseMath::geluTanh : EltwiseMath::geluErf));
        r.accept(OpKind.HardSigmoid, unaryOf(op -> {
            double alpha = op.floatAttr("alpha");
            double beta = op.floatAttr("beta");
            return x -> EltwiseMath.hardSigmoid(x, alpha, beta);
        }));
        r.accept(OpKind.HardSwish, unary(x -> x * EltwiseMath.hardSigmoid(x, HARDSWISH_ALPHA, HARDSWISH_BETA)));
        r.accept(OpKind.LeakyReLU, unaryOf(op -> {
            double alpha = op.floatAttr("alpha");
            return x -> x >= 0 ? x : alpha * x;
        }));
        r.accept(OpKind.Log, unary(Math::log));
        r.accept(OpKind.Mish, unary(x -> x * Math.tanh(EltwiseMath.softPlus(x, 1))));
        r.accept(OpKind.Reciprocal, unary(x -> 1 / x));
        r.accept(OpKind.ReLU, unary(x -> x > 0 ? x : 0));
        r.accept(OpKind.Round, unary(Math::rint));
        r.accept(OpKind.Sigmoid, unary(EltwiseMath::sigmoid));
        r.accept(OpKind.SoftPlus, unaryOf(op -> {
            double beta = op.floatAttr("beta");
            return x -> EltwiseMath.softPlus(x, beta);
        }));
        r.accept(OpKind.Sqrt, unary(Math::sqrt));
        r.accept(OpKind.Square, unary(x -> x * x));
        r.accept(OpKind.Tanh, unary(Math::tanh));
        r.accept(OpKind.PartitaErf, unary(EltwiseMath::erf));

        // Backward, from src.
        r.accept(OpKind.AbsBackward, backward((x, dd) -> x > 0 ? dd : x < 0 ? -dd : 0));
        r.accept(OpKind.GELUBackward, backwardOf(op -> isGeluTanh(op)
                ? (x, dd) -> dd * EltwiseMath.geluTanhDerivative(x)
                : (x, dd) -> dd * EltwiseMath.geluErfDerivative(x)));
        r.accept(OpKind.HardSigmoidBackward, backwardOf(op -> {
            double alpha = op.floatAttr("alpha");
            double beta = op.floatAttr("beta");
            return (x, dd) -> {
                double v = alpha * x + beta;
                return v > 0 && v < 1 ? dd * alpha : 0;
            };
        }));
        r.accept(OpKind.HardSwishBackward, backward((x, dd) -> {
            double v = HARDSWISH_ALPHA * x + HARDSWISH_BETA;
            return v <= 0 ? 0 : v >= 1 ? dd : dd * (2 * HARDSWISH_ALPHA * x + HARDSWISH_BETA);
        }));
        r.accept(OpKind.MishBackward, backward((x, dd) -> dd * EltwiseMath.mishDerivative(x)));
        r.accept(OpKind.SoftPlusBackward, backwardOf(op -> {
            double beta = op.floatAttr("beta");
            return (x, dd) -> dd * EltwiseMath.sigmoid(beta * x);
        }));

        // Backward, from src or (use_dst) from dst.
        r.accept(OpKind.ClampBackward, backwardOf(op -> {
            double min = op.floatAttr("min");
            double max = op.floatAttr("max");
            // The same window on src and on dst: dst is inside (min, max) exactly where src is.
            return (x, dd) -> x > min && x < max ? dd : 0;
        }));
        r.accept(OpKind.EluBackward, backwardOf(op -> {
            double alpha = op.floatAttr("alpha");
            return useDst(op)
                    ? (d, dd) -> d > 0 ? dd : dd * (d + alpha)
                    : (s, dd) -> s > 0 ? dd : dd * alpha * Math.exp(s);
        }));
        r.accept(OpKind.ReLUBackward, backward((x, dd) -> x > 0 ? dd : 0));
        r.accept(OpKind.SigmoidBackward, backwardOf(op -> useDst(op)
                ? (d, dd) -> dd * d * (1 - d)
                : (s, dd) -> {
                    double v = EltwiseMath.sigmoid(s);
                    return dd * v * (1 - v);
                }));
        r.accept(OpKind.SqrtBackward, backwardOf(op -> useDst(op)
                ? (d, dd) -> dd / (2 * d)
                : (s, dd) -> dd / (2 * Math.sqrt(s))));
        r.accept(OpKind.TanhBackward, backwardOf(op -> useDst(op)
                ? (d, dd) -> dd * (1 - d) * (1 + d)
                : (s, dd) -> {
                    double t = Math.tanh(s);
                    return dd * (1 - t) * (1 + t);
                }));
    }

    /** oneDNN's clip: {@code min(max(x, min), max)} (written with its comparisons). */
    static double clamp(double x, double min, double max) {
        double t = x > min ? x : min;
        return t < max ? t : max;
    }

    private static boolean isGeluTanh(Op op) {
        return op.hasAttr("mode") && "gelu_tanh".equals(op.stringAttr("mode"));
    }

    private static boolean useDst(Op op) {
        return op.hasAttr("use_dst") && op.boolAttr("use_dst");
    }

    /** A kernel applying f to every element of input 0. */
    static RefOp unary(DoubleUnaryOperator f) {
        return (RefContext ctx) -> {
            double[] src = ctx.in(0).data();
            double[] dst = ctx.out(0).data();
            for (int i = 0; i < src.length; i++) {
                dst[i] = f.applyAsDouble(src[i]);
            }
        };
    }

    /** A forward kernel whose function depends on the op's attributes. */
    static RefOp unaryOf(Function<Op, DoubleUnaryOperator> function) {
        return (RefContext ctx) -> unary(function.apply(ctx.op())).compute(ctx);
    }

    /** A backward kernel: diff_src[i] = f(input0[i], diff_dst[i]). */
    static RefOp backward(DoubleBinaryOperator f) {
        return backwardOf(op -> f);
    }

    /** A backward kernel whose formula depends on the op's attributes. */
    static RefOp backwardOf(Function<Op, DoubleBinaryOperator> formula) {
        return (RefContext ctx) -> {
            DoubleBinaryOperator f = formula.apply(ctx.op());
            double[] x = ctx.in(0).data();
            double[] dd = ctx.in(1).data();
            if (x.length != dd.length) {
                throw new InvalidArgumentException(ctx.op().describe() + ": input 0 has " + x.length
                        + " elements but diff_dst has " + dd.length + "; they must have the same dims");
            }
            double[] ds = ctx.out(0).data();
            for (int i = 0; i < x.length; i++) {
                ds[i] = f.applyAsDouble(x[i], dd[i]);
            }
        };
    }
}
