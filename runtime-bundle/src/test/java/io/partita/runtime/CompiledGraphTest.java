package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
