package io.partita.backend.compiler.internal;

import static io.partita.backend.compiler.internal.RowFusionChecks.RUNTIME;
import static io.partita.backend.compiler.internal.RowFusionChecks.compilerParts;
import static io.partita.backend.compiler.internal.RowFusionChecks.f32;
import static io.partita.backend.compiler.internal.RowFusionChecks.graph;
import static io.partita.backend.compiler.internal.RowFusionChecks.onePartition;
import static io.partita.backend.compiler.internal.RowFusionChecks.partitionMatches;
import static io.partita.backend.compiler.internal.RowFusionChecks.wholeGraphMatches;
import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
 * LayerNorm and RMSNorm fused with the elementwise ops around them (pattern {@code norm}):
 * outputs against the reference backend for row lengths that are no multiple of the vector width,
 * dynamic batch and sequence from one compilation, one compiled partition from several threads,
 * and what is (not) claimed.
 */
class NormFusionTest {
    static final long[] ROW_LENGTHS = {1, 7, 17, 768, 1000};

    /** h = x + r; LayerNorm(h) (affine or not); GELU; times a per-channel scale. */
    static void residualLayerNormGelu(Graph g, long b, long s, long c, boolean affine) {
        g.add(Op.builder(0, OpKind.Add).inputs(f32(0, b, s, c), f32(1, b, s, c)).output(f32(10, b, s, c)).build());
        Op.Builder ln = Op.builder(1, OpKind.LayerNorm).attr("keep_stats", false).attr("use_affine", affine)
                .attr("epsilon", 1e-5f).output(f32(11, b, s, c));
        if (affine) {
            ln.inputs(f32(10, b, s, c), f32(2, c), f32(3, c));
        } else {
            ln.input(f32(10, b, s, c));
        }
        g.add(ln.build());
        g.add(Op.builder(2, OpKind.GELU).input(f32(11, b, s, c)).output(f32(12, b, s, c)).build());
        g.add(Op.builder(3, OpKind.Multiply).inputs(f32(12, b, s, c), f32(4, c).withProperty(PropertyType.CONSTANT))
                .output(f32(13, b, s, c)).build());
    }

    /** h = x + r; RMSNorm(h, gamma); times a scalar; plus h (the residual read again after the norm). */
    static void residualRmsNorm(Graph g, long b, long s, long c) {
        g.add(Op.builder(0, OpKind.Add).inputs(f32(0, b, s, c), f32(1, b, s, c)).output(f32(10, b, s, c)).build());
        g.add(Op.builder(1, OpKind.RMSNorm).inputs(f32(10, b, s, c), f32(2, c)).attr("epsilon", 1e-6f)
                .output(f32(11, b, s, c)).build());
        g.add(Op.builder(2, OpKind.Multiply).inputs(f32(11, b, s, c), f32(3, 1)).output(f32(12, b, s, c)).build());
        g.add(Op.builder(3, OpKind.Add).inputs(f32(12, b, s, c), f32(10, b, s, c)).output(f32(13, b, s, c)).build());
    }

    /**
     * A pre-LN block: h = x + r is the residual stream (also an output, through End), LayerNorm
     * keeps its statistics (mean, variance outputs), then ReLU.
     */
    static void residualStreamWithStats(Graph g, long b, long s, long c) {
        g.add(Op.builder(0, OpKind.Add).inputs(f32(0, b, s, c), f32(1, b, s, c)).output(f32(10, b, s, c)).build());
        g.add(Op.builder(1, OpKind.LayerNorm).inputs(f32(10, b, s, c), f32(2, c), f32(3, c)).attr("keep_stats", true)
                .outputs(f32(11, b, s, c), f32(14, b, s), f32(15, b, s)).build());
        g.add(Op.builder(2, OpKind.ReLU).input(f32(11, b, s, c)).output(f32(12, b, s, c)).build());
        g.add(Op.builder(3, OpKind.End).input(f32(10, b, s, c)).build());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 17, 768, 1000})
    void layerNormWithResidualAndGelu(long c) {
        Graph g = graph(RUNTIME, x -> residualLayerNormGelu(x, 2, 3, c, true));
        assertEquals(4, onePartition(g, CompilerBackend.NORM).ops().size());
        wholeGraphMatches(x -> residualLayerNormGelu(x, 2, 3, c, true), c);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 17, 768, 1000})
    void layerNormWithoutAffine(long c) {
        onePartition(graph(RUNTIME, x -> residualLayerNormGelu(x, 3, 5, c, false)), CompilerBackend.NORM);
        wholeGraphMatches(x -> residualLayerNormGelu(x, 3, 5, c, false), 10 + c);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 17, 768, 1000})
    void rmsNormWithResidualReadAgain(long c) {
        onePartition(graph(RUNTIME, x -> residualRmsNorm(x, 2, 5, c)), CompilerBackend.NORM);
        wholeGraphMatches(x -> residualRmsNorm(x, 2, 5, c), 20 + c);
    }

    @Test
    void residualStreamAndStatisticsAreOutputs() {
        Graph g = graph(RUNTIME, x -> residualStreamWithStats(x, 2, 9, 100));
        List<io.partita.graph.Partition> parts = compilerParts(g, PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), g.partitions(PartitionPolicy.FUSION).toString());
        assertEquals(4, parts.get(0).outputs().size(), "h, dst after ReLU, mean, variance");
        wholeGraphMatches(x -> residualStreamWithStats(x, 2, 9, 100), 3);
    }

    /** The compiler's one partition of the graph (an End op is a partition of its own). */
    /** RMSNorm without gamma, its rrms an output too, then Sigmoid; batch dynamic. */
    @Test
    void rmsNormWithRrmsOutput() {
        java.util.function.BiConsumer<Graph, Long> build = (g, b) -> {
            g.add(Op.builder(1, OpKind.RMSNorm).input(f32(0, b, 33)).outputs(f32(11, b, 33), f32(14, b)).build());
            g.add(Op.builder(2, OpKind.Sigmoid).input(f32(11, b, 33)).output(f32(12, b, 33)).build());
        };
        wholeGraphMatches(g -> build.accept(g, 6L), 1);
        CompiledPartition cp = compileDynamic(graph(RUNTIME, g -> build.accept(g, DYNAMIC_DIM)));
        assertEquals(2, cp.outputs().size());
        for (long b : new long[] {1, 5, 64}) {
            partitionMatches(cp, g -> build.accept(g, b), b);
        }
    }

    static CompiledPartition compileDynamic(Graph g) {
        List<io.partita.graph.Partition> parts = compilerParts(g, PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), g.partitions(PartitionPolicy.FUSION).toString());
        assertEquals(CompilerBackend.NORM, parts.get(0).pattern());
        return parts.get(0).compile(Engine.cpu());
    }

    @Test
    void dynamicBatchAndSequenceFromOneCompilation() {
        CompiledPartition ln = compileDynamic(graph(RUNTIME,
                x -> residualLayerNormGelu(x, DYNAMIC_DIM, DYNAMIC_DIM, 768, true)));
        CompiledPartition rms = compileDynamic(graph(RUNTIME, x -> residualRmsNorm(x, DYNAMIC_DIM, DYNAMIC_DIM, 17)));
        CompiledPartition stats = compileDynamic(graph(RUNTIME,
                x -> residualStreamWithStats(x, DYNAMIC_DIM, DYNAMIC_DIM, 40)));
        long[][] shapes = {{1, 1}, {1, 7}, {2, 17}, {3, 33}, {1, 128}};
        long seed = 1;
        for (long[] s : shapes) {
            partitionMatches(ln, x -> residualLayerNormGelu(x, s[0], s[1], 768, true), seed++);
            partitionMatches(rms, x -> residualRmsNorm(x, s[0], s[1], 17), seed++);
            partitionMatches(stats, x -> residualStreamWithStats(x, s[0], s[1], 40), seed++);
        }
    }

    @Test
    void dynamicRowLengthToo() {
        CompiledPartition cp = compileDynamic(graph(RUNTIME,
                x -> residualLayerNormGelu(x, 2, DYNAMIC_DIM, DYNAMIC_DIM, true)));
        for (long c : ROW_LENGTHS) {
            partitionMatches(cp, x -> residualLayerNormGelu(x, 2, 3, c, true), 40 + c);
        }
    }

    @Test
    void oneCompiledPartitionFromManyThreadsWithDifferentShapes() throws Exception {
        CompiledPartition cp = compileDynamic(graph(RUNTIME,
                x -> residualLayerNormGelu(x, DYNAMIC_DIM, DYNAMIC_DIM, 100, true)));
        ExecutorService ex = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 24; t++) {
                long b = 1 + t % 3;
                long s = 1 + 7L * t;
                long seed = 100 + t;
                fs.add(ex.submit(() -> partitionMatches(cp, x -> residualLayerNormGelu(x, b, s, 100, true), seed)));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            ex.shutdownNow();
        }
    }

    /** Row lengths changing call by call on every thread: each thread's kept row buffers are refitted, never shared. */
    @Test
    void rowLengthsChangingFromManyThreads() throws Exception {
        CompiledPartition cp = compileDynamic(graph(RUNTIME,
                x -> residualLayerNormGelu(x, 2, DYNAMIC_DIM, DYNAMIC_DIM, true)));
        ExecutorService ex = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 32; t++) {
                long c = ROW_LENGTHS[t % ROW_LENGTHS.length];
                long s = 1 + t % 5;
                long seed = 300 + t;
                fs.add(ex.submit(() -> partitionMatches(cp, x -> residualLayerNormGelu(x, 2, s, c, true), seed)));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            ex.shutdownNow();
        }
    }

    @Test
    void staticLayerNormAloneIsNotClaimedButDynamicIs() {
        java.util.function.BiConsumer<Graph, Long> alone = (g, b) -> g.add(Op.builder(1, OpKind.LayerNorm)
                .inputs(f32(0, b, 64), f32(2, 64), f32(3, 64)).attr("keep_stats", false).output(f32(11, b, 64)).build());
        assertTrue(compilerParts(graph(RUNTIME, g -> alone.accept(g, 8L)), PartitionPolicy.FUSION).isEmpty());
        onePartition(graph(RUNTIME, g -> alone.accept(g, DYNAMIC_DIM)), CompilerBackend.NORM);
        // RMSNorm has no single-op primitive elsewhere: fused even alone
        onePartition(graph(RUNTIME, g -> g.add(Op.builder(1, OpKind.RMSNorm).inputs(f32(0, 8, 64), f32(2, 64))
                .output(f32(11, 8, 64)).build())), CompilerBackend.NORM);
    }

    @Test
    void debugPolicyClaimsNothing() {
        Graph g = graph(RUNTIME, x -> residualLayerNormGelu(x, DYNAMIC_DIM, 3, 16, true));
        assertTrue(compilerParts(g, PartitionPolicy.DEBUG).isEmpty());
        assertEquals(4, g.partitions(PartitionPolicy.DEBUG).size());
    }

    @Test
    void nonF32IsNotClaimed() {
        Graph g = graph(RUNTIME, x -> {
            x.add(Op.builder(0, OpKind.Add).inputs(bf16(0, 4, 32), bf16(1, 4, 32)).output(bf16(10, 4, 32)).build());
            x.add(Op.builder(1, OpKind.LayerNorm).inputs(bf16(10, 4, 32), f32(2, 32), f32(3, 32))
                    .attr("keep_stats", false).output(bf16(11, 4, 32)).build());
            x.add(Op.builder(2, OpKind.ReLU).input(bf16(11, 4, 32)).output(bf16(12, 4, 32)).build());
        });
        assertTrue(compilerParts(g, PartitionPolicy.FUSION).isEmpty(), g.partitions(PartitionPolicy.FUSION).toString());
    }

    /** Over the last two axes: not this backend's; the runtime still runs it right elsewhere. */
    @Test
    void layerNormOverTwoAxesRunsElsewhere() {
        java.util.function.Consumer<Graph> build = g -> {
            g.add(Op.builder(0, OpKind.Add).inputs(f32(0, 2, 6, 10), f32(1, 2, 6, 10)).output(f32(10, 2, 6, 10)).build());
            g.add(Op.builder(1, OpKind.LayerNorm).inputs(f32(10, 2, 6, 10), f32(2, 6, 10), f32(3, 6, 10))
                    .attr("keep_stats", false).attr("begin_norm_axis", -2L).output(f32(11, 2, 6, 10)).build());
            g.add(Op.builder(2, OpKind.GELU).input(f32(11, 2, 6, 10)).output(f32(12, 2, 6, 10)).build());
        };
        assertTrue(compilerParts(graph(RUNTIME, build), PartitionPolicy.FUSION).isEmpty());
        wholeGraphMatches(build, 5);
    }

    /**
     * The residual stream h feeds a SoftMax outside whose result the post chain would read: fusing
     * the Multiply would make the partition need the SoftMax and the SoftMax need the partition, so
     * the claim stops at the norm.
     */
    @Test
    void postChainReadingAPathFromSrcIsLeftOut() {
        java.util.function.Consumer<Graph> build = g -> {
            g.add(Op.builder(0, OpKind.Add).inputs(f32(0, 4, 24), f32(1, 4, 24)).output(f32(10, 4, 24)).build());
            g.add(Op.builder(1, OpKind.LayerNorm).inputs(f32(10, 4, 24), f32(2, 24), f32(3, 24))
                    .attr("keep_stats", false).output(f32(11, 4, 24)).build());
            g.add(Op.builder(2, OpKind.SoftMax).input(f32(10, 4, 24)).attr("axis", -1L).output(f32(12, 4, 24)).build());
            g.add(Op.builder(3, OpKind.Multiply).inputs(f32(11, 4, 24), f32(12, 4, 24)).output(f32(13, 4, 24)).build());
        };
        Graph g = graph(RUNTIME, build);
        List<io.partita.graph.Partition> parts = compilerParts(g, PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), g.partitions(PartitionPolicy.FUSION).toString());
        assertEquals(2, parts.get(0).ops().size(), "Add and LayerNorm: " + parts);
        wholeGraphMatches(build, 9);
    }

    private static LogicalTensor bf16(long id, long... dims) {
        return LogicalTensor.of(id, DataType.BF16, dims);
    }
}
