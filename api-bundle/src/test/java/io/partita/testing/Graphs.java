package io.partita.testing;

import io.partita.graph.DataType;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;

/** Small graphs used across tests. */
public final class Graphs {
    private Graphs() {
    }

    public static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    /**
     * x[m,k] -MatMul(w0[k,n])-> t2 -ReLU-> t3 -MatMul(w1[n,n])-> t5 -ReLU-> t6 (ops 0..3).
     */
    public static Graph twoLayers(GraphRuntime rt, long m, long k, long n) {
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, m, k), f32(1, k, n)).output(f32(2, m, n)).build());
        g.add(Op.builder(1, OpKind.ReLU).input(f32(2, m, n)).output(f32(3, m, n)).build());
        g.add(Op.builder(2, OpKind.MatMul).inputs(f32(3, m, n), f32(4, n, n)).output(f32(5, m, n)).build());
        g.add(Op.builder(3, OpKind.ReLU).input(f32(5, m, n)).output(f32(6, m, n)).build());
        return g;
    }
}
