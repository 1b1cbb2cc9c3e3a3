package io.partita.runtime;

import static io.partita.testing.Graphs.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.BackendUnavailableException;
import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
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
import io.partita.testing.Graphs;
import io.partita.testing.TestBackend;

/** The partitioner's contract: ranks, claim validation (convexity, overlap, DEBUG), fallback, order. */
class PartitionerTest {

    private static List<List<Long>> opIds(List<Partition> parts) {
        return parts.stream().map(p -> p.ops().stream().map(Op::id).toList()).toList();
    }

    @Test
    void fusingBackendClaimsAndTheRestGoesToTheReference() {
        TestBackend fuse = TestBackend.matmulRelu("fuse", 10);
        RuntimeCore rt = StandaloneRuntime.of(fuse);
        Graph g = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(List.of(List.of(0L, 1L), List.of(2L, 3L)), opIds(parts));
        assertEquals(List.of("fuse", "fuse"), parts.stream().map(Partition::backendId).toList());
        assertEquals("matmul_relu", parts.get(0).pattern());
        assertEquals(List.of(3L), parts.get(0).outputs().stream().map(LogicalTensor::id).toList());
        assertEquals(List.of(3L, 4L), parts.get(1).inputs().stream().map(LogicalTensor::id).toList());
        // DEBUG: the backend claims nothing, every op its own reference partition
        List<Partition> debug = g.partitions(PartitionPolicy.DEBUG);
        assertEquals(4, debug.size());
        assertTrue(debug.stream().allMatch(p -> p.backendId().equals("reference") && p.pattern().equals("single_op")));
    }

    @Test
    void higherRankClaimsFirst() {
        TestBackend low = TestBackend.matmulRelu("low", 1);
        TestBackend high = new TestBackend("high", 5, (g, p) -> List.of(Claim.of("first_matmul", 0L)));
        RuntimeCore rt = StandaloneRuntime.of(low, high);
        Graph g = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(List.of(List.of(0L), List.of(1L), List.of(2L, 3L)), opIds(parts));
        assertEquals(List.of("high", "reference", "low"), parts.stream().map(Partition::backendId).toList());
        assertEquals(List.of("high", "low", "reference"), rt.backends().stream().map(b -> b.id()).toList());
    }

    @Test
    void nonConvexClaimIsRejected() {
        // ops 0 -> 1 -> 2 -> 3; claiming {0, 2} would route a path through op 1 outside the claim
        TestBackend bad = new TestBackend("bad", 5, (g, p) -> List.of(Claim.of("gap", 0L, 2L)));
        RuntimeCore rt = StandaloneRuntime.of(bad);
        Graph g = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(4, parts.size());
        assertTrue(parts.stream().allMatch(p -> p.backendId().equals("reference")));
    }

    @Test
    void overlappingUnknownAndDebugViolatingClaimsAreRejected() {
        TestBackend overlapping = new TestBackend("o", 5,
                (g, p) -> List.of(Claim.of("a", 0L, 1L), Claim.of("b", 1L, 2L), Claim.of("c", 99L)));
        RuntimeCore rt = StandaloneRuntime.of(overlapping);
        Graph g = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph();
        assertEquals(List.of(List.of(0L, 1L), List.of(2L), List.of(3L)), opIds(g.partitions(PartitionPolicy.FUSION)));
        // DEBUG allows one op per claim only
        assertEquals(List.of(List.of(0L), List.of(1L), List.of(2L), List.of(3L)),
                opIds(g.partitions(PartitionPolicy.DEBUG)));
        assertTrue(g.partitions(PartitionPolicy.DEBUG).stream().allMatch(p -> p.backendId().equals("reference")));
    }

    @Test
    void aBackendThatThrowsWhileClaimingGetsNothing() {
        TestBackend broken = new TestBackend("broken", 5, (g, p) -> {
            throw new IllegalStateException("boom");
        });
        RuntimeCore rt = StandaloneRuntime.of(broken);
        Graph g = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph();
        assertTrue(g.partitions(PartitionPolicy.FUSION).stream().allMatch(p -> p.backendId().equals("reference")));
    }

    @Test
    void partitionsComeInTopologicalOrderEvenWhenAddedOutOfOrder() {
        RuntimeCore rt = StandaloneRuntime.of();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(9, OpKind.ReLU).input(f32(2, 4)).output(f32(3, 4)).build());
        g.add(Op.builder(5, OpKind.ReLU).input(f32(1, 4)).output(f32(2, 4)).build());
        g.add(Op.builder(1, OpKind.ReLU).input(f32(0, 4)).output(f32(1, 4)).build());
        g.finalizeGraph();
        assertEquals(List.of(List.of(1L), List.of(5L), List.of(9L)), opIds(g.partitions(PartitionPolicy.FUSION)));
    }

    @Test
    void fusedAndReferencePartitionsComputeTheSameGraph() {
        TestBackend fuse = TestBackend.matmulRelu("fuse", 10);
        RuntimeCore fused = StandaloneRuntime.of(fuse);
        RuntimeCore ref = StandaloneRuntime.of();
        Graph gf = Graphs.twoLayers(fused, 5, 7, 3).finalizeGraph();
        Graph gr = Graphs.twoLayers(ref, 5, 7, 3).finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cf = fused.compile(gf, PartitionPolicy.FUSION, e);
                CompiledGraph cr = ref.compile(gr, PartitionPolicy.FUSION, e)) {
            Map<Long, Tensor> in = Graphs.inputs(gf, e, arena, 7);
            float[] a = cf.execute(new Stream(e), in).get(6L).toFloatArray();
            float[] b = cr.execute(new Stream(e), in).get(6L).toFloatArray();
            assertArrayEquals(b, a);
            assertEquals(2, fuse.executions.get());
        }
    }

    @Test
    void removedBackendFailsItsCompiledPartitionsAndLeavesTheNextPartitioning() {
        TestBackend fuse = TestBackend.matmulRelu("fuse", 10);
        RuntimeCore rt = StandaloneRuntime.of(fuse);
        Graph g = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph();
        Partition p = g.partitions(PartitionPolicy.FUSION).get(0);
        CompiledPartition cp = p.compile(Engine.cpu());
        rt.removeBackend(fuse);
        try (Arena arena = Arena.ofConfined()) {
            Engine e = Engine.cpu();
            List<Tensor> ins = cp.inputs().stream().map(t -> Tensor.allocate(t, e, arena)).toList();
            List<Tensor> outs = cp.outputs().stream().map(t -> Tensor.allocate(t, e, arena)).toList();
            BackendUnavailableException ex = assertThrows(BackendUnavailableException.class,
                    () -> cp.execute(new Stream(e), ins, outs));
            assertEquals("fuse", ex.backendId());
            assertTrue(ex.getMessage().contains("partition the graph again"), ex.getMessage());
        }
        assertThrows(BackendUnavailableException.class, () -> p.compile(Engine.cpu()));
        assertTrue(g.partitions(PartitionPolicy.FUSION).stream().allMatch(q -> q.backendId().equals("reference")));
    }
}
