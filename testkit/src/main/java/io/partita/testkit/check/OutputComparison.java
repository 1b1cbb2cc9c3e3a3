package io.partita.testkit.check;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongToDoubleFunction;

import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.ElementCodec;
import io.partita.graph.Engine;
import io.partita.graph.FpMathMode;
import io.partita.graph.Graph;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * Compares an output with the reference output. An element matches when
 * {@code |a - e| <= atol + rtol * max(|e|, scale)} where {@code scale} is a fraction of the largest
 * magnitude in the expected tensor: accumulating in the data type's precision makes errors grow
 * with the size of the partial sums, not with the (possibly cancelled) result. NaN matches NaN,
 * infinities must be equal; tolerances follow the data type's precision (s8/u8: one quantization
 * step).
 *
 * <p>With an {@link ErrorBound} (f32 outputs of strict f32 graphs), an element is instead judged
 * against the error f32 arithmetic allows for this graph and these inputs, see {@link #errorBound}.
 */
public final class OutputComparison {
    private OutputComparison() {
    }

    /** The outcome: whether every element matched, and the worst element. */
    public record Result(boolean matches, long elements, long mismatches, long worstIndex, double expected, double actual,
            double absError, double relError, double allowed) {

        public String describe() {
            if (elements == 0) {
                return "empty";
            }
            return (matches ? "match" : mismatches + " of " + elements + " elements differ")
                    + String.format(" (worst at %d: expected %.6g got %.6g, abs err %.3g, rel err %.3g, allowed %.3g)",
                            worstIndex, expected, actual, absError, relError, allowed);
        }
    }

    /** Absolute and relative tolerance per data type. */
    public static double[] tolerance(DataType dt) {
        return switch (dt) {
            case F32 -> new double[] {1e-5, 1e-4};
            case BF16 -> new double[] {1e-2, 2e-2};
            case F16 -> new double[] {1e-3, 4e-3};
            case F8_E4M3, F8_E5M2 -> new double[] {6e-2, 0.13};
            // Only the reference backend runs f64 (in double): summation order is all that differs.
            case F64 -> new double[] {1e-12, 1e-10};
            // Quantized outputs: a value computed in f32 on one side of a rounding tie and in double
            // on the other differs by one step (benchdnn allows the same for int8 destinations).
            case S8, U8 -> new double[] {1, 0};
            default -> new double[] {0, 0};
        };
    }

    /** The fraction of the largest expected magnitude below which errors are judged absolutely. */
    static final double SCALE_FRACTION = 0.1;

    /**
     * Compares with the data type's tolerances, reading the elements from the tensors' memory (no
     * copy of either tensor on the heap).
     */
    public static Result compare(Tensor expected, Tensor actual) {
        double[] t = tolerance(expected.logicalTensor().dataType());
        long n = expected.logicalTensor().elementCount();
        long m = actual.logicalTensor().elementCount();
        if (n != m) {
            return sizeMismatch(n, m);
        }
        return compare(n, elements(expected), elements(actual), t[0], t[1]);
    }

    public static Result compare(double[] e, double[] a, double atol, double rtol) {
        if (e.length != a.length) {
            return sizeMismatch(e.length, a.length);
        }
        return compare(e.length, i -> e[(int) i], i -> a[(int) i], atol, rtol);
    }

    private static Result compare(long n, LongToDoubleFunction e, LongToDoubleFunction a, double atol, double rtol) {
        double scale = relativeScale(n, e);
        return judge(n, e, a, (i, x) -> atol + rtol * Math.max(Math.abs(x), scale));
    }

    /** Below this magnitude errors are judged absolutely: a fraction of the largest finite expected value. */
    private static double relativeScale(long n, LongToDoubleFunction e) {
        double maxAbs = 0;
        for (long i = 0; i < n; i++) {
            double x = e.applyAsDouble(i);
            if (Double.isFinite(x)) {
                maxAbs = Math.max(maxAbs, Math.abs(x));
            }
        }
        return SCALE_FRACTION * maxAbs;
    }

    private static Result sizeMismatch(long expected, long actual) {
        return new Result(false, expected, Math.max(expected, actual), -1, expected, actual, Double.NaN, Double.NaN,
                Double.NaN);
    }

    /** The absolute error allowed at an index, given the expected value there. */
    @FunctionalInterface
    private interface Allowance {
        double at(long index, double expected);
    }

    /** Judges every element against the absolute error {@code allowed} gives for its index. */
    private static Result judge(long n, LongToDoubleFunction e, LongToDoubleFunction a, Allowance allowed) {
        long bad = 0;
        long worst = n == 0 ? -1 : 0;
        double worstScore = -1;
        double worstAbs = 0;
        double worstRel = 0;
        double worstAllowed = 0;
        double worstExpected = 0;
        double worstActual = 0;
        for (long i = 0; i < n; i++) {
            double x = e.applyAsDouble(i);
            double y = a.applyAsDouble(i);
            double limit = allowed.at(i, x);
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
                ok = abs <= limit;
            }
            double score = Double.isInfinite(abs) ? Double.POSITIVE_INFINITY : abs / (limit + 1e-300);
            if (!ok) {
                bad++;
            }
            if (score > worstScore) {
                worstScore = score;
                worst = i;
                worstAbs = abs;
                worstRel = x == 0 ? (abs == 0 ? 0 : Double.POSITIVE_INFINITY) : abs / Math.abs(x);
                worstAllowed = limit;
                worstExpected = x;
                worstActual = y;
            }
        }
        return new Result(bad == 0, n, bad, worst, worstExpected, worstActual, worstAbs, worstRel, worstAllowed);
    }

    /**
     * Element {@code i} in logical row-major order, read from the tensor's memory: dense tensors by
     * index, strided ones through their strides.
     */
    static LongToDoubleFunction elements(Tensor t) {
        LogicalTensor lt = t.logicalTensor();
        if (lt.layoutType() != LayoutType.STRIDED) {
            throw new InvalidArgumentException("tensor " + lt.id() + " has layout " + lt.layoutType()
                    + "; element access needs a strided layout");
        }
        DataType dt = lt.dataType();
        MemorySegment seg = t.data();
        if (lt.isDense()) {
            return i -> ElementCodec.get(dt, seg, i);
        }
        long[] dims = lt.dims();
        long[] strides = lt.strides();
        return i -> {
            long off = 0;
            long rest = i;
            for (int d = dims.length - 1; d >= 0; d--) {
                off += rest % dims[d] * strides[d];
                rest /= dims[d];
            }
            return ElementCodec.get(dt, seg, off);
        };
    }

    /**
     * Error bounds for the f32 outputs of one computation. {@code magnitudes} holds, by output
     * tensor id, the sum of the magnitudes of the terms each element is made of (for a dot product
     * {@code Σ|a_i·b_i|}); {@code roundings} bounds how many f32 roundings a term passes through
     * (the accumulation lengths of the graph's ops added up, plus the result's own rounding).
     * {@code deviations} holds, by output tensor id, the probabilistic rounding-error scale
     * {@code u·sqrt(W)} of each element (see {@link RoundingErrorModel}), for graphs the worst-case
     * bound does not cover.
     */
    public record ErrorBound(long roundings, Map<Long, double[]> magnitudes, Map<Long, double[]> deviations) {
        /** No bound derived: every output is compared with the data type's tolerances. */
        public static final ErrorBound NONE = new ErrorBound(0, Map.of(), Map.of());

        /** A worst-case bound: {@code roundings · u · magnitude} per element. */
        public ErrorBound(long roundings, Map<Long, double[]> magnitudes) {
            this(roundings, magnitudes, Map.of());
        }

        /** A probabilistic bound: {@code deviation} per element, see {@link #compareDeviations}. */
        static ErrorBound ofDeviations(Map<Long, double[]> deviations) {
            return new ErrorBound(0, Map.of(), deviations);
        }
    }

    /** Unit roundoff of f32, round to nearest. */
    static final double F32_UNIT_ROUNDOFF = 0x1p-24;

    /**
     * Slack on the bound: the reference is itself rounded to f32 once, and the first-order bound
     * drops the (tiny) second-order terms.
     */
    static final double BOUND_FACTOR = 2;

    /**
     * Ops for which running on {@code |inputs|} gives, per output element, at least the sum of
     * magnitudes of the terms the element is computed from, and whose f32 rounding errors stay
     * within one unit roundoff of that sum per accumulated term: sums of products and ops that
     * select or move values. Subtract, Minimum, Clamp or any transcendental op break the first
     * property ({@code |a| - |b|}, {@code min} and a clamped value can be smaller than the
     * magnitudes behind the value) and normalizations divide by a computed value, so graphs with
     * them keep the tolerances by data type.
     */
    private static final Set<OpKind> SUMS_OF_PRODUCTS = EnumSet.of(OpKind.MatMul, OpKind.Convolution, OpKind.Add,
            OpKind.BiasAdd, OpKind.Multiply, OpKind.ReLU, OpKind.Maximum, OpKind.MaxPool, OpKind.AvgPool,
            OpKind.Reorder, OpKind.StaticReshape, OpKind.StaticTranspose, OpKind.Concat, OpKind.End);

    /**
     * Derives error bounds for the f32 outputs of a graph by running the reference once more, on
     * the absolute values of the f32 inputs. Why a bound rather than a fixed relative tolerance:
     * summing k terms in f32 (any order, with or without FMA) gives
     * {@code |computed - exact| <= k·u·Σ|terms|} to first order (Higham, Accuracy and Stability of
     * Numerical Algorithms, §4.2), so a long reduction whose terms cancel can be far off in
     * relative terms while as accurate as f32 allows, and a short one is held much tighter than a
     * fixed tolerance would. Why not benchdnn's inputs whose f32 sums are exact: the CLI checks
     * graphs with model constants that cannot be chosen, and exact inputs would hide precision
     * loss that only shows on real values. For a sum of products the reference run on
     * {@code |inputs|} yields {@code Σ|terms|} per element without knowing the op.
     *
     * <p>That worst case is only used for one reduction (MatMul, Convolution, AvgPool): with more,
     * it propagates the first one's error through {@code |W|} of the next and grows by about
     * {@code sqrt(k)} per layer over what happens with random signs (a 3-layer MLP allows ~40x its
     * largest value), which checks nothing. Other graphs (several reductions, SoftMax, Divide,
     * Subtract; see {@link RoundingErrorModel}) get the probabilistic error scale of each element,
     * which grows with the square root of the roundings and carries the graph's conditioning: in
     * attention, scores in the hundreds make the SoftMax turn their f32 rounding (absolute, ~1e-4)
     * into relative errors of the probabilities that the fixed 1e-4 tolerance cannot absorb. The
     * fixed tolerance stays the floor there. For ops neither covers, non-f32 tensors, or a graph
     * allowed lower-precision math, this returns {@link ErrorBound#NONE} and the data type's
     * tolerances apply.
     *
     * <p>Call it before executing {@code reference} for the expected values: an execute
     * overwrites the outputs of the previous one.
     *
     * @param graph the finalized graph {@code reference} was compiled from
     */
    public static ErrorBound errorBound(Graph graph, CompiledGraph reference, Map<Long, Tensor> inputs, Engine engine) {
        if (graph.fpMathMode() != FpMathMode.STRICT) {
            return ErrorBound.NONE;
        }
        long roundings = worstCaseRoundings(graph);
        if (roundings < 0) {
            Map<Long, double[]> deviations = RoundingErrorModel.deviations(graph, reference, inputs, engine);
            return deviations == null ? ErrorBound.NONE : ErrorBound.ofDeviations(deviations);
        }
        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> absolute = new HashMap<>();
            for (Map.Entry<Long, Tensor> e : inputs.entrySet()) {
                // Byte for byte (f32 only here: no rounding), then the sign bits cleared in place.
                Tensor t = e.getValue();
                Tensor a = Tensor.allocate(t.logicalTensor(), engine, arena);
                MemorySegment.copy(t.data(), 0, a.data(), 0, t.logicalTensor().memSize());
                MemorySegment seg = a.data();
                for (long off = 0; off + Float.BYTES <= seg.byteSize(); off += Float.BYTES) {
                    seg.set(ValueLayout.JAVA_FLOAT_UNALIGNED, off, Math.abs(seg.get(ValueLayout.JAVA_FLOAT_UNALIGNED, off)));
                }
                absolute.put(e.getKey(), a);
            }
            Map<Long, double[]> magnitudes = new HashMap<>();
            for (Map.Entry<Long, Tensor> e : reference.execute(new Stream(engine), absolute).entrySet()) {
                magnitudes.put(e.getKey(), e.getValue().toDoubleArray());
            }
            return new ErrorBound(roundings, magnitudes);
        }
    }

    /**
     * The roundings of the worst-case bound when the graph is a strict f32 sum of products with at
     * most one reduction, else -1.
     */
    private static long worstCaseRoundings(Graph graph) {
        long roundings = 1;
        int reductions = 0;
        for (Op op : graph.ops()) {
            if (!SUMS_OF_PRODUCTS.contains(op.kind())) {
                return -1;
            }
            for (LogicalTensor t : op.inputs()) {
                if (t.dataType() != DataType.F32) {
                    return -1;
                }
            }
            for (LogicalTensor t : op.outputs()) {
                if (t.dataType() != DataType.F32) {
                    return -1;
                }
            }
            long k = accumulationLength(op);
            if (k < 1 || k > 1 && ++reductions > 1) {
                return -1;
            }
            roundings += k;
        }
        return roundings;
    }

    /** How many products one output element of the op sums, or 0 when its dims are not known. */
    static long accumulationLength(Op op) {
        return switch (op.kind()) {
            case MatMul -> {
                long[] a = op.input(0).dims();
                if (a == null || a.length == 0) {
                    yield 0;
                }
                boolean transposed = a.length > 1 && op.hasAttr("transpose_a") && op.boolAttr("transpose_a");
                yield Math.max(0, a[transposed ? a.length - 2 : a.length - 1]);
            }
            case Convolution -> {
                // weights are OIX or XIO with I already divided by the groups: count / O terms per output
                long[] w = op.input(1).dims();
                if (w == null || w.length < 2 || !op.input(1).isConcrete()) {
                    yield 0;
                }
                boolean oFirst = op.hasAttr("weights_format") && "OIX".equals(op.stringAttr("weights_format"));
                long o = w[oFirst ? 0 : w.length - 1];
                yield o <= 0 ? 0 : op.input(1).elementCount() / o;
            }
            case AvgPool -> {
                long k = 1;
                for (long d : op.longsAttr("kernel")) {
                    k *= d;
                }
                yield k;
            }
            // BiasAdd, Add, Multiply: one rounding; the rest move or select values exactly
            default -> 1;
        };
    }

    /**
     * Compares with an error bound when {@code bound} has one for this output and both are f32,
     * else with the data type's tolerances.
     */
    public static Result compare(Tensor expected, Tensor actual, ErrorBound bound) {
        if (expected.logicalTensor().dataType() != DataType.F32 || actual.logicalTensor().dataType() != DataType.F32) {
            return compare(expected, actual);
        }
        long n = expected.logicalTensor().elementCount();
        long k = actual.logicalTensor().elementCount();
        if (n != k) {
            return sizeMismatch(n, k);
        }
        double[] m = bound.magnitudes().get(expected.id());
        if (m != null) {
            return compareBounded(n, elements(expected), elements(actual), m, bound.roundings());
        }
        double[] d = bound.deviations().get(expected.id());
        if (d != null) {
            double[] t = tolerance(DataType.F32);
            return compareDeviations(n, elements(expected), elements(actual), d, t[0], t[1]);
        }
        return compare(expected, actual);
    }

    /**
     * How many rounding-error scales an element may be off: {@code sqrt(2 ln(2n / p))} for n
     * elements makes the chance that any of them exceeds it at most p (Azuma–Hoeffding per element,
     * a union bound over the tensor), here one in a million.
     */
    static double deviationsAllowed(long elements) {
        return Math.sqrt(2 * Math.log(2.0 * Math.max(1, elements) / FALSE_ALARM));
    }

    /** The chance that a correct f32 result fails {@link #compareDeviations}, at most. */
    static final double FALSE_ALARM = 1e-6;

    /**
     * An element matches when it is within the data type's tolerance ({@link #compare(double[],
     * double[], double, double)}) or within {@link #deviationsAllowed} rounding-error scales
     * {@code deviation}: the fixed tolerance stays the floor (the error model is first order), the
     * deviations raise it where the graph amplifies f32 rounding.
     */
    public static Result compareDeviations(double[] e, double[] a, double[] deviation, double atol, double rtol) {
        if (e.length != a.length) {
            return sizeMismatch(e.length, a.length);
        }
        return compareDeviations(e.length, i -> e[(int) i], i -> a[(int) i], deviation, atol, rtol);
    }

    private static Result compareDeviations(long n, LongToDoubleFunction e, LongToDoubleFunction a, double[] deviation,
            double atol, double rtol) {
        if (deviation.length != n) {
            throw new IllegalArgumentException("deviations for " + deviation.length + " elements, expected values for " + n);
        }
        double scale = relativeScale(n, e);
        double lambda = deviationsAllowed(n);
        return judge(n, e, a, (i, x) -> Math.max(atol + rtol * Math.max(Math.abs(x), scale), lambda * deviation[(int) i]));
    }

    /**
     * An element matches when {@code |a - e| <= BOUND_FACTOR · roundings · u · magnitude}, u being
     * f32's unit roundoff; the smallest normal f32 is the floor, below which results are not
     * meaningfully rounded.
     */
    public static Result compareBounded(double[] e, double[] a, double[] magnitude, long roundings) {
        if (e.length != a.length) {
            return sizeMismatch(e.length, a.length);
        }
        return compareBounded(e.length, i -> e[(int) i], i -> a[(int) i], magnitude, roundings);
    }

    private static Result compareBounded(long n, LongToDoubleFunction e, LongToDoubleFunction a, double[] magnitude,
            long roundings) {
        if (magnitude.length != n) {
            throw new IllegalArgumentException(
                    "magnitudes for " + magnitude.length + " elements, expected values for " + n);
        }
        double perMagnitude = BOUND_FACTOR * roundings * F32_UNIT_ROUNDOFF;
        return judge(n, e, a, (i, x) -> perMagnitude * magnitude[(int) i] + Float.MIN_NORMAL);
    }

}
