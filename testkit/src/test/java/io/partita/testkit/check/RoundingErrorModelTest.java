package io.partita.testkit.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * The rounding-error model on multi-head attention (the shape of examples/attention.json: 128
 * tokens, 4 heads of 64, unscaled uniform weights, so scores reach the hundreds and the SoftMax
 * turns their f32 rounding into relative errors near 1e-4): a plain f32 implementation fails the
 * fixed tolerance and passes the model's bound, while a single element off by 1%, a SoftMax over
 * the wrong axis and an exp with ±1e-3 relative error are still reported.
 */
class RoundingErrorModelTest {
    private static final int T = 128;
    private static final int D = 256;
    private static final int H = 4;
    private static final int HD = D / H;

    private static final long X = 0;
    private static final long WQ = 1;
    private static final long WK = 2;
    private static final long WV = 3;
    private static final long WO = 4;
    private static final long DIVISOR = 5;
    private static final long MASK = 6;
    private static final long OUT = 30;

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    /** x·W, reshaped to heads and transposed to [H, T, HD]; tensor ids from {@code base}. */
    private static LogicalTensor project(Graph g, long op, long w, long base) {
        g.add(Op.builder(op, OpKind.MatMul).inputs(f32(X, T, D), f32(w, D, D)).output(f32(base, T, D)).build());
        g.add(Op.builder(op + 1, OpKind.StaticReshape).input(f32(base, T, D)).output(f32(base + 1, T, H, HD))
                .attr("shape", new long[] {T, H, HD}).attr("special_zero", false).build());
        g.add(Op.builder(op + 2, OpKind.StaticTranspose).input(f32(base + 1, T, H, HD))
                .output(f32(base + 2, H, T, HD)).attr("order", new long[] {1, 0, 2}).build());
        return f32(base + 2, H, T, HD);
    }

    /** softmax((q·kᵀ) / divisor + mask, axis) · v, heads merged, times Wo. */
    static Graph attention(GraphRuntime rt, long softmaxAxis) {
        Graph g = rt.createGraph(EngineKind.CPU);
        LogicalTensor q = project(g, 0, WQ, 10);
        LogicalTensor k = project(g, 3, WK, 13);
        LogicalTensor v = project(g, 6, WV, 16);
        g.add(Op.builder(9, OpKind.MatMul).inputs(q, k).output(f32(20, H, T, T)).attr("transpose_b", true).build());
        g.add(Op.builder(10, OpKind.Divide).inputs(f32(20, H, T, T), f32(DIVISOR, 1)).output(f32(21, H, T, T)).build());
        g.add(Op.builder(11, OpKind.Add).inputs(f32(21, H, T, T), f32(MASK, 1, T)).output(f32(22, H, T, T)).build());
        g.add(Op.builder(12, OpKind.SoftMax).input(f32(22, H, T, T)).output(f32(23, H, T, T)).attr("axis", softmaxAxis)
                .build());
        g.add(Op.builder(13, OpKind.MatMul).inputs(f32(23, H, T, T), v).output(f32(24, H, T, HD)).build());
        g.add(Op.builder(14, OpKind.StaticTranspose).input(f32(24, H, T, HD)).output(f32(25, T, H, HD))
                .attr("order", new long[] {1, 0, 2}).build());
        g.add(Op.builder(15, OpKind.StaticReshape).input(f32(25, T, H, HD)).output(f32(26, T, D))
                .attr("shape", new long[] {T, D}).attr("special_zero", false).build());
        g.add(Op.builder(16, OpKind.MatMul).inputs(f32(26, T, D), f32(WO, D, D)).output(f32(OUT, T, D)).build());
        return g.finalizeGraph();
    }

    private static float[] floats(Map<Long, Tensor> in, long id) {
        return in.get(id).toFloatArray();
    }

    /** a [n, k] · b [k, m] with one f32 accumulator per element, terms in index order. */
    private static float[] matmul(float[] a, float[] b, int n, int k, int m) {
        float[] c = new float[n * m];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < m; j++) {
                float acc = 0;
                for (int p = 0; p < k; p++) {
                    acc += a[i * k + p] * b[p * m + j];
                }
                c[i * m + j] = acc;
            }
        }
        return c;
    }

    /**
     * The graph in plain f32: every op rounded as f32 arithmetic does, in index order, with
     * {@code ±expError} the relative error of each exp (alternating along the line, as an
     * approximation's error varies with its argument; a uniform one would cancel in the
     * normalization), 0 for a correct exp.
     */
    static float[] f32Attention(Map<Long, Tensor> in, double expError) {
        float[] x = floats(in, X);
        float[] q = matmul(x, floats(in, WQ), T, D, D);
        float[] k = matmul(x, floats(in, WK), T, D, D);
        float[] v = matmul(x, floats(in, WV), T, D, D);
        float divisor = floats(in, DIVISOR)[0];
        float[] mask = floats(in, MASK);
        float[] ctx = new float[T * D];
        float[] p = new float[T];
        for (int h = 0; h < H; h++) {
            for (int i = 0; i < T; i++) {
                float max = Float.NEGATIVE_INFINITY;
                for (int j = 0; j < T; j++) {
                    float s = 0;
                    for (int c = 0; c < HD; c++) {
                        s += q[i * D + h * HD + c] * k[j * D + h * HD + c];
                    }
                    p[j] = s / divisor + mask[j];
                    max = Math.max(max, p[j]);
                }
                float sum = 0;
                for (int j = 0; j < T; j++) {
                    p[j] = (float) (Math.exp(p[j] - max) * (1 + (j % 2 == 0 ? expError : -expError)));
                    sum += p[j];
                }
                float inv = 1 / sum;
                for (int c = 0; c < HD; c++) {
                    float acc = 0;
                    for (int j = 0; j < T; j++) {
                        acc += p[j] * inv * v[j * D + h * HD + c];
                    }
                    ctx[i * D + h * HD + c] = acc;
                }
            }
        }
        return matmul(ctx, floats(in, WO), T, D, D);
    }

    private static Tensor tensor(Engine e, Arena arena, float[] v) {
        Tensor t = Tensor.allocate(f32(OUT, T, D), e, arena);
        t.copyFrom(v);
        return t;
    }

    @Test
    void aPlainF32AttentionFailsTheFixedToleranceButPassesTheModel() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = attention(rt, -1);
        Engine e = Engine.cpu();
        for (long seed : new long[] {42, 7}) {
            try (Arena arena = Arena.ofConfined(); CompiledGraph ref = rt.compile(g, PartitionPolicy.DEBUG, e)) {
                Map<Long, Tensor> in = RandomInputs.forGraph(rt.opSchemas(), g, e, arena, seed);
                OutputComparison.ErrorBound bound = OutputComparison.errorBound(g, ref, in, e);
                // several reductions and a SoftMax: the worst case would check nothing, the model applies
                assertTrue(bound.magnitudes().isEmpty());
                assertNotNull(bound.deviations().get(OUT), "deviations for the output");
                Tensor expected = ref.execute(new Stream(e), in).get(OUT);
                Tensor plain = tensor(e, arena, f32Attention(in, 0));
                OutputComparison.Result fixed = OutputComparison.compare(expected, plain);
                assertFalse(fixed.matches(), "seed " + seed + ": the fixed tolerance fails plain f32: " + fixed.describe());
                OutputComparison.Result modelled = OutputComparison.compare(expected, plain, bound);
                assertTrue(modelled.matches(), "seed " + seed + ": " + modelled.describe());
                System.out.printf("attention seed %d, plain f32: fixed tolerance %s; model %s%n", seed,
                        fixed.describe(), modelled.describe());
            }
        }
    }

    @Test
    void oneElementOffByOnePercentIsReported() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = attention(rt, -1);
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph ref = rt.compile(g, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt.opSchemas(), g, e, arena, 42);
            OutputComparison.ErrorBound bound = OutputComparison.errorBound(g, ref, in, e);
            Tensor expected = ref.execute(new Stream(e), in).get(OUT);
            double[] exp = expected.toDoubleArray();
            // an element of median magnitude, not the largest: the bound is not just loose at the extremes
            double[] sorted = exp.clone();
            for (int i = 0; i < sorted.length; i++) {
                sorted[i] = Math.abs(sorted[i]);
            }
            java.util.Arrays.sort(sorted);
            double median = sorted[sorted.length / 2];
            int target = 0;
            for (int i = 0; i < exp.length; i++) {
                target = Math.abs(Math.abs(exp[i]) - median) < Math.abs(Math.abs(exp[target]) - median) ? i : target;
            }
            float[] off = f32Attention(in, 0);
            off[target] = (float) (exp[target] * 1.01);
            OutputComparison.Result r = OutputComparison.compare(expected, tensor(e, arena, off), bound);
            assertFalse(r.matches(), r.describe());
            assertEquals(1, r.mismatches(), r.describe());
            assertEquals(target, r.worstIndex(), r.describe());
        }
    }

    @Test
    void aSoftMaxOverTheWrongAxisIsReported() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = attention(rt, -1);
        Graph wrong = attention(rt, -2);
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph ref = rt.compile(g, PartitionPolicy.DEBUG, e);
                CompiledGraph bad = rt.compile(wrong, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt.opSchemas(), g, e, arena, 42);
            OutputComparison.ErrorBound bound = OutputComparison.errorBound(g, ref, in, e);
            Tensor expected = ref.execute(new Stream(e), in).get(OUT);
            Tensor actual = bad.execute(new Stream(e), in).get(OUT);
            OutputComparison.Result r = OutputComparison.compare(expected, actual, bound);
            assertFalse(r.matches(), r.describe());
            assertTrue(r.mismatches() > T * D / 2, r.describe());
        }
    }

    @Test
    void anExpWithAThousandthRelativeErrorIsReported() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = attention(rt, -1);
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph ref = rt.compile(g, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt.opSchemas(), g, e, arena, 42);
            OutputComparison.ErrorBound bound = OutputComparison.errorBound(g, ref, in, e);
            Tensor expected = ref.execute(new Stream(e), in).get(OUT);
            OutputComparison.Result r = OutputComparison.compare(expected, tensor(e, arena, f32Attention(in, 1e-3)),
                    bound);
            assertFalse(r.matches(), r.describe());
        }
    }
}
