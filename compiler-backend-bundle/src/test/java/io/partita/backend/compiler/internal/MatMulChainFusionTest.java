package io.partita.backend.compiler.internal;

import static io.partita.backend.compiler.internal.RowFusionChecks.RUNTIME;
import static io.partita.backend.compiler.internal.RowFusionChecks.compilerParts;
import static io.partita.backend.compiler.internal.RowFusionChecks.graph;
import static io.partita.backend.compiler.internal.RowFusionChecks.onePartition;
import static io.partita.backend.compiler.internal.RowFusionChecks.partitionMatches;
import static io.partita.backend.compiler.internal.RowFusionChecks.wholeGraphMatches;
import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;

/**
 * MatMuls with elementwise prologues (computing src A) and epilogues (pattern {@code matmul}):
 * outputs against the reference for odd sizes, transposes, broadcast batch dims, a bias, constant
 * weights, dynamic rows from one compilation and from several threads, and what is (not) claimed.
 */
class MatMulChainFusionTest {

    /** A MatMul graph: A (id 0) through {@code pre} elementwise ops, B (id 1), then {@code post} ops. */
    record Chain(long[] a, long[] b, boolean ta, boolean tb, int pre, int post, boolean bias, boolean constantB,
            DataType dt) {
        Chain(long[] a, long[] b, boolean ta, boolean tb, int pre, int post) {
            this(a, b, ta, tb, pre, post, false, false, DataType.F32);
        }

        long[] out() {
            int r = Math.max(a.length, b.length);
            long[] o = new long[r];
            for (int i = 0; i < r - 2; i++) {
                long x = dim(a, i, r);
                long y = dim(b, i, r);
                o[i] = x == 1 ? y : x;
            }
            o[r - 2] = ta ? a[a.length - 1] : a[a.length - 2];
            o[r - 1] = tb ? b[b.length - 2] : b[b.length - 1];
            return o;
        }

        private static long dim(long[] d, int i, int r) {
            int j = i - (r - d.length);
            return j >= 0 ? d[j] : 1;
        }

        LogicalTensor t(long id, long... dims) {
            return LogicalTensor.of(id, dt, dims);
        }

        void build(Graph g) {
            long x = 0;
            for (int i = 0; i < pre; i++) {
                long y = 200 + i;
                g.add(elementwise(i, i, x, 100 + i, a, y));
                x = y;
            }
            LogicalTensor bt = t(1, b);
            if (constantB) {
                bt = bt.withProperty(PropertyType.CONSTANT);
            }
            long[] o = out();
            Op.Builder mm = Op.builder(50, OpKind.MatMul).attr("transpose_a", ta).attr("transpose_b", tb)
                    .output(t(300, o));
            if (bias) {
                mm.inputs(t(x, a), bt, t(2, o[o.length - 1]));
            } else {
                mm.inputs(t(x, a), bt);
            }
            g.add(mm.build());
            x = 300;
            for (int i = 0; i < post; i++) {
                long y = 500 + i;
                g.add(elementwise(60 + i, i + 1, x, 400 + i, o, y));
                x = y;
            }
        }

        /** Multiply by a full operand, Add a vector along the last axis, Tanh, Multiply by one element, GELU. */
        private Op elementwise(long id, int kind, long in, long operand, long[] dims, long out) {
            long last = dims[dims.length - 1];
            return switch (kind % 5) {
                case 0 -> Op.builder(id, OpKind.Multiply).inputs(t(in, dims), t(operand, dims)).output(t(out, dims))
                        .build();
                case 1 -> Op.builder(id, OpKind.Add).inputs(t(in, dims), t(operand, last)).output(t(out, dims)).build();
                case 2 -> Op.builder(id, OpKind.Tanh).input(t(in, dims)).output(t(out, dims)).build();
                case 3 -> Op.builder(id, OpKind.Multiply).inputs(t(in, dims), t(operand, 1)).output(t(out, dims))
                        .build();
                default -> Op.builder(id, OpKind.GELU).input(t(in, dims)).output(t(out, dims)).build();
            };
        }
    }

    private static long[] d(long... dims) {
        return dims;
    }

    private static void claimedAndMatches(Chain c, long seed) {
        assertEquals(c.pre() + c.post() + 1, onePartition(graph(RUNTIME, c::build), CompilerBackend.MATMUL).ops()
                .size());
        wholeGraphMatches(c::build, seed);
    }

    @ParameterizedTest
    @CsvSource({"1,1,1", "1,7,33", "7,33,100", "33,100,7", "100,1,33", "100,100,100", "7,7,7", "130,33,1"})
    void prologueOnly(long m, long k, long n) {
        claimedAndMatches(new Chain(d(m, k), d(k, n), false, false, 3, 0), m * 1000 + k * 10 + n);
    }

    @ParameterizedTest
    @CsvSource({"1,1,1", "1,7,33", "7,33,100", "33,100,7", "100,1,33", "100,100,100"})
    void prologueAndEpilogue(long m, long k, long n) {
        claimedAndMatches(new Chain(d(m, k), d(k, n), false, false, 2, 5), m + k + n);
    }

    @ParameterizedTest
    @CsvSource({"false,true,7,33,100", "true,false,33,7,100", "true,true,100,33,7", "true,false,1,7,33",
        "true,true,130,1,33", "false,true,1,100,1"})
    void transposes(boolean ta, boolean tb, long m, long k, long n) {
        long[] a = ta ? d(k, m) : d(m, k);
        long[] b = tb ? d(n, k) : d(k, n);
        claimedAndMatches(new Chain(a, b, ta, tb, 4, 3), 7 * m + n);
        claimedAndMatches(new Chain(new long[] {2, a[0], a[1]}, new long[] {2, b[0], b[1]}, ta, tb, 1, 0), m + 3);
    }

    @Test
    void batchedWithBroadcastBatchDims() {
        claimedAndMatches(new Chain(d(2, 1, 7, 33), d(1, 3, 33, 5), false, false, 2, 2), 1);
        claimedAndMatches(new Chain(d(3, 7, 33), d(33, 100), false, false, 1, 3), 2);
        claimedAndMatches(new Chain(d(7, 33), d(2, 33, 17), false, false, 3, 1), 3);
        claimedAndMatches(new Chain(d(4, 1, 33, 7), d(3, 17, 33), true, true, 2, 2), 4);
        claimedAndMatches(new Chain(d(1, 32, 32, 32), d(1, 32, 32, 32), false, false, 10, 10), 5);
    }

    @Test
    void biasAndConstantWeights() {
        Chain c = new Chain(d(2, 33, 100), d(100, 7), false, false, 2, 2, true, true, DataType.F32);
        claimedAndMatches(c, 11);
        CompiledPartition cp = onePartition(graph(RUNTIME, c::build), CompilerBackend.MATMUL).compile(Engine.cpu());
        for (int i = 0; i < 3; i++) {
            partitionMatches(cp, c::build, 20 + i); // the packed weights from the constant cache (fresh sources)
        }
        claimedAndMatches(new Chain(d(5, 100), d(33, 100), false, true, 1, 0, true, false, DataType.F32), 12);
    }

    @Test
    void staticEpilogueOnlyIsTheDnnlStyleBackends() {
        Graph g = graph(RUNTIME, new Chain(d(7, 33), d(33, 100), false, false, 0, 3)::build);
        assertTrue(compilerParts(g, PartitionPolicy.FUSION).isEmpty(), g.partitions(PartitionPolicy.FUSION).toString());
        wholeGraphMatches(new Chain(d(7, 33), d(33, 100), false, false, 0, 3)::build, 1);
    }

    /** A prologue op finishing another MatMul's output is that MatMul's post-op: not taken as a prologue. */
    @Test
    void activationOfAnotherMatMulStaysItsPostOp() {
        java.util.function.Consumer<Graph> build = g -> {
            g.add(Op.builder(1, OpKind.MatMul).inputs(RowFusionChecks.f32(0, 8, 16), RowFusionChecks.f32(1, 16, 24))
                    .output(RowFusionChecks.f32(10, 8, 24)).build());
            g.add(Op.builder(2, OpKind.ReLU).input(RowFusionChecks.f32(10, 8, 24)).output(RowFusionChecks.f32(11, 8, 24))
                    .build());
            g.add(Op.builder(3, OpKind.MatMul).inputs(RowFusionChecks.f32(11, 8, 24), RowFusionChecks.f32(2, 24, 5))
                    .output(RowFusionChecks.f32(12, 8, 5)).build());
        };
        Graph g = graph(RUNTIME, build);
        assertTrue(compilerParts(g, PartitionPolicy.FUSION).isEmpty(), g.partitions(PartitionPolicy.FUSION).toString());
    }

    /**
     * The MLP form MatMul → BiasAdd → ReLU → MatMul: the ReLU finishes the first MatMul through its
     * bias, so it stays that MatMul's post-op (the examples' MLP is three DNNL-style partitions).
     */
    @Test
    void activationAfterAnotherMatMulsBiasStaysItsPostOp() {
        java.util.function.Consumer<Graph> build = g -> {
            g.add(Op.builder(1, OpKind.MatMul).inputs(RowFusionChecks.f32(0, 8, 16), RowFusionChecks.f32(1, 16, 24))
                    .output(RowFusionChecks.f32(10, 8, 24)).build());
            g.add(Op.builder(2, OpKind.BiasAdd).inputs(RowFusionChecks.f32(10, 8, 24), RowFusionChecks.f32(3, 24))
                    .output(RowFusionChecks.f32(13, 8, 24)).build());
            g.add(Op.builder(4, OpKind.ReLU).input(RowFusionChecks.f32(13, 8, 24)).output(RowFusionChecks.f32(11, 8, 24))
                    .build());
            g.add(Op.builder(5, OpKind.MatMul).inputs(RowFusionChecks.f32(11, 8, 24), RowFusionChecks.f32(2, 24, 5))
                    .output(RowFusionChecks.f32(12, 8, 5)).build());
        };
        Graph g = graph(RUNTIME, build);
        assertTrue(compilerParts(g, PartitionPolicy.FUSION).isEmpty(), g.partitions(PartitionPolicy.FUSION).toString());
        wholeGraphMatches(build, 4);
    }

    @Test
    void dynamicRowsFromOneCompilation() {
        Chain dyn = new Chain(d(DYNAMIC_DIM, 33), d(33, 100), false, false, 3, 2);
        CompiledPartition cp = onePartition(graph(RUNTIME, dyn::build), CompilerBackend.MATMUL).compile(Engine.cpu());
        Chain epi = new Chain(d(DYNAMIC_DIM, 7), d(17, 7), false, true, 0, 2);
        CompiledPartition ep = onePartition(graph(RUNTIME, epi::build), CompilerBackend.MATMUL).compile(Engine.cpu());
        Chain bat = new Chain(d(DYNAMIC_DIM, DYNAMIC_DIM, 33), d(33, 7), false, false, 1, 1);
        CompiledPartition bp = onePartition(graph(RUNTIME, bat::build), CompilerBackend.MATMUL).compile(Engine.cpu());
        long seed = 1;
        for (long m : new long[] {1, 5, 64, 65, 130}) {
            partitionMatches(cp, new Chain(d(m, 33), d(33, 100), false, false, 3, 2)::build, seed++);
            partitionMatches(ep, new Chain(d(m, 7), d(17, 7), false, true, 0, 2)::build, seed++);
            partitionMatches(bp, new Chain(d(1 + m % 3, m, 33), d(33, 7), false, false, 1, 1)::build, seed++);
        }
    }

    @Test
    void oneCompiledPartitionFromManyThreads() throws Exception {
        Chain dyn = new Chain(d(DYNAMIC_DIM, 100), d(100, 33), false, false, 2, 2);
        CompiledPartition cp = onePartition(graph(RUNTIME, dyn::build), CompilerBackend.MATMUL).compile(Engine.cpu());
        ExecutorService ex = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 24; t++) {
                long m = 1 + 7L * t;
                long seed = 100 + t;
                fs.add(ex.submit(() -> partitionMatches(cp, new Chain(d(m, 100), d(100, 33), false, false, 2, 2)::build,
                        seed)));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            ex.shutdownNow();
        }
    }

    @Test
    void debugPolicyClaimsNothing() {
        Graph g = graph(RUNTIME, new Chain(d(DYNAMIC_DIM, 33), d(33, 7), false, false, 2, 2)::build);
        assertTrue(compilerParts(g, PartitionPolicy.DEBUG).isEmpty());
        assertEquals(5, g.partitions(PartitionPolicy.DEBUG).size());
    }

    @Test
    void bf16IsNotClaimed() {
        Chain c = new Chain(d(7, 32), d(32, 16), false, false, 2, 2, false, false, DataType.BF16);
        Graph g = graph(RUNTIME, c::build);
        assertTrue(compilerParts(g, PartitionPolicy.FUSION).isEmpty(), g.partitions(PartitionPolicy.FUSION).toString());
        assertTrue(Arrays.stream(c.out()).allMatch(x -> x > 0));
    }
}
