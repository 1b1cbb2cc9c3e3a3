package io.partita.testing;

import java.lang.foreign.Arena;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Tensor;

/** Small graphs used across tests. */
public final class Graphs {
    private Graphs() {
    }

    /**
     * Dense f32 inputs of a finalized graph with seeded values in [-1, 1) (the testkit's
     * op-aware generator lives downstream of the runtime; these graphs need no value domains).
     */
    public static Map<Long, Tensor> inputs(Graph graph, Engine engine, Arena arena, long seed) {
        Map<Long, Tensor> out = new LinkedHashMap<>();
        SplittableRandom r = new SplittableRandom(seed);
        for (LogicalTensor t : graph.inputs()) {
            Tensor tensor = Tensor.allocate(t.withLayout(LayoutType.STRIDED), engine, arena);
            double[] v = new double[Math.toIntExact(t.elementCount())];
            for (int i = 0; i < v.length; i++) {
                v[i] = r.nextDouble(-1, 1);
            }
            tensor.copyFrom(v);
            out.put(t.id(), tensor);
        }
        return out;
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
