package io.partita.runtime;

import static io.partita.testing.Graphs.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.spi.Claim;
import io.partita.testing.TestBackend;

/**
 * Claims that are each convex but close a cycle together: the later one is rejected, its ops stay
 * free for other backends or the reference, and the graph still partitions and runs.
 */
class PartitionerCycleTest {

    /**
     * Two independent chains: op0 = x*y -> t2 -ReLU(op1)-> t3, and op2 = u+v -> t6 -Abs(op3)-> t7.
     * Claims {op0, op3} and {op1, op2} are each convex, but op0 feeds op1 and op2 feeds op3, so the
     * two partitions would feed each other.
     */
    private static Graph crossedChains(RuntimeCore rt) {
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.Multiply).inputs(f32(0, 4), f32(1, 4)).output(f32(2, 4)).build());
        g.add(Op.builder(1, OpKind.ReLU).input(f32(2, 4)).output(f32(3, 4)).build());
        g.add(Op.builder(2, OpKind.Add).inputs(f32(4, 4), f32(5, 4)).output(f32(6, 4)).build());
        g.add(Op.builder(3, OpKind.Abs).input(f32(6, 4)).output(f32(7, 4)).build());
        return g.finalizeGraph();
    }

    private static final Claim OUTER = Claim.of("outer", 0L, 3L);
    private static final Claim INNER = Claim.of("inner", 1L, 2L);

    private static List<List<Long>> opIds(List<Partition> parts) {
        return parts.stream().map(p -> p.ops().stream().map(Op::id).toList()).toList();
    }

    @Test
    void eachClaimIsConvexAlone() {
        // Without the other, either claim is accepted: the rejection below is about the pair.
        for (Claim c : List.of(OUTER, INNER)) {
            RuntimeCore rt = StandaloneRuntime.of(new TestBackend("one", 5, (g, p) -> List.of(c)));
            List<Partition> parts = crossedChains(rt).partitions(PartitionPolicy.FUSION);
            assertEquals(3, parts.size(), c.toString());
            assertTrue(parts.stream().anyMatch(p -> p.backendId().equals("one") && p.ops().size() == 2), c.toString());
        }
    }

    @Test
    void theLaterClaimClosingACycleIsRejectedAndItsOpsGoToTheReference() {
        TestBackend cross = new TestBackend("cross", 5, (g, p) -> List.of(OUTER, INNER));
        RuntimeCore rt = StandaloneRuntime.of(cross);
        List<Partition> parts = crossedChains(rt).partitions(PartitionPolicy.FUSION);
        // the first claim is kept, op1 and op2 fall back to single-op reference partitions
        assertEquals(List.of(List.of(1L), List.of(0L, 3L), List.of(2L)).size(), parts.size());
        Partition outer = parts.stream().filter(p -> p.backendId().equals("cross")).findFirst().orElseThrow();
        assertEquals(List.of(0L, 3L), outer.ops().stream().map(Op::id).toList());
        assertEquals("outer", outer.pattern());
        for (Partition p : parts) {
            if (p != outer) {
                assertEquals("reference", p.backendId());
                assertEquals(1, p.ops().size());
            }
        }
        // a valid topological order: op2 before the outer partition (it feeds op3), op1 after (fed by op0)
        List<List<Long>> order = opIds(parts);
        assertTrue(order.indexOf(List.of(2L)) < order.indexOf(List.of(0L, 3L)), order.toString());
        assertTrue(order.indexOf(List.of(0L, 3L)) < order.indexOf(List.of(1L)), order.toString());
    }

    @Test
    void aLowerRankedBackendMayClaimTheRejectedOps() {
        TestBackend high = new TestBackend("high", 10, (g, p) -> List.of(OUTER, INNER));
        // offered after "high": op1 and op2 are still unclaimed, and alone they close no cycle
        TestBackend low = new TestBackend("low", 1, (g, p) -> {
            List<Claim> out = new ArrayList<>();
            for (long id : new long[] {1, 2}) {
                if (!g.isClaimed(id)) {
                    out.add(Claim.of("single", id));
                }
            }
            return out;
        });
        RuntimeCore rt = StandaloneRuntime.of(high, low);
        List<Partition> parts = crossedChains(rt).partitions(PartitionPolicy.FUSION);
        assertEquals(List.of(List.of(2L), List.of(0L, 3L), List.of(1L)), opIds(parts));
        assertEquals(List.of("low", "high", "low"), parts.stream().map(Partition::backendId).toList());
    }

    @Test
    void theGraphStillCompilesAndComputesTheRightValues() {
        TestBackend cross = new TestBackend("cross", 5, (g, p) -> List.of(OUTER, INNER));
        RuntimeCore rt = StandaloneRuntime.of(cross);
        Graph g = crossedChains(rt);
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
            Map<Long, Tensor> in = Map.of(
                    0L, tensor(e, arena, 0, 1, -2, 3, -4),
                    1L, tensor(e, arena, 1, 2, 2, -1, -1),
                    4L, tensor(e, arena, 4, 1, -5, 0.5f, -0.25f),
                    5L, tensor(e, arena, 5, -3, 1, 0.25f, -0.5f));
            Map<Long, Tensor> out = cg.execute(new Stream(e), in);
            // ReLU(x*y) and |u+v|
            assertArrayEquals(new float[] {2, 0, 0, 4}, out.get(3L).toFloatArray());
            assertArrayEquals(new float[] {2, 4, 0.75f, 0.75f}, out.get(7L).toFloatArray());
            assertEquals(1, cross.executions.get(), "the accepted claim ran on its backend");
        }
    }

    private static Tensor tensor(Engine e, Arena arena, long id, float... values) {
        Tensor t = Tensor.allocate(LogicalTensor.of(id, io.partita.graph.DataType.F32, values.length), e, arena);
        double[] d = new double[values.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = values[i];
        }
        t.copyFrom(d);
        return t;
    }

    /**
     * A 50,000-op ladder: a[i] = ReLU(a[i-1]), b[i] = a[i] + b[i-1]. One backend claims every rung
     * {a[i], b[i]} (convex and acyclic); another, ranked higher, claims crossing pairs
     * {a[i], b[i-1]} on every 100th rung; the rungs overlapping those are rejected, and so is the
     * pair {a[i-1], b[i]} left around each, which would close a cycle through it. The check must
     * stay near-linear: a quadratic one takes minutes here.
     */
    @Test
    void aFiftyThousandOpLadderPartitionsQuickly() {
        int rungs = 25_000;
        TestBackend crossing = new TestBackend("crossing", 10, (g, p) -> {
            List<Claim> out = new ArrayList<>();
            for (int i = 100; i < rungs; i += 100) {
                out.add(Claim.of("crossing", 2L * i, 2L * (i - 1) + 1));
            }
            return out;
        });
        TestBackend rungsBackend = new TestBackend("rungs", 5, (g, p) -> {
            List<Claim> out = new ArrayList<>();
            for (int i = 0; i < rungs; i++) {
                out.add(Claim.of("rung", 2L * i, 2L * i + 1));
            }
            // {a[i-1], b[i]} around a crossing claim: a[i-1] feeds it and b[i] is fed by it
            for (int i = 100; i < rungs; i += 100) {
                out.add(Claim.of("around", 2L * (i - 1), 2L * i + 1));
            }
            return out;
        });
        RuntimeCore rt = StandaloneRuntime.of(crossing, rungsBackend);
        Graph g = rt.createGraph(EngineKind.CPU);
        // tensor ids: a[i] -> 3i+1, b[i] -> 3i+2; inputs a[-1] = 0, b[-1] = 3*rungs+1
        long bPrev = 3L * rungs + 1;
        for (int i = 0; i < rungs; i++) {
            long aPrev = i == 0 ? 0 : 3L * (i - 1) + 1;
            g.add(Op.builder(2L * i, OpKind.ReLU).input(f32(aPrev, 8)).output(f32(3L * i + 1, 8)).build());
            g.add(Op.builder(2L * i + 1, OpKind.Add).inputs(f32(3L * i + 1, 8), f32(bPrev, 8))
                    .output(f32(3L * i + 2, 8)).build());
            bPrev = 3L * i + 2;
        }
        g.finalizeGraph();
        long t0 = System.nanoTime();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("partitioning a " + 2 * rungs + "-op ladder took " + ms + " ms");
        long crossingParts = parts.stream().filter(p -> p.backendId().equals("crossing")).count();
        long rungParts = parts.stream().filter(p -> p.backendId().equals("rungs")).count();
        long reference = parts.stream().filter(p -> p.backendId().equals("reference")).count();
        // {a[i], b[i-1]} is convex alone (a[i] and b[i-1] are not connected) and the crossing claims
        // do not touch each other; every rung touching one is then claimed already or rejected
        assertEquals(rungs / 100 - 1, crossingParts);
        // rungs i-1 and i lose one op each to crossing claim i; the rest of them are claimed
        assertEquals(rungs - 2 * (rungs / 100 - 1), rungParts);
        assertEquals(2 * (rungs / 100 - 1), reference);
        assertTrue(ms < 20_000, "partitioning took " + ms + " ms");
    }
}
