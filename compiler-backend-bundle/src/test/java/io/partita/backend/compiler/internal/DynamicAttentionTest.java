package io.partita.backend.compiler.internal;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/**
 * BERT-style attention with batch and sequence length dynamic: compiled once by the graph
 * compiler, executed for many shapes (1, odd, not a multiple of the vector width, past one key
 * block), each compared with the reference backend compiled for that shape; and the same
 * compiled partition executed from several threads with different shapes at once.
 */
class DynamicAttentionTest {
    private static final GraphRuntime RUNTIME = CorpusAttentionTest.RUNTIME;
    private static final GraphRuntime REFERENCE = GraphRuntime.referenceOnly();
    private static final long HEADS = 3;
    private static final long HEAD = 16;

    /** Q, K, V [B,H,S,D]; scores / 4 + mask [B,1,1,S]; SoftMax; x V; transpose to [B,S,H,D]. */
    static void build(Graph g, long b, long s) {
        build(g, b, s, HEAD);
    }

    static void build(Graph g, long b, long s, long head) {
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, b, HEADS, s, head), f32(1, b, HEADS, s, head))
                .attr("transpose_b", true).output(f32(10, b, HEADS, s, s)).build());
        g.add(Op.builder(1, OpKind.Divide).inputs(f32(10, b, HEADS, s, s), f32(2).withProperty(PropertyType.CONSTANT))
                .output(f32(11, b, HEADS, s, s)).build());
        g.add(Op.builder(2, OpKind.Add).inputs(f32(11, b, HEADS, s, s), f32(3, b, 1, 1, s))
                .output(f32(12, b, HEADS, s, s)).build());
        g.add(Op.builder(3, OpKind.SoftMax).input(f32(12, b, HEADS, s, s)).attr("axis", -1L)
                .output(f32(13, b, HEADS, s, s)).build());
        g.add(Op.builder(4, OpKind.MatMul).inputs(f32(13, b, HEADS, s, s), f32(4, b, HEADS, s, head))
                .output(f32(14, b, HEADS, s, head)).build());
        g.add(Op.builder(5, OpKind.StaticTranspose).input(f32(14, b, HEADS, s, head)).attr("order", 0L, 2L, 1L, 3L)
                .output(f32(15, b, s, HEADS, head)).build());
    }

    /**
     * The same block ending in DynamicTranspose (order tensor 5: back to [B,H,S,D]) and
     * DynamicReshape (shape tensor 6: [0,0,-1], to [B,H,S*D]), a view the output strides fold.
     */
    static void buildWithDynamicViews(Graph g, long b, long s) {
        build(g, b, s);
        g.add(Op.builder(6, OpKind.DynamicTranspose).inputs(f32(15, b, s, HEADS, HEAD),
                LogicalTensor.of(5, DataType.S64, 4)).output(f32(16, b, HEADS, s, HEAD)).build());
        g.add(Op.builder(7, OpKind.DynamicReshape).inputs(f32(16, b, HEADS, s, HEAD), LogicalTensor.of(6, DataType.S64, 3))
                .attr("special_zero", true).output(f32(17, b, HEADS, s == DYNAMIC_DIM ? DYNAMIC_DIM : s * HEAD)).build());
    }

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static CompiledPartition compileDynamic() {
        return compileDynamic(HEAD);
    }

    static CompiledPartition compileDynamic(long head) {
        Graph g = RUNTIME.createGraph(EngineKind.CPU);
        build(g, DYNAMIC_DIM, DYNAMIC_DIM, head);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals(CompilerBackend.ID, parts.get(0).backendId());
        return parts.get(0).compile(Engine.cpu());
    }

    @Test
    void compiledOnceRunsEveryShape() {
        CompiledPartition cp = compileDynamic();
        // query groups of 1..14 rows and a 14-row group plus a few; 530 keys: two blocks of the online softmax
        long[][] shapes = {{1, 1}, {1, 7}, {2, 9}, {1, 14}, {1, 15}, {1, 31}, {3, 64}, {1, 67}, {2, 130}, {1, 300},
            {1, 530}};
        long seed = 1;
        for (long[] shape : shapes) {
            check(cp, shape[0], shape[1], seed++);
        }
    }

    /** A head dim past the staged row of the score tile (512 values): the scores are summed over its chunks. */
    @Test
    void headDimBeyondOneStagedRow() {
        CompiledPartition cp = compileDynamic(530);
        check(cp, 1, 5, 21, false, 530);
        check(cp, 1, 33, 22, false, 530);
    }

    /** DynamicTranspose and DynamicReshape after the block: their order and shape are read at every execution. */
    @Test
    void dynamicViewsAfterTheBlockAreFoldedIntoTheOutputStrides() {
        Graph g = RUNTIME.createGraph(EngineKind.CPU);
        buildWithDynamicViews(g, DYNAMIC_DIM, DYNAMIC_DIM);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals(CompilerBackend.ID, parts.get(0).backendId());
        CompiledPartition cp = parts.get(0).compile(Engine.cpu());
        check(cp, 1, 5, 3, true);
        check(cp, 2, 33, 4, true);
    }

    @Test
    void oneCompiledPartitionFromManyThreadsWithDifferentShapes() throws Exception {
        CompiledPartition cp = compileDynamic();
        ExecutorService ex = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 24; t++) {
                long b = 1 + t % 3;
                long s = 5 + 11L * t;
                long seed = 100 + t;
                fs.add(ex.submit(() -> check(cp, b, s, seed)));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            ex.shutdownNow();
        }
    }

    /** Executes the dynamic partition for one shape and compares with the reference compiled for it. */
    private static void check(CompiledPartition cp, long b, long s, long seed) {
        check(cp, b, s, seed, false);
    }

    private static void check(CompiledPartition cp, long b, long s, long seed, boolean dynamicViews) {
        check(cp, b, s, seed, dynamicViews, HEAD);
    }

    private static void check(CompiledPartition cp, long b, long s, long seed, boolean dynamicViews, long head) {
        Graph r = REFERENCE.createGraph(EngineKind.CPU);
        if (dynamicViews) {
            buildWithDynamicViews(r, b, s);
        } else {
            build(r, b, s, head);
        }
        r.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofShared(); CompiledGraph rg = REFERENCE.compile(r, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in;
            if (dynamicViews) {
                // random data for the block's inputs; the order and shape tensors get their values
                Graph plain = REFERENCE.createGraph(EngineKind.CPU);
                build(plain, b, s);
                plain.finalizeGraph();
                in = new java.util.HashMap<>(RandomInputs.forGraph(REFERENCE, plain, e, arena, seed));
                Tensor order = Tensor.allocate(LogicalTensor.of(5, DataType.S64, 4), e, arena);
                order.copyFrom(new double[] {0, 2, 1, 3});
                Tensor shape = Tensor.allocate(LogicalTensor.of(6, DataType.S64, 3), e, arena);
                shape.copyFrom(new double[] {0, 0, -1});
                in.put(5L, order);
                in.put(6L, shape);
            } else {
                in = RandomInputs.forGraph(REFERENCE, r, e, arena, seed);
            }
            long outId = dynamicViews ? 17L : 15L;
            Tensor expected = rg.execute(new Stream(e), in).get(outId);
            List<Tensor> ins = cp.inputs().stream().map(t -> in.get(t.id())).toList();
            // value-dependent output dims: the caller knows them (inferOutputs sees no values)
            List<LogicalTensor> outLts = dynamicViews ? List.of(f32(17, b, HEADS, s * HEAD))
                    : cp.inferOutputs(ins.stream().map(Tensor::logicalTensor).toList());
            assertEquals(dynamicViews ? List.of(b, HEADS, s * HEAD) : List.of(b, s, HEADS, head),
                    java.util.Arrays.stream(outLts.get(0).dims()).boxed().toList());
            Tensor actual = Tensor.allocate(outLts.get(0), e, arena);
            cp.execute(new Stream(e), ins, List.of(actual));
            OutputComparison.Result res = OutputComparison.compare(expected, actual);
            assertTrue(res.matches(), "B=" + b + " S=" + s + ": " + res.describe());
        }
    }
}
