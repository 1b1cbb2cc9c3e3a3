package io.partita.backend.reference.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.testing.OpRunner;

/**
 * Reference kernels of the unary elementwise ops. Expected values are computed independently
 * (standard tables, Python's math module, and oneDNN's documented formulas, e.g. its closed form
 * of the Mish derivative), not by the code under test.
 */
class EltwiseKernelsTest {
    /** Seven values exactly representable in f32, bf16 and f16: an odd size on purpose. */
    private static final double[] X = {-3, -1, -0.5, 0, 0.5, 1, 2};
    /** diff_dst for the backward ops (also exact in every floating type). */
    private static final double[] DD = {0.5, -2, 1.5, 1, -1, 2, 0.25};

    // ---------------------------------------------------------------- helpers

    private static double[] fwd(OpKind kind, UnaryOperator<Op.Builder> attrs, double[] x, long... dims) {
        return fwd(kind, DataType.F32, attrs, x, dims);
    }

    private static double[] fwd(OpKind kind, DataType dt, UnaryOperator<Op.Builder> attrs, double[] x, long... dims) {
        long[] d = dims.length == 0 ? new long[] {x.length} : dims;
        Op op = attrs.apply(Op.builder(0, kind)
                .input(LogicalTensor.of(0, dt, d))
                .output(LogicalTensor.of(1, dt, d))).build();
        return OpRunner.run(op, x).get(0);
    }

    private static double[] fwd(OpKind kind, double... x) {
        return fwd(kind, b -> b, x);
    }

    private static double[] bwd(OpKind kind, UnaryOperator<Op.Builder> attrs, double[] x, double[] dd, long... dims) {
        return bwd(kind, DataType.F32, attrs, x, dd, dims);
    }

    private static double[] bwd(OpKind kind, DataType dt, UnaryOperator<Op.Builder> attrs, double[] x, double[] dd,
            long... dims) {
        long[] d = dims.length == 0 ? new long[] {x.length} : dims;
        Op op = attrs.apply(Op.builder(0, kind)
                .inputs(LogicalTensor.of(0, dt, d), LogicalTensor.of(1, dt, d))
                .output(LogicalTensor.of(2, dt, d))).build();
        return OpRunner.run(op, x, dd).get(0);
    }

    /** Outputs are f32: compare to 1e-6 relative (inputs and outputs both pass through f32). */
    private static void assertClose(double[] expected, double[] actual) {
        assertEquals(expected.length, actual.length, "element count");
        for (int i = 0; i < expected.length; i++) {
            double tol = 1e-6 * Math.abs(expected[i]) + 1e-30;
            assertTrue(Math.abs(expected[i] - actual[i]) <= tol,
                    "element " + i + ": expected " + expected[i] + " but got " + actual[i]);
        }
    }

    private static double[] times(double[] a, double[] b) {
        double[] r = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i] * b[i];
        }
        return r;
    }

    // ---------------------------------------------------------------- forward, no attributes

    @Test
    void abs() {
        assertClose(new double[] {3, 1, 0.5, 0, 0.5, 1, 2}, fwd(OpKind.Abs, X));
    }

    @Test
    void exp() {
        assertClose(new double[] {0.049787068367863944, 0.36787944117144233, 0.6065306597126334, 1.0,
                1.6487212707001282, 2.718281828459045, 7.38905609893065}, fwd(OpKind.Exp, X));
    }

    @Test
    void log() {
        assertClose(new double[] {-1.3862943611198906, -0.6931471805599453, 0, 0.6931471805599453,
                2.0794415416798357}, fwd(OpKind.Log, 0.25, 0.5, 1, 2, 8));
    }

    @Test
    void relu() {
        assertClose(new double[] {0, 0, 0, 0, 0.5, 1, 2}, fwd(OpKind.ReLU, X));
    }

    @Test
    void sigmoid() {
        assertClose(new double[] {0.04742587317756678, 0.2689414213699951, 0.3775406687981454, 0.5,
                0.6224593312018546, 0.7310585786300049, 0.8807970779778823}, fwd(OpKind.Sigmoid, X));
        // far tails stay finite (no overflow of e^-x): sigmoid(-50) = 1.9287498479639178e-22
        assertClose(new double[] {1.9287498479639178e-22, 1}, fwd(OpKind.Sigmoid, -50, 50));
    }

    @Test
    void tanh() {
        assertClose(new double[] {-0.9950547536867305, -0.7615941559557649, -0.46211715726000974, 0,
                0.46211715726000974, 0.7615941559557649, 0.9640275800758169}, fwd(OpKind.Tanh, X));
    }

    @Test
    void sqrt() {
        assertClose(new double[] {0.5, 1, 1.4142135623730951, 3}, fwd(OpKind.Sqrt, 0.25, 1, 2, 9));
    }

    @Test
    void square() {
        assertClose(new double[] {9, 1, 0.25, 0, 0.25, 1, 4}, fwd(OpKind.Square, X));
    }

    @Test
    void reciprocal() {
        assertClose(new double[] {-0.25, -2, 2, 1.0 / 3, 0.125}, fwd(OpKind.Reciprocal, -4, -0.5, 0.5, 3, 8));
    }

    @Test
    void roundIsHalfToEven() {
        double[] x = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.25, 2.75, -2.75, 3.5};
        double[] expected = {-2, -2, -0.0, 0, 2, 2, 0, 3, -3, 4};
        double[] got = fwd(OpKind.Round, x);
        assertClose(expected, got);
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(got[2]), "round(-0.5) is -0");
    }

    @Test
    void hardSwish() {
        // x * min(max(x + 3, 0), 6) / 6
        assertClose(new double[] {0, 0, -1.0 / 3, 0, 2.0 / 3, 5.0 / 3, 3, 4},
                fwd(OpKind.HardSwish, -4, -3, -1, 0, 1, 2, 3, 4));
    }

    @Test
    void mish() {
        assertClose(new double[] {-0.14564746127562428, -0.30340146137410895, -0.22074377465173, 0,
                0.3752452113048951, 0.8650983882673103, 1.9439589595339946}, fwd(OpKind.Mish, X));
        // large inputs: mish(x) ~ x, no overflow of e^x
        assertClose(new double[] {100, -0.0}, fwd(OpKind.Mish, 100, -200));
    }

    // ---------------------------------------------------------------- forward with attributes

    @Test
    void clamp() {
        double[] got = fwd(OpKind.Clamp, b -> b.attr("min", -0.5f).attr("max", 1.5f), new double[] {-1, -0.5, 0.25, 1.5,
                2});
        assertClose(new double[] {-0.5, -0.5, 0.25, 1.5, 1.5}, got);
        // min == max collapses everything (the corpus uses min = max = 0)
        assertClose(new double[] {0, 0, 0}, fwd(OpKind.Clamp, b -> b.attr("min", 0f).attr("max", 0f),
                new double[] {-1, 0, 3}));
    }

    @Test
    void elu() {
        assertClose(new double[] {-0.475106465816068, -0.31606027941427883, -0.1967346701436833, 0, 0.5, 1, 2},
                fwd(OpKind.Elu, b -> b.attr("alpha", 0.5f), X));
        // alpha = 0 is relu
        assertClose(new double[] {0, 0, 0, 0, 0.5, 1, 2}, fwd(OpKind.Elu, b -> b.attr("alpha", 0f), X));
    }

    @Test
    void leakyRelu() {
        assertClose(new double[] {-0.75, -0.25, -0.125, 0, 0.5, 1, 2},
                fwd(OpKind.LeakyReLU, b -> b.attr("alpha", 0.25f), X));
        // any f32 alpha, also negative
        assertClose(new double[] {6, 2, 1, 0, 0.5, 1, 2}, fwd(OpKind.LeakyReLU, b -> b.attr("alpha", -2f), X));
    }

    @Test
    void hardSigmoid() {
        // max(0, min(1, 0.25 x + 0.5)), boundaries at x = -2 and x = 2
        assertClose(new double[] {0, 0, 0.25, 0.5, 0.75, 1, 1},
                fwd(OpKind.HardSigmoid, b -> b.attr("alpha", 0.25f).attr("beta", 0.5f),
                        new double[] {-3, -2, -1, 0, 1, 2, 3}));
        // the corpus file's alpha = 0, beta = 1: constant 1
        assertClose(new double[] {1, 1, 1}, fwd(OpKind.HardSigmoid, b -> b.attr("alpha", 0f).attr("beta", 1f),
                new double[] {-5, 0, 5}));
    }

    @Test
    void softPlusBetaDefaultAndOthers() {
        assertClose(new double[] {0.04858735157374196, 0.31326168751822286, 0.4740769841801067, 0.6931471805599453,
                0.9740769841801067, 1.3132616875182228, 2.1269280110429727}, fwd(OpKind.SoftPlus, X));
        assertClose(new double[] {0.0012378425688651786, 0.0634640055214863, 0.15663084375911143,
                0.34657359027997264, 0.6566308437591114, 1.0634640055214863, 2.0090749639589047},
                fwd(OpKind.SoftPlus, b -> b.attr("beta", 2f), X));
        // beta = -1 is log-sigmoid
        assertClose(new double[] {-3.048587351573742, -1.3132616875182228, -0.9740769841801067,
                -0.6931471805599453, -0.4740769841801067, -0.31326168751822286, -0.1269280110429726},
                fwd(OpKind.SoftPlus, b -> b.attr("beta", -1f), X));
        // no overflow for large beta * x
        assertClose(new double[] {200, 0}, fwd(OpKind.SoftPlus, b -> b.attr("beta", 1f), new double[] {200, -800}));
    }

    @Test
    void geluErfIsTheDefaultMode() {
        // 0.5 x (1 + erf(x / sqrt 2)) = x Phi(x)
        double[] expected = {-0.00404969409489031, -0.15865525393145707, -0.15426876936299344, 0,
                0.34573123063700656, 0.8413447460685429, 1.9544997361036416};
        assertClose(expected, fwd(OpKind.GELU, X));
        assertClose(expected, fwd(OpKind.GELU, b -> b.attr("mode", "gelu_erf"), X));
        // tails: x Phi(x) with Phi(-6) = 9.865876450376946e-10, Phi(4) = 0.9999683287581669
        assertClose(new double[] {-6 * 9.865876450376946e-10, 4 * 0.9999683287581669},
                fwd(OpKind.GELU, -6, 4));
    }

    @Test
    void geluTanh() {
        assertClose(new double[] {-0.0036373920817729943, -0.15880800939172324, -0.15428599017485606, 0,
                0.34571400982514394, 0.8411919906082768, 1.954597694087775},
                fwd(OpKind.GELU, b -> b.attr("mode", "gelu_tanh"), X));
    }

    // ---------------------------------------------------------------- backward from src

    @Test
    void absBackward() {
        assertClose(new double[] {-0.5, 2, -1.5, 0, -1, 2, 0.25}, bwd(OpKind.AbsBackward, b -> b, X, DD));
    }

    @Test
    void geluBackwardBothModes() {
        assertClose(new double[] {-0.005972823602091959, 0.16663094117537258, 0.19875731301575567, 0.5,
                -0.8674951246561629, 2.166630941175373, 0.27130795026954924},
                bwd(OpKind.GELUBackward, b -> b, X, DD));
        assertClose(new double[] {-0.005792083315484824, 0.1659281676915651, 0.19894514469803642, 0.5,
                -0.8673699035346424, 2.165928167691565, 0.27152481415590457},
                bwd(OpKind.GELUBackward, b -> b.attr("mode", "gelu_tanh"), X, DD));
    }

    @Test
    void hardSigmoidBackward() {
        // d/dx = alpha strictly inside 0 < alpha x + beta < 1, else 0 (boundaries at x = -2, 2)
        double[] x = {-3, -2, -1, 0, 1, 2, 3};
        assertClose(new double[] {0, 0, 1.5 * 0.25, 1 * 0.25, -1 * 0.25, 0, 0},
                bwd(OpKind.HardSigmoidBackward, b -> b.attr("alpha", 0.25f).attr("beta", 0.5f), x, DD));
    }

    @Test
    void hardSwishBackward() {
        // 0 for x <= -3, dd for x >= 3, dd (2x + 3) / 6 between
        double[] x = {-4, -3, -1, 0, 1, 3, 4};
        assertClose(new double[] {0, 0, 1.5 / 6, 0.5, -5.0 / 6, 2, 0.25},
                bwd(OpKind.HardSwishBackward, b -> b, x, DD));
    }

    @Test
    void mishBackward() {
        // oneDNN's closed form: dd e^x w / d^2, w = e^3x + 4e^2x + e^x(4x + 6) + 4(x + 1), d = e^2x + 2e^x + 2
        assertClose(new double[] {-0.04669655726616042, -0.1184335117547899, 0.43426601687026833, 0.6,
                -0.8864243753577276, 2.0980724401995836, 0.2673294835698724},
                bwd(OpKind.MishBackward, b -> b, X, DD));
    }

    @Test
    void softPlusBackward() {
        // dd * sigmoid(beta x); beta = -1 (the corpus value): dd / (1 + e^x)
        assertClose(new double[] {0.4762870634112167, -1.4621171572600098, 0.9336889968027818, 0.5,
                -0.3775406687981454, 0.5378828427399902, 0.029800730505529387},
                bwd(OpKind.SoftPlusBackward, b -> b.attr("beta", -1f), X, DD));
        // default beta = 1: dd * sigmoid(x)
        double[] sig = {0.04742587317756678, 0.2689414213699951, 0.3775406687981454, 0.5, 0.6224593312018546,
                0.7310585786300049, 0.8807970779778823};
        assertClose(times(sig, DD), bwd(OpKind.SoftPlusBackward, b -> b, X, DD));
    }

    // ---------------------------------------------------------------- backward, use_dst

    @Test
    void reluBackwardFromSrcAndDst() {
        double[] expected = {0, 0, 0, 0, -1, 2, 0.25};
        assertClose(expected, bwd(OpKind.ReLUBackward, b -> b.attr("use_dst", false), X, DD));
        // relu's dst is > 0 exactly where its src is
        assertClose(expected, bwd(OpKind.ReLUBackward, b -> b, new double[] {0, 0, 0, 0, 0.5, 1, 2}, DD));
    }

    @Test
    void sigmoidBackwardFromSrcAndDst() {
        assertClose(new double[] {0.02258832986545607, -0.3932238664829637, 0.3525055683023917, 0.25,
                -0.2350037122015945, 0.3932238664829637, 0.026248396350876654},
                bwd(OpKind.SigmoidBackward, b -> b.attr("use_dst", false), X, DD));
        // from dst (the default): dd d (1 - d)
        double[] d = {0.25, 0.5, 0.75, 1, 0, 0.125, -1};
        assertClose(new double[] {0.09375, -0.5, 0.28125, 0, 0, 0.21875, -0.5},
                bwd(OpKind.SigmoidBackward, b -> b, d, DD));
    }

    @Test
    void tanhBackwardFromSrcAndDst() {
        assertClose(new double[] {0.004933018582720106, -0.8399486832280523, 1.179671599448891, 1.0,
                -0.7864477329659274, 0.8399486832280523, 0.017662706213291107},
                bwd(OpKind.TanhBackward, b -> b.attr("use_dst", false), X, DD));
        // from dst: dd (1 - d^2)
        double[] d = {0.5, -0.5, 0, 1, -1, 0.25, 0.75};
        assertClose(new double[] {0.375, -1.5, 1.5, 0, 0, 1.875, 0.109375},
                bwd(OpKind.TanhBackward, b -> b.attr("use_dst", true), d, DD));
    }

    @Test
    void sqrtBackwardFromSrcAndDst() {
        double[] s = {0.25, 1, 4, 16, 0.0625};
        double[] dd = {1, 1, -2, 8, 0.5};
        // dd / (2 sqrt(s))
        assertClose(new double[] {1, 0.5, -0.5, 1, 1}, bwd(OpKind.SqrtBackward, b -> b.attr("use_dst", false), s, dd));
        // from dst: dd / (2 d)
        assertClose(new double[] {2, 0.5, -0.25, 0.25, 4}, bwd(OpKind.SqrtBackward, b -> b, s, dd));
    }

    @Test
    void eluBackwardFromSrcAndDst() {
        assertClose(new double[] {0.012446767091965986, -0.36787944117144233, 0.45489799478447507, 0.5, -1, 2, 0.25},
                bwd(OpKind.EluBackward, b -> b.attr("alpha", 0.5f).attr("use_dst", false), X, DD));
        // from dst: dd for d > 0, dd (d + alpha) otherwise
        double[] d = {-0.25, -0.5, 0, 1, 0.5, -0.125, 3};
        assertClose(new double[] {0.125, 0, 0.75, 1, -1, 0.75, 0.25},
                bwd(OpKind.EluBackward, b -> b.attr("alpha", 0.5f), d, DD));
    }

    @Test
    void clampBackwardFromSrcAndDst() {
        // gradient passes strictly inside (min, max) only
        double[] x = {-1, -0.5, 0, 0.5, 1.5, 2, 1};
        double[] expected = {0, 0, 1.5, 1, 0, 0, 0.25};
        assertClose(expected, bwd(OpKind.ClampBackward,
                b -> b.attr("min", -0.5f).attr("max", 1.5f).attr("use_dst", false), x, DD));
        // from dst: clamped values sit on the bounds and get no gradient
        double[] d = {-0.5, -0.5, 0, 0.5, 1.5, 1.5, 1};
        assertClose(expected, bwd(OpKind.ClampBackward, b -> b.attr("min", -0.5f).attr("max", 1.5f), d, DD));
    }

    // ---------------------------------------------------------------- shapes and data types

    @Test
    void higherRankOddShapes() {
        double[] x = new double[3 * 5 * 7];
        double[] dd = new double[x.length];
        double[] expected = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = (i - 52) / 8.0;
            dd[i] = (i % 5) - 2;
            expected[i] = x[i] > 0 ? dd[i] : x[i] < 0 ? -dd[i] : 0;
        }
        assertClose(expected, bwd(OpKind.AbsBackward, b -> b, x, dd, 3, 1, 5, 7));
        double[] sq = fwd(OpKind.Square, b -> b, x, 1, 3, 5, 1, 7);
        for (int i = 0; i < x.length; i++) {
            assertEquals(x[i] * x[i], sq[i], 0, "element " + i);
        }
    }

    @Test
    void everyKindRunsInBf16AndF16() {
        // Each kind's bf16/f16 result equals its f32 result up to the narrower type's rounding.
        List<OpKind> forward = List.of(OpKind.Abs, OpKind.Exp, OpKind.GELU, OpKind.HardSwish, OpKind.Mish,
                OpKind.ReLU, OpKind.Round, OpKind.Sigmoid, OpKind.Square, OpKind.Tanh);
        for (DataType dt : List.of(DataType.BF16, DataType.F16)) {
            double rel = dt == DataType.BF16 ? 1.0 / 128 : 1.0 / 1024;
            for (OpKind k : forward) {
                check(k, dt, rel, fwd(k, b -> b, X), fwd(k, dt, b -> b, X, X.length));
            }
            double[] pos = {0.25, 0.5, 1, 2, 4, 8, 1.5};
            for (OpKind k : List.of(OpKind.Log, OpKind.Sqrt, OpKind.Reciprocal)) {
                check(k, dt, rel, fwd(k, b -> b, pos), fwd(k, dt, b -> b, pos, pos.length));
            }
            UnaryOperator<Op.Builder> clamp = b -> b.attr("min", -0.5f).attr("max", 1f);
            check(OpKind.Clamp, dt, rel, fwd(OpKind.Clamp, clamp, X), fwd(OpKind.Clamp, dt, clamp, X, X.length));
            UnaryOperator<Op.Builder> alpha = b -> b.attr("alpha", 0.5f);
            for (OpKind k : List.of(OpKind.Elu, OpKind.LeakyReLU)) {
                check(k, dt, rel, fwd(k, alpha, X), fwd(k, dt, alpha, X, X.length));
            }
            UnaryOperator<Op.Builder> hs = b -> b.attr("alpha", 0.25f).attr("beta", 0.5f);
            check(OpKind.HardSigmoid, dt, rel, fwd(OpKind.HardSigmoid, hs, X),
                    fwd(OpKind.HardSigmoid, dt, hs, X, X.length));
            check(OpKind.SoftPlus, dt, rel, fwd(OpKind.SoftPlus, b -> b, X),
                    fwd(OpKind.SoftPlus, dt, b -> b, X, X.length));
            for (OpKind k : List.of(OpKind.AbsBackward, OpKind.GELUBackward, OpKind.HardSwishBackward,
                    OpKind.MishBackward, OpKind.ReLUBackward, OpKind.SigmoidBackward, OpKind.TanhBackward,
                    OpKind.SoftPlusBackward)) {
                check(k, dt, rel, bwd(k, b -> b, X, DD), bwd(k, dt, b -> b, X, DD, X.length));
            }
            check(OpKind.SqrtBackward, dt, rel, bwd(OpKind.SqrtBackward, b -> b, pos, DD),
                    bwd(OpKind.SqrtBackward, dt, b -> b, pos, DD, pos.length));
            check(OpKind.EluBackward, dt, rel, bwd(OpKind.EluBackward, alpha, X, DD),
                    bwd(OpKind.EluBackward, dt, alpha, X, DD, X.length));
            check(OpKind.HardSigmoidBackward, dt, rel, bwd(OpKind.HardSigmoidBackward, hs, X, DD),
                    bwd(OpKind.HardSigmoidBackward, dt, hs, X, DD, X.length));
            check(OpKind.ClampBackward, dt, rel, bwd(OpKind.ClampBackward, clamp, X, DD),
                    bwd(OpKind.ClampBackward, dt, clamp, X, DD, X.length));
        }
    }

    private static void check(OpKind k, DataType dt, double rel, double[] f32, double[] narrow) {
        for (int i = 0; i < f32.length; i++) {
            assertTrue(Math.abs(f32[i] - narrow[i]) <= rel * Math.abs(f32[i]) + 1e-30,
                    k + " " + dt + " element " + i + ": f32 " + f32[i] + " vs " + narrow[i]);
        }
    }

    // ---------------------------------------------------------------- erf

    @Test
    void erfMatchesTables() {
        double[][] table = {{0, 0}, {0.1, 0.1124629160182849}, {0.5, 0.5204998778130465}, {1, 0.8427007929497149}, {1.5, 0.9661051464753108},
                {2, 0.9953222650189527}, {2.9, 0.9999589021219005}, {3.5, 0.9999992569016276},
                {5, 0.9999999999984626}, {7, 1}};
        for (double[] t : table) {
            assertEquals(t[1], EltwiseMath.erf(t[0]), 2e-15, "erf(" + t[0] + ")");
            assertEquals(-t[1], EltwiseMath.erf(-t[0]), 2e-15, "erf(" + -t[0] + ")");
        }
        // the continued fraction keeps relative accuracy in the tail: erfc(2), erfc(3), erfc(4), erfc(5)
        assertEquals(0.004677734981047266, EltwiseMath.erfcLarge(2), 1e-13 * 4.7e-3);
        assertEquals(2.209049699858544e-05, EltwiseMath.erfcLarge(3), 1e-13 * 2.2e-5);
        assertEquals(1.541725790028002e-08, EltwiseMath.erfcLarge(4), 1e-13 * 1.5e-8);
        assertEquals(1.5374597944280349e-12, EltwiseMath.erfcLarge(5), 1e-13 * 1.5e-12);
        assertTrue(Double.isNaN(EltwiseMath.erf(Double.NaN)));
    }
}
