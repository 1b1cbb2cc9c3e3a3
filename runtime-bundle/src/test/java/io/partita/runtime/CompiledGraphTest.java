package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.HashMap;
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

class CompiledGraphTest {

    @Test
    void matmulAddReluRunsOnTheReferenceBackend() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        LogicalTensor x = LogicalTensor.of(0, DataType.F32, 2, 3);
        LogicalTensor w = LogicalTensor.of(1, DataType.F32, 3, 2);
        LogicalTensor y = LogicalTensor.of(2, DataType.F32, 2, 2);
        LogicalTensor b = LogicalTensor.of(3, DataType.F32, 1, 2);
        LogicalTensor z = LogicalTensor.of(4, DataType.F32, 2, 2);
        LogicalTensor r = LogicalTensor.of(5, DataType.F32, 2, 2);
        g.add(Op.builder(0, OpKind.MatMul).inputs(x, w).output(y).build());
        g.add(Op.builder(1, OpKind.Add).inputs(y, b).output(z).build());
        g.add(Op.builder(2, OpKind.ReLU).input(z).output(r).build());
        g.finalizeGraph();
        assertEquals(3, g.partitions(PartitionPolicy.FUSION).size());
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
            Tensor tx = Tensor.allocate(x, e, arena);
            tx.copyFrom(new float[] {1, 2, 3, 4, 5, 6});
            Tensor tw = Tensor.allocate(w, e, arena);
            tw.copyFrom(new float[] {1, 0, 0, 1, 1, -1});
            Tensor tb = Tensor.allocate(b, e, arena);
            tb.copyFrom(new float[] {0.5f, -10});
            Map<Long, Tensor> out = cg.execute(new Stream(e), Map.of(0L, tx, 1L, tw, 3L, tb));
            // x.w = [[4, -1], [10, -1]]; + b = [[4.5, -11], [10.5, -11]]; relu
            assertArrayEquals(new float[] {4.5f, 0, 10.5f, 0}, out.get(5L).toFloatArray());
        }
    }

    /**
     * A chain of 12 one-op partitions with a skip connection and an intermediate that is also a
     * graph output: intermediates share a few blocks, yet every value is right, on the recorded
     * call, on replays with new input values, and on the graph output a later partition also reads.
     */
    @Test
    void intermediatesShareBlocksByLifetimeWithoutClobberingLiveValues() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        int n = 64;
        LogicalTensor x = LogicalTensor.of(0, DataType.F32, n);
        LogicalTensor two = LogicalTensor.of(1, DataType.F32, n);
        long id = 10;
        // t[0] = x * two; t[i] = t[i-1] + x (i odd), t[i-1] * two (i even); t[6] also a graph output;
        // the last adds t[1] back (a value alive across the whole chain)
        LogicalTensor[] t = new LogicalTensor[12];
        for (int i = 0; i < t.length; i++) {
            t[i] = LogicalTensor.of(id + i, DataType.F32, n);
        }
        g.add(Op.builder(100, OpKind.Multiply).inputs(x, two).output(t[0]).build());
        for (int i = 1; i < 11; i++) {
            OpKind k = i % 2 == 1 ? OpKind.Add : OpKind.Multiply;
            g.add(Op.builder(100 + i, k).inputs(t[i - 1], i % 2 == 1 ? x : two).output(t[i]).build());
        }
        g.add(Op.builder(111, OpKind.Add).inputs(t[10], t[1]).output(t[11]).build());
        g.add(Op.builder(200, OpKind.End).input(t[6]).build());
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
            Tensor tx = Tensor.allocate(x, e, arena);
            Tensor tt = Tensor.allocate(two, e, arena);
            float[] twos = new float[n];
            java.util.Arrays.fill(twos, 2f);
            tt.copyFrom(twos);
            for (int call = 0; call < 3; call++) {
                float[] xs = new float[n];
                for (int j = 0; j < n; j++) {
                    xs[j] = j * 0.25f - call;
                }
                tx.copyFrom(xs);
                Map<Long, Tensor> in = new HashMap<>();
                in.put(0L, tx);
                in.put(1L, tt);
                Map<Long, Tensor> out = cg.execute(new Stream(e), in);
                float[] v6 = new float[n];
                float[] v11 = new float[n];
                for (int j = 0; j < n; j++) {
                    float v = xs[j] * 2;
                    float v1 = 0;
                    for (int i = 1; i < 11; i++) {
                        v = i % 2 == 1 ? v + xs[j] : v * 2;
                        if (i == 1) {
                            v1 = v;
                        }
                        if (i == 6) {
                            v6[j] = v;
                        }
                    }
                    v11[j] = v + v1;
                }
                assertArrayEquals(v11, out.get(21L).toFloatArray(), "last output, call " + call);
                assertArrayEquals(v6, out.get(16L).toFloatArray(), "output read by later partitions, call " + call);
            }
        }
        // Only graph outputs are per-tensor buffers; 11 intermediates fit in a few shared blocks
        // (at most three are alive at once: t[1], the previous value and the new one).
        try (CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e); Arena arena = Arena.ofConfined()) {
            Tensor tx = Tensor.allocate(x, e, arena);
            Tensor tt = Tensor.allocate(two, e, arena);
            cg.execute(new Stream(e), Map.of(0L, tx, 1L, tt));
            int blocks = ((CompiledGraphImpl) cg).sharedBlocks();
            assertTrue(blocks >= 2 && blocks <= 3, "shared blocks " + blocks + " for 10 intermediates");
        }
    }

    /** A graph output that a later partition also reads keeps its value (it is never in a shared block). */
    @Test
    void aGraphOutputReadLaterIsNotShared() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        LogicalTensor x = LogicalTensor.of(0, DataType.F32, 4);
        LogicalTensor a = LogicalTensor.of(1, DataType.F32, 4);
        LogicalTensor b = LogicalTensor.of(2, DataType.F32, 4);
        LogicalTensor c = LogicalTensor.of(3, DataType.F32, 4);
        LogicalTensor d = LogicalTensor.of(4, DataType.F32, 4);
        g.add(Op.builder(0, OpKind.ReLU).input(x).output(a).build());
        g.add(Op.builder(1, OpKind.Add).inputs(a, x).output(b).build());
        g.add(Op.builder(2, OpKind.Add).inputs(b, x).output(c).build());
        g.add(Op.builder(3, OpKind.Add).inputs(c, a).output(d).build());
        g.add(Op.builder(4, OpKind.End).input(b).build());
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
            Tensor tx = Tensor.allocate(x, e, arena);
            tx.copyFrom(new float[] {-1, 2, -3, 4});
            Map<Long, Tensor> out = cg.execute(new Stream(e), Map.of(0L, tx));
            assertEquals(java.util.Set.of(2L, 4L), out.keySet());
            // a = [0,2,0,4]; b = a + x = [-1,4,-3,8]; c = b + x = [-2,6,-6,12]; d = c + a
            assertArrayEquals(new float[] {-1, 4, -3, 8}, out.get(2L).toFloatArray());
            assertArrayEquals(new float[] {-2, 8, -6, 16}, out.get(4L).toFloatArray());
        }
    }
}
