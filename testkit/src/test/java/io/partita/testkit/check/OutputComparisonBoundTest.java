package io.partita.testkit.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.Map;
import java.util.SplittableRandom;

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
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * The f32 comparison against a bound derived from the computation: an honest f32 kernel on a long,
 * cancelling MatMul passes although the fixed tolerance fails it, and sloppy results fail although
 * the fixed tolerance may pass them.
 */
class OutputComparisonBoundTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();

    private static final int M = 4;
    private static final int N = 3;

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    private static Graph matmul(GraphRuntime rt, int k) {
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, M, k), f32(1, k, N)).output(f32(2, M, N)).build());
        return g.finalizeGraph();
    }

    private static Tensor tensor(Engine e, Arena arena, long id, float[] v, long... dims) {
        Tensor t = Tensor.allocate(f32(id, dims), e, arena);
        t.copyFrom(v);
        return t;
    }

    /**
     * Rows of a whose second half is minus the first half times (1 + δ), |δ| ≤ 1e-3, and columns
     * of b repeating their first half: the partial sums climb to thousands and the result is the
     * small Σ a·b·δ, so f32 accumulation loses most of the result's relative accuracy.
     */
    private static float[][] cancellingInputs(int k, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] a = new float[M * k];
        float[] b = new float[k * N];
        int h = k / 2;
        for (int m = 0; m < M; m++) {
            for (int i = 0; i < h; i++) {
                a[m * k + i] = (float) (1 + r.nextDouble());
                a[m * k + h + i] = (float) (-a[m * k + i] * (1 + 1e-3 * (2 * r.nextDouble() - 1)));
            }
        }
        for (int i = 0; i < h; i++) {
            for (int n = 0; n < N; n++) {
                b[i * N + n] = (float) (1 + r.nextDouble());
                b[(h + i) * N + n] = b[i * N + n];
            }
        }
        return new float[][] {a, b};
    }

    /** An honest f32 kernel: one f32 accumulator, terms in index order. */
    private static float[] f32Kernel(float[] a, float[] b, int k) {
        float[] c = new float[M * N];
        for (int m = 0; m < M; m++) {
            for (int n = 0; n < N; n++) {
                float acc = 0;
                for (int i = 0; i < k; i++) {
                    acc += a[m * k + i] * b[i * N + n];
                }
                c[m * N + n] = acc;
            }
        }
        return c;
    }

    /** A sloppy kernel: accumulates in half precision. */
    private static float[] f16AccumulatingKernel(float[] a, float[] b, int k) {
        float[] c = new float[M * N];
        for (int m = 0; m < M; m++) {
            for (int n = 0; n < N; n++) {
                float acc = 0;
                for (int i = 0; i < k; i++) {
                    acc = Float.float16ToFloat(Float.floatToFloat16(acc + a[m * k + i] * b[i * N + n]));
                }
                c[m * N + n] = acc;
            }
        }
        return c;
    }

    private static double maxRelativeError(double[] expected, float[] actual) {
        double worst = 0;
        for (int i = 0; i < expected.length; i++) {
            worst = Math.max(worst, Math.abs(actual[i] - expected[i]) / Math.abs(expected[i]));
        }
        return worst;
    }

    @Test
    void anHonestF32KernelOnALongCancellingMatMulPassesTheBoundButNotTheFixedTolerance() {
        for (int k : new int[] {4096, 16384}) {
            GraphRuntime rt = GraphRuntime.referenceOnly();
            Graph g = matmul(rt, k);
            Engine e = Engine.cpu();
            float[][] ab = cancellingInputs(k, 11 + k);
            try (Arena arena = Arena.ofConfined(); CompiledGraph ref = rt.compile(g, PartitionPolicy.DEBUG, e)) {
                Map<Long, Tensor> in = Map.of(0L, tensor(e, arena, 0, ab[0], M, k), 1L, tensor(e, arena, 1, ab[1], k, N));
                OutputComparison.ErrorBound bound = OutputComparison.errorBound(g, ref, in, e);
                assertEquals(k + 1, bound.roundings());
                // the magnitude run yields Σ|a·b| per element
                double[] magnitude = bound.magnitudes().get(2L);
                for (int m = 0; m < M; m++) {
                    for (int n = 0; n < N; n++) {
                        double sum = 0;
                        for (int i = 0; i < k; i++) {
                            sum += Math.abs((double) ab[0][m * k + i] * ab[1][i * N + n]);
                        }
                        assertEquals(sum, magnitude[m * N + n], sum * 1e-6);
                    }
                }
                Tensor expected = ref.execute(new Stream(e), in).get(2L);
                Tensor honest = tensor(e, arena, 2, f32Kernel(ab[0], ab[1], k), M, N);
                double rel = maxRelativeError(expected.toDoubleArray(), honest.toFloatArray());
                assertTrue(rel > OutputComparison.tolerance(DataType.F32)[1] * 10,
                        "K=" + k + ": the honest kernel's relative error " + rel + " should exceed the fixed tolerance");
                OutputComparison.Result old = OutputComparison.compare(expected, honest);
                assertFalse(old.matches(), "the fixed tolerance fails it: " + old.describe());
                OutputComparison.Result bounded = OutputComparison.compare(expected, honest, bound);
                assertTrue(bounded.matches(), "K=" + k + ": " + bounded.describe());

                // (b) half-precision accumulation is beyond what f32 allows
                Tensor sloppy = tensor(e, arena, 2, f16AccumulatingKernel(ab[0], ab[1], k), M, N);
                OutputComparison.Result r = OutputComparison.compare(expected, sloppy, bound);
                assertFalse(r.matches(), "K=" + k + ": f16 accumulation must fail: " + r.describe());
                System.out.printf("K=%d: honest f32 max rel err %.3g; fixed tolerance: %s; bound: %s; f16 accumulation: %s%n",
                        k, rel, old.describe(), bounded.describe(), r.describe());

                // (b) one element off by ten times its bound
                float[] perturbed = honest.toFloatArray();
                double[] exp = expected.toDoubleArray();
                double allowed = 2.0 * bound.roundings() * 0x1p-24 * magnitude[5];
                perturbed[5] = (float) (exp[5] + 10 * allowed);
                OutputComparison.Result p = OutputComparison.compare(expected, tensor(e, arena, 2, perturbed, M, N), bound);
                assertFalse(p.matches());
                assertEquals(1, p.mismatches());
                assertEquals(5, p.worstIndex());
            }
        }
    }

    @Test
    void aShortDotProductIsHeldTighterThanTheFixedTolerance() {
        // K = 64 positive terms: no cancellation, the bound is about 8e-6 relative
        int k = 64;
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = matmul(rt, k);
        Engine e = Engine.cpu();
        SplittableRandom r = new SplittableRandom(5);
        float[] a = new float[M * k];
        float[] b = new float[k * N];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) (1 + r.nextDouble());
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = (float) (1 + r.nextDouble());
        }
        try (Arena arena = Arena.ofConfined(); CompiledGraph ref = rt.compile(g, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = Map.of(0L, tensor(e, arena, 0, a, M, k), 1L, tensor(e, arena, 1, b, k, N));
            OutputComparison.ErrorBound bound = OutputComparison.errorBound(g, ref, in, e);
            Tensor expected = ref.execute(new Stream(e), in).get(2L);
            assertTrue(OutputComparison.compare(expected, tensor(e, arena, 2, f32Kernel(a, b, k), M, N), bound).matches());
            // every element 5e-5 relative off: within the fixed 1e-4, far beyond what 64 f32 additions allow
            float[] off = expected.toFloatArray();
            for (int i = 0; i < off.length; i++) {
                off[i] *= 1 + 5e-5f;
            }
            Tensor sloppy = tensor(e, arena, 2, off, M, N);
            assertTrue(OutputComparison.compare(expected, sloppy).matches());
            OutputComparison.Result res = OutputComparison.compare(expected, sloppy, bound);
            assertFalse(res.matches(), res.describe());
            assertEquals(M * N, res.mismatches());
        }
    }

    @Test
    void graphsWithOpsOutsideSumsOfProductsGetTheRoundingErrorModelInstead() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 2, 8), f32(1, 8, 3)).output(f32(2, 2, 3)).build());
        g.add(Op.builder(1, OpKind.Subtract).inputs(f32(2, 2, 3), f32(3, 2, 3)).output(f32(4, 2, 3)).build());
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph ref = rt.compile(g, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, e, arena, 3);
            // |a| - |b| is no magnitude of a - b: no worst-case bound, but the model covers Subtract
            OutputComparison.ErrorBound bound = OutputComparison.errorBound(g, ref, in, e);
            assertTrue(bound.magnitudes().isEmpty());
            assertEquals(6, bound.deviations().get(4L).length);
        }
    }

    @Test
    void graphsWithOpsNeitherCoversKeepTheTolerancesByDataType() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 2, 8), f32(1, 8, 3)).output(f32(2, 2, 3)).build());
        g.add(Op.builder(1, OpKind.Tanh).inputs(f32(2, 2, 3)).output(f32(4, 2, 3)).build());
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph ref = rt.compile(g, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, e, arena, 3);
            assertSame(OutputComparison.ErrorBound.NONE, OutputComparison.errorBound(g, ref, in, e));
            Tensor expected = ref.execute(new Stream(e), in).get(4L);
            float[] v = expected.toFloatArray();
            v[0] += (float) (Math.abs(v[0]) * 5e-5);
            Tensor actual = tensor(e, arena, 4, v, 2, 3);
            assertEquals(OutputComparison.compare(expected, actual).matches(),
                    OutputComparison.compare(expected, actual, OutputComparison.ErrorBound.NONE).matches());
            assertTrue(OutputComparison.compare(expected, actual, OutputComparison.ErrorBound.NONE).matches());
        }
    }
}
