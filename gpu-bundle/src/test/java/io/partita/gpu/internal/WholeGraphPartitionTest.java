package io.partita.gpu.internal;

import static io.partita.gpu.internal.AgainstReference.constant;
import static io.partita.gpu.internal.AgainstReference.f32;
import static io.partita.gpu.internal.AgainstReference.out;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledGraph;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.gpu.internal.cl.Transfers;
import io.partita.testkit.check.RandomInputs;

/**
 * A graph the engine runs entirely is one partition of several kernels: intermediates stay on the
 * device, kernel groups run in dependency order, and only graph inputs and outputs are copied.
 */
class WholeGraphPartitionTest {

    /** MatMul+ReLU -> SoftMax -> MatMul with bias, plus a branch joining the first MatMul's epilogue. */
    private static final Consumer<Graph> NET = g -> {
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 9, 15), constant(1, 15, 21)).output(out(2)).build());
        // a second head between the MatMul and the post-op that reads it: its group must run first
        g.add(Op.builder(1, OpKind.Tanh).input(f32(3, 9, 21)).output(out(4)).build());
        g.add(Op.builder(2, OpKind.Add).inputs(out(2), out(4)).output(out(5)).build());
        g.add(Op.builder(3, OpKind.SoftMax).input(out(5)).output(out(6)).attr("axis", -1L).build());
        g.add(Op.builder(4, OpKind.StaticTranspose).input(out(6)).output(out(7)).attr("order", 1L, 0L).build());
        g.add(Op.builder(5, OpKind.MatMul).inputs(out(7), constant(8, 9, 5), constant(9, 5)).output(out(10)).build());
    };

    @Test
    void oneGraphPartitionMatchesTheReference() {
        List<Partition> parts = AgainstReference.check(NET, 4);
        assertEquals(1, parts.size());
        assertEquals("graph_of_5_kernels", parts.get(0).pattern());
        assertEquals(6, parts.get(0).ops().size());
    }

    @Test
    void onlyGraphInputsAndOutputsCrossToTheHost() {
        GraphRuntime rt = AgainstReference.WITH_GPU;
        Graph g = rt.createGraph(EngineKind.GPU);
        NET.accept(g);
        g.finalizeGraph();
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, AgainstReference.GPU0)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, AgainstReference.GPU0, arena, 2);
            cg.execute(new Stream(AgainstReference.GPU0), in); // the constants go over once
            Transfers.Snapshot before = AgainstReference.BACKEND.transfers(0);
            cg.execute(new Stream(AgainstReference.GPU0), in);
            Transfers.Snapshot d = AgainstReference.BACKEND.transfers(0).since(before);
            assertEquals(2, d.toDevice(), "the two variable inputs: " + d);
            assertEquals(4L * (9 * 15 + 9 * 21), d.toDeviceBytes(), d.toString());
            assertEquals(1, d.toHost(), "the one output: " + d);
            assertEquals(4L * 21 * 5, d.toHostBytes(), d.toString());
        }
    }

    @Test
    void anUnsupportedOpKeepsKernelGroupsAsSeparatePartitions() {
        Graph g = AgainstReference.WITH_GPU.createGraph(EngineKind.GPU);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 4, 6), constant(1, 6, 8)).output(out(2)).build());
        g.add(Op.builder(1, OpKind.ReLU).input(out(2)).output(out(3)).build());
        // a bf16 output: the engine runs f32 only
        g.add(Op.builder(2, OpKind.TypeCast).input(out(3)).output(io.partita.graph.LogicalTensor.of(4,
                io.partita.graph.DataType.BF16, 4, 8)).build());
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(2, parts.size());
        assertEquals("gpu", parts.get(0).backendId());
        assertEquals("matmul_relu", parts.get(0).pattern());
        assertEquals("reference", parts.get(1).backendId());
    }

    @Test
    void debugPolicyClaimsSingleOps() {
        Graph g = AgainstReference.WITH_GPU.createGraph(EngineKind.GPU);
        NET.accept(g);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.DEBUG);
        assertEquals(6, parts.size());
        parts.forEach(p -> assertEquals("gpu", p.backendId()));
    }
}
