package io.partita.testkit.check;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * How far a correct f32 execution of a graph may legitimately stray from the reference, per
 * element: first-order propagation of f32 rounding errors through the graph, op by op on the
 * reference's values, in the probabilistic model of Higham and Mary (A New Approach to
 * Probabilistic Rounding Error Analysis, SIAM J. Sci. Comput. 41(5), 2019). Every rounding is
 * {@code x(1 + δ)} with {@code |δ| <= u} and independent δs of mean zero; an output error
 * {@code Σ δ_i c_i} then satisfies {@code |Σ δ_i c_i| <= λ u sqrt(Σ c_i²)} with probability at
 * least {@code 1 - 2 exp(-λ²/2)} (Hoeffding). This class estimates {@code W = Σ c_i²} per
 * element: the bound grows with the square root of the number of roundings rather than with the
 * number (the worst case, which a graph of several reductions makes useless), and it follows
 * the graph's conditioning, e.g. a SoftMax turning its input's absolute errors into relative
 * errors of its output, which a fixed relative tolerance cannot.
 *
 * <p>Two estimates, the larger wins per element. (1) Propagation of W op by op, each input's
 * error taken as independent of the others': exact when no rounding reaches an element along
 * two paths. Linear parts run on the reference itself: each step of the reference's DEBUG
 * compilation (one op) is executed again on squared values and on W, so transposes,
 * broadcasting and batching come from the op's own semantics. W is kept in units of {@code u²}
 * so it stays in f32 range. (2) Where roundings recombine (in attention, one probability's error
 * reaches an output through every column of the context, so W can be ten times what (1) says)
 * the mean of {@code (Σ ξ_i c_i)²} over random signs ξ is exactly W: the reference is run
 * {@value #SAMPLES} more times with each op's own roundings replaced by random-sign
 * perturbations of their size, amplified by {@value #AMPLIFICATION} so f32 storage does not
 * swamp them, and the output's deviations measured. Per op, with {@code r = out²} the output's
 * own rounding:
 * <ul>
 * <li>MatMul, Convolution {@code c = a·b (+ bias)}: {@code a²·W_b + W_a·b² + W_bias} (the first
 * order terms) plus the sum's own roundings, {@link #sumRoundings} over the accumulation length.
 * <li>Add, BiasAdd, Subtract: {@code W_a + W_b + r}; Multiply {@code b²W_a + a²W_b + r}; Divide
 * {@code W_a/b² + a²W_b/b⁴ + r}; ReLU passes W where its input is positive.
 * <li>SoftMax {@code p_j = e^{x_j - m}/Σ_k e^{x_k - m}}: {@code dp_j = p_j (dx_j - Σ_k p_k dx_k)},
 * so {@code W_p_j = p_j² ((1 - p_j)² V_j + Σ_{k≠j} p_k² V_k + R + 2)} with
 * {@code V = W_x + (x - m)² + 4}: the input's error, the rounding of {@code x - m} (absolute,
 * {@code u|x - m|}) and exp's (at most one ulp, 2u); R the relative roundings of the n-term sum,
 * then one reciprocal and one product.
 * <li>Reshape, transpose, reorder, concatenation: W moves with the values.
 * </ul>
 * Any other op, a step of more than one op or a non-f32 tensor: no model (null).
 */
final class RoundingErrorModel {
    private RoundingErrorModel() {
    }

    private static final Set<OpKind> MOVES = EnumSet.of(OpKind.StaticReshape, OpKind.StaticTranspose, OpKind.Reorder,
            OpKind.Concat);

    private static final Set<OpKind> MODELLED = EnumSet.of(OpKind.MatMul, OpKind.Convolution, OpKind.Add,
            OpKind.BiasAdd, OpKind.Subtract, OpKind.Multiply, OpKind.Divide, OpKind.ReLU, OpKind.SoftMax,
            OpKind.StaticReshape, OpKind.StaticTranspose, OpKind.Reorder, OpKind.Concat, OpKind.End);

    /** exp's rounding in units of u: the Vector API and Math.exp are within one ulp, at most 2u relative. */
    private static final double EXP_ROUNDINGS = 2;

    /**
     * Random-sign runs for estimate (2): its value per element is W times a chi-square of this
     * many degrees of freedom over their number, and estimate (1) is the floor where that falls
     * low.
     */
    static final int SAMPLES = 8;

    /**
     * Perturbations of {@code AMPLIFICATION · u · sqrt(W_local)}: large enough that the reference's
     * f32 storage of each intermediate adds only 1/64 of a rounding's size, small enough that the
     * graph stays linear over them (relative changes near 1e-4 for typical f32 errors).
     */
    static final double AMPLIFICATION = 64;

    /**
     * Memory the model holds per element of every tensor (value, the op's own W, and W or a
     * perturbed value, as doubles) and per element of the largest one while a step runs (its
     * operands, squared or perturbed, and the reference's own copies): beyond half the heap, no
     * model.
     */
    private static final long BYTES_PER_ELEMENT = 3 * Double.BYTES;
    private static final long BYTES_PER_LARGEST = 12 * Double.BYTES;

    /** The signs are seeded: the same graph and inputs always get the same bound. */
    private static final long SIGN_SEED = 0x5EED_0F_F32L;

    /**
     * The error scale {@code u·sqrt(W)} per element of every f32 output of {@code graph}, by
     * tensor id; null when the graph has an op or a tensor this model does not cover.
     *
     * @param reference the graph compiled on the reference backend with the DEBUG policy
     */
    static Map<Long, double[]> deviations(Graph graph, CompiledGraph reference, Map<Long, Tensor> inputs,
            Engine engine) {
        for (Op op : graph.ops()) {
            if (!MODELLED.contains(op.kind()) || !allF32(op) || op.outputs().size() > 1) {
                return null;
            }
            // the rules substitute each port's operand separately
            if (op.inputs().stream().map(LogicalTensor::id).distinct().count() != op.inputs().size()) {
                return null;
            }
        }
        long stored = 0;
        long largest = 0;
        for (CompiledGraph.Step step : reference.steps()) {
            if (step.partition().ops().size() != 1) {
                return null;
            }
            for (LogicalTensor t : step.compiled().outputs()) {
                if (!t.isConcrete()) {
                    return null;
                }
                stored += t.elementCount();
                largest = Math.max(largest, t.elementCount());
            }
        }
        for (Tensor t : inputs.values()) {
            stored += t.logicalTensor().elementCount();
        }
        if (BYTES_PER_ELEMENT * stored + BYTES_PER_LARGEST * largest > Runtime.getRuntime().maxMemory() / 2) {
            return null; // e.g. a full-size MHA: the data type's tolerances apply rather than an OutOfMemoryError
        }
        Map<Long, double[]> value = new HashMap<>();
        Map<Long, double[]> w = new HashMap<>();
        for (Map.Entry<Long, Tensor> e : inputs.entrySet()) {
            double[] v = e.getValue().toDoubleArray();
            value.put(e.getKey(), v);
            // inputs are exact: the reference and the backend get the same f32 values
            w.put(e.getKey(), new double[v.length]);
        }
        Runner run = new Runner(engine);
        List<Step> steps = new ArrayList<>();
        Map<Long, double[]> local = new HashMap<>();
        for (CompiledGraph.Step step : reference.steps()) {
            Op op = step.partition().ops().getFirst();
            if (op.outputs().isEmpty()) {
                continue;
            }
            Step st = new Step(op, step.compiled());
            steps.add(st);
            List<double[]> in = operands(st, value);
            List<double[]> win = new ArrayList<>();
            for (LogicalTensor t : op.inputs()) {
                win.add(w.get(t.id()));
            }
            double[] out = run.step(st, in);
            long id = op.output(0).id();
            value.put(id, out);
            double[][] wl = propagate(st, run, in, win, out);
            w.put(id, wl[0]);
            local.put(id, wl[1]);
        }
        Set<Long> outputs = new HashSet<>();
        for (LogicalTensor t : reference.outputs()) {
            if (!w.containsKey(t.id())) {
                return null;
            }
            outputs.add(t.id());
        }
        w.keySet().retainAll(outputs); // the intermediates' W make room for the perturbed runs
        Map<Long, double[]> sampled = sampled(steps, run, inputs, value, local, reference.outputs());
        Map<Long, double[]> deviations = new HashMap<>();
        for (LogicalTensor t : reference.outputs()) {
            double[] wt = w.get(t.id());
            double[] ws = sampled.get(t.id());
            double[] d = new double[wt.length];
            for (int i = 0; i < d.length; i++) {
                d[i] = OutputComparison.F32_UNIT_ROUNDOFF * Math.sqrt(Math.max(wt[i], ws[i]));
                if (!Double.isFinite(d[i]) && Double.isFinite(value.get(t.id())[i])) {
                    return null; // the model overflowed: it says nothing about this graph
                }
            }
            deviations.put(t.id(), d);
        }
        return deviations;
    }

    /** The step's operands by op input port, from computed values. */
    private static List<double[]> operands(Step st, Map<Long, double[]> value) {
        List<double[]> in = new ArrayList<>();
        for (LogicalTensor t : st.op().inputs()) {
            double[] v = value.get(t.id());
            if (v == null) {
                throw new IllegalStateException("reference step " + st.op().describe() + " needs tensor " + t.id()
                        + " before it was computed");
            }
            in.add(v);
        }
        return in;
    }

    /**
     * Estimate (2): the mean square, in units of u², of the outputs' deviations when every op's
     * own roundings are replaced by {@code ±AMPLIFICATION · u · sqrt(W_local)} with random signs
     * and the graph is run on the reference again.
     */
    private static Map<Long, double[]> sampled(List<Step> steps, Runner run, Map<Long, Tensor> inputs,
            Map<Long, double[]> value, Map<Long, double[]> local, List<LogicalTensor> outputs) {
        SplittableRandom signs = new SplittableRandom(SIGN_SEED);
        double step = AMPLIFICATION * OutputComparison.F32_UNIT_ROUNDOFF;
        Map<Long, double[]> sum = new HashMap<>();
        for (LogicalTensor t : outputs) {
            sum.put(t.id(), new double[value.get(t.id()).length]);
        }
        for (int s = 0; s < SAMPLES; s++) {
            Map<Long, double[]> perturbed = new HashMap<>();
            for (Long id : inputs.keySet()) {
                perturbed.put(id, value.get(id));
            }
            for (Step st : steps) {
                double[] out = run.step(st, operands(st, perturbed));
                double[] wl = local.get(st.op().output(0).id());
                for (int i = 0; i < out.length; i++) {
                    out[i] += (signs.nextBoolean() ? step : -step) * Math.sqrt(wl[i]);
                }
                perturbed.put(st.op().output(0).id(), out);
            }
            for (Map.Entry<Long, double[]> e : sum.entrySet()) {
                double[] exact = value.get(e.getKey());
                double[] moved = perturbed.get(e.getKey());
                double[] acc = e.getValue();
                for (int i = 0; i < acc.length; i++) {
                    double d = (moved[i] - exact[i]) / step;
                    acc[i] += Double.isFinite(d) ? d * d / SAMPLES : 0;
                }
            }
        }
        return sum;
    }

    private static boolean allF32(Op op) {
        for (LogicalTensor t : op.inputs()) {
            if (t.dataType() != DataType.F32) {
                return false;
            }
        }
        for (LogicalTensor t : op.outputs()) {
            if (t.dataType() != DataType.F32) {
                return false;
            }
        }
        return true;
    }

    /**
     * W of the op's output, from its inputs' values and W (in input port order) and its output
     * value, and the part of it that is the op's own roundings.
     */
    private static double[][] propagate(Step st, Runner run, List<double[]> in, List<double[]> win, double[] out) {
        Op op = st.op();
        OpKind kind = op.kind();
        if (MOVES.contains(kind)) {
            return new double[][] {run.step(st, win), new double[out.length]};
        }
        double[] r = squares(out);
        return switch (kind) {
            case Add, BiasAdd -> new double[][] {plus(run.step(st, win), r), r};
            case Subtract -> new double[][] {plus(run.step(st, List.of(win.get(0), negated(win.get(1)))), r), r};
            case Multiply -> new double[][] {plus(plus(firstOrder(st, run, List.of(win.get(0), squares(in.get(1))), 0),
                    firstOrder(st, run, List.of(squares(in.get(0)), win.get(1)), 1)), r), r};
            case Divide -> new double[][] {plus(plus(firstOrder(st, run, List.of(win.get(0), squares(in.get(1))), 0),
                    allZero(win.get(1)) ? new double[out.length]
                            : run.step(st, List.of(squares(in.get(0)), fourthPowerOver(in.get(1), win.get(1))))),
                    r), r};
            case ReLU -> {
                double[] through = new double[out.length];
                for (int i = 0; i < through.length; i++) {
                    through[i] = in.get(0)[i] > 0 ? win.get(0)[i] : 0;
                }
                yield new double[][] {through, new double[out.length]};
            }
            case MatMul, Convolution -> reduction(st, run, in, win, out);
            case SoftMax -> new double[][] {softmax(op, op.output(0).dims(), in.get(0), win.get(0), out),
                    softmax(op, op.output(0).dims(), in.get(0), new double[out.length], out)};
            default -> throw new IllegalStateException("no rounding error rule for " + op.describe());
        };
    }

    /**
     * A first-order term: the step run on {@code operands}, of which the one at {@code wIndex} is a
     * W; zero without running when that W is all zero (e.g. an error-free graph input).
     */
    private static double[] firstOrder(Step st, Runner run, List<double[]> operands, int wIndex) {
        if (allZero(operands.get(wIndex))) {
            return new double[(int) st.op().output(0).elementCount()];
        }
        return run.step(st, operands);
    }

    private static double[][] reduction(Step st, Runner run, List<double[]> in, List<double[]> win, double[] out) {
        boolean bias = in.size() > 2;
        // a²·W_b + W_bias, W_a·b², then Σ t² = a²·b² + bias²
        double[] a2 = squares(in.get(0));
        double[] b2 = squares(in.get(1));
        List<double[]> aw = new ArrayList<>(List.of(a2, win.get(1)));
        List<double[]> wa = new ArrayList<>(List.of(win.get(0), b2));
        List<double[]> sq = new ArrayList<>(List.of(a2, b2));
        if (bias) {
            aw.add(win.get(2));
            wa.add(new double[in.get(2).length]);
            sq.add(squares(in.get(2)));
        }
        boolean exactB = allZero(win.get(1)) && (!bias || allZero(win.get(2)));
        double[] r = exactB ? new double[out.length] : run.step(st, aw);
        r = plus(r, firstOrder(st, run, wa, 0));
        long k = OutputComparison.accumulationLength(st.op()) + (bias ? 1 : 0);
        double[] s2 = run.step(st, sq);
        double[] own = new double[out.length];
        for (int i = 0; i < r.length; i++) {
            own[i] = sumRoundings(k, out[i], s2[i]);
            r[i] += own[i];
        }
        return new double[][] {r, own};
    }

    /**
     * W of the roundings of a k-term f32 sum with total {@code t} and {@code Σ terms² = s2}: each
     * product rounds with coefficient {@code |term|}, each addition with the partial sum
     * {@code s_i}, so W is {@code s2 + Σ s_i²}. The partial sums depend on the order, which no
     * kernel promises; their mean square over all orders is {@code E Σ s_i² = t²(k+1)(2k+1)/(6k) +
     * (s2 - t²/k)(k+1)/6} (prefixes of a random permutation: mean {@code i·t/k}, variance
     * {@code i(k-i)/(k-1)} times the terms' variance). That is what a blocked or vectorised kernel
     * sees on data without an order of its own; the worst order (all positive terms first) makes
     * every {@code s_i} up to {@code Σ|terms|}, about k/2 times more for random signs, which is
     * why the worst case checks nothing for several reductions.
     */
    static double sumRoundings(long k, double t, double s2) {
        if (k < 2) {
            return s2; // no additions
        }
        double t2 = t * t;
        double spread = Math.max(0, s2 - t2 / k);
        return s2 + t2 * (k + 1) * (2.0 * k + 1) / (6.0 * k) + spread * (k + 1) / 6.0;
    }

    private static double[] softmax(Op op, long[] dims, double[] x, double[] wx, double[] p) {
        int axis = (int) Math.floorMod(op.hasAttr("axis") ? op.longAttr("axis") : 1, dims.length);
        long len = dims[axis];
        long inner = 1;
        for (int i = axis + 1; i < dims.length; i++) {
            inner *= dims[i];
        }
        long outer = p.length / Math.max(1, len * inner);
        double[] r = new double[p.length];
        double[] v = new double[(int) len];
        for (long o = 0; o < outer; o++) {
            for (long c = 0; c < inner; c++) {
                int base = (int) (o * len * inner + c);
                double max = Double.NEGATIVE_INFINITY;
                for (int k = 0; k < len; k++) {
                    max = Math.max(max, x[base + k * (int) inner]);
                }
                // the sum of the exponentials, relative to its value (Σ p = 1, Σ p² = s2), then 1/sum and the product
                double s2 = 0;
                for (int k = 0; k < len; k++) {
                    double pk = p[base + k * (int) inner];
                    s2 += Double.isFinite(pk) ? pk * pk : 0;
                }
                double common = sumRoundings(len, 1, s2) + 2;
                for (int k = 0; k < len; k++) {
                    int i = base + k * (int) inner;
                    double shifted = x[i] - max;
                    // an element with p = 0 (far below the max, or -inf) contributes nothing
                    v[k] = p[i] == 0 || !Double.isFinite(p[i]) ? 0
                            : wx[i] + shifted * shifted + EXP_ROUNDINGS * EXP_ROUNDINGS;
                    common += p[i] == 0 || !Double.isFinite(p[i]) ? 0 : p[i] * p[i] * v[k];
                }
                for (int k = 0; k < len; k++) {
                    int i = base + k * (int) inner;
                    // (1 - p)² V_j + Σ_{k≠j} p_k² V_k: a line's dominant element moves with the others
                    double q = 1 - p[i];
                    double own = q * q * v[k] + Math.max(0, common - p[i] * p[i] * v[k]);
                    r[i] = Double.isFinite(p[i]) ? p[i] * p[i] * own : 0;
                }
            }
        }
        return r;
    }

    private static boolean allZero(double[] v) {
        for (double x : v) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    private static double[] plus(double[] a, double[] b) {
        double[] r = new double[a.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = a[i] + b[i];
        }
        return r;
    }

    private static double[] squares(double[] a) {
        double[] r = new double[a.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = a[i] * a[i];
        }
        return r;
    }

    private static double[] abs(double[] a) {
        double[] r = new double[a.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = Math.abs(a[i]);
        }
        return r;
    }

    private static double[] negated(double[] a) {
        double[] r = new double[a.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = -a[i];
        }
        return r;
    }

    /** {@code b⁴ / W_b}: Divide(a², b⁴/W_b) is {@code a² W_b / b⁴}; W_b = 0 gives +inf and so 0. */
    private static double[] fourthPowerOver(double[] b, double[] wb) {
        double[] r = new double[b.length];
        for (int i = 0; i < r.length; i++) {
            double s = b[i] * b[i] / Math.sqrt(wb[i]);
            r[i] = s * s;
        }
        return r;
    }

    /** One op of the reference's DEBUG compilation. */
    private record Step(Op op, CompiledPartition compiled) {
    }

    /** Executes reference steps on substituted operands. */
    private record Runner(Engine engine) {
        /** Runs the step with {@code operands} by op input port; returns the op's output 0. */
        double[] step(Step st, List<double[]> operands) {
            try (Arena arena = Arena.ofConfined()) {
                CompiledPartition cp = st.compiled();
                List<Tensor> ins = new ArrayList<>();
                for (LogicalTensor lt : cp.inputs()) {
                    int port = -1;
                    for (int i = 0; i < st.op().inputs().size() && port < 0; i++) {
                        port = st.op().input(i).id() == lt.id() ? i : -1;
                    }
                    if (port < 0) {
                        throw new IllegalStateException("reference step " + st.op().describe() + " takes tensor "
                                + lt.id() + ", which is none of its op's inputs");
                    }
                    Tensor t = Tensor.allocate(strided(lt), engine, arena);
                    t.copyFrom(operands.get(port));
                    ins.add(t);
                }
                List<Tensor> outs = new ArrayList<>();
                Tensor result = null;
                for (LogicalTensor lt : cp.outputs()) {
                    Tensor t = Tensor.allocate(strided(lt), engine, arena);
                    outs.add(t);
                    result = lt.id() == st.op().output(0).id() ? t : result;
                }
                if (result == null) {
                    throw new IllegalStateException("reference step " + st.op().describe() + " does not output tensor "
                            + st.op().output(0).id());
                }
                Stream s = new Stream(engine);
                cp.execute(s, ins, outs);
                s.waitAll();
                return result.toDoubleArray();
            }
        }

        private static LogicalTensor strided(LogicalTensor lt) {
            return lt.layoutType() == LayoutType.STRIDED ? lt : lt.withLayout(LayoutType.STRIDED);
        }
    }
}
