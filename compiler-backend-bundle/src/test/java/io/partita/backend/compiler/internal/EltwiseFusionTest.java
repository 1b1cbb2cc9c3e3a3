package io.partita.backend.compiler.internal;

import static io.partita.backend.compiler.internal.RowFusionChecks.RUNTIME;
import static io.partita.backend.compiler.internal.RowFusionChecks.compilerParts;
import static io.partita.backend.compiler.internal.RowFusionChecks.f32;
import static io.partita.backend.compiler.internal.RowFusionChecks.graph;
import static io.partita.backend.compiler.internal.RowFusionChecks.onePartition;
import static io.partita.backend.compiler.internal.RowFusionChecks.partitionMatches;
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

import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;

/**
 * Elementwise chains with dynamic dims (pattern {@code eltwise}): bias vectors and scalars
 * broadcast, rows or flat chunks, many shapes from one compilation; static chains and single ops
 * are left to the other backends.
 */
class EltwiseFusionTest {

    /** (x + bias[C]) -> GELU -> * scale (one element) -> Clamp. */
    static void biasGelu(Graph g, long b, long s, long c) {
        g.add(Op.builder(0, OpKind.Add).inputs(f32(0, b, s, c), f32(1, c).withProperty(PropertyType.CONSTANT))
                .output(f32(10, b, s, c)).build());
        g.add(Op.builder(1, OpKind.GELU).input(f32(10, b, s, c)).output(f32(11, b, s, c)).build());
        g.add(Op.builder(2, OpKind.Multiply).inputs(f32(11, b, s, c), f32(2, 1)).output(f32(12, b, s, c)).build());
        g.add(Op.builder(3, OpKind.Clamp).input(f32(12, b, s, c)).attr("min", -0.5f).attr("max", 2f)
                .output(f32(13, b, s, c)).build());
    }

    /** SiLU gating of two same-shaped tensors: x * sigmoid(x) * y (no broadcasting: flat chunks). */
    static void gate(Graph g, long b, long c) {
        g.add(Op.builder(0, OpKind.Sigmoid).input(f32(0, b, c)).output(f32(10, b, c)).build());
        g.add(Op.builder(1, OpKind.Multiply).inputs(f32(0, b, c), f32(10, b, c)).output(f32(11, b, c)).build());
        g.add(Op.builder(2, OpKind.Multiply).inputs(f32(11, b, c), f32(1, b, c)).output(f32(12, b, c)).build());
    }

    @Test
    void biasChainForEveryShapeFromOneCompilation() {
        CompiledPartition cp = onePartition(graph(RUNTIME, g -> biasGelu(g, DYNAMIC_DIM, DYNAMIC_DIM, 768)),
                CompilerBackend.ELTWISE).compile(Engine.cpu());
        CompiledPartition small = onePartition(graph(RUNTIME, g -> biasGelu(g, DYNAMIC_DIM, 3, 7)),
                CompilerBackend.ELTWISE).compile(Engine.cpu());
        long seed = 1;
        for (long[] s : new long[][] {{1, 1}, {1, 7}, {2, 17}, {3, 33}}) {
            partitionMatches(cp, g -> biasGelu(g, s[0], s[1], 768), seed++);
            partitionMatches(small, g -> biasGelu(g, s[1], 3, 7), seed++);
        }
    }

    @Test
    void sameShapedOperandsInFlatChunks() {
        CompiledPartition cp = onePartition(graph(RUNTIME, g -> gate(g, DYNAMIC_DIM, 5)), CompilerBackend.ELTWISE)
                .compile(Engine.cpu());
        long seed = 7;
        for (long b : new long[] {1, 3, 819, 1000, 4000}) {
            partitionMatches(cp, g -> gate(g, b, 5), seed++);
        }
    }

    @Test
    void manyThreadsWithDifferentShapes() throws Exception {
        CompiledPartition cp = onePartition(graph(RUNTIME, g -> biasGelu(g, DYNAMIC_DIM, DYNAMIC_DIM, 17)),
                CompilerBackend.ELTWISE).compile(Engine.cpu());
        ExecutorService ex = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 12; t++) {
                long b = 1 + t % 3;
                long s = 1 + 11L * t;
                long seed = 50 + t;
                fs.add(ex.submit(() -> partitionMatches(cp, g -> biasGelu(g, b, s, 17), seed)));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            ex.shutdownNow();
        }
    }

    @Test
    void staticChainsAndSingleOpsAreNotClaimed() {
        assertTrue(compilerParts(graph(RUNTIME, g -> biasGelu(g, 2, 3, 16)), PartitionPolicy.FUSION).isEmpty());
        assertTrue(compilerParts(graph(RUNTIME, g -> g.add(Op.builder(0, OpKind.ReLU).input(f32(0, DYNAMIC_DIM, 8))
                .output(f32(10, DYNAMIC_DIM, 8)).build())), PartitionPolicy.FUSION).isEmpty());
        Graph dynamic = graph(RUNTIME, g -> biasGelu(g, DYNAMIC_DIM, 3, 16));
        assertTrue(compilerParts(dynamic, PartitionPolicy.DEBUG).isEmpty());
    }

    /** An intermediate read outside the chain ends it there: the chain writes one result. */
    @Test
    void chainStopsWhereAnIntermediateLeaves() {
        Graph g = graph(RUNTIME, x -> {
            biasGelu(x, DYNAMIC_DIM, 2, 8);
            x.add(Op.builder(4, OpKind.End).input(f32(11, DYNAMIC_DIM, 2, 8)).build());
        });
        var parts = compilerParts(g, PartitionPolicy.FUSION);
        assertEquals(2, parts.size(), g.partitions(PartitionPolicy.FUSION).toString());
        assertEquals(List.of(2, 2), parts.stream().map(p -> p.ops().size()).toList());
    }
}
