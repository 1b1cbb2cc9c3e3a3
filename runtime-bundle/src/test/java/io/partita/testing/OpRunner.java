package io.partita.testing;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/** Runs a single op through the whole public path (graph, partition, compile, execute) on a runtime. */
public final class OpRunner {
    private OpRunner() {
    }

    /** Runs one op on the reference backend; inputs in logical row-major order; returns every output. */
    public static List<double[]> run(Op op, double[]... inputs) {
        return run(GraphRuntime.referenceOnly(), op, inputs);
    }

    public static List<double[]> run(GraphRuntime rt, Op op, double[]... inputs) {
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(op);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        if (parts.size() != 1) {
            throw new IllegalStateException("expected one partition, got " + parts);
        }
        Partition p = parts.get(0);
        Engine e = Engine.cpu();
        CompiledPartition cp = p.compile(e);
        try (Arena arena = Arena.ofConfined()) {
            List<Tensor> ins = new ArrayList<>();
            for (int i = 0; i < cp.inputs().size(); i++) {
                LogicalTensor lt = cp.inputs().get(i);
                Tensor t = Tensor.allocate(lt, e, arena);
                t.copyFrom(inputs[indexOf(g.ops().get(0), lt.id())]);
                ins.add(t);
            }
            List<Tensor> outs = new ArrayList<>();
            for (LogicalTensor lt : cp.outputs()) {
                outs.add(Tensor.allocate(lt, e, arena));
            }
            cp.execute(new Stream(e), ins, outs);
            List<double[]> result = new ArrayList<>();
            for (LogicalTensor lt : g.ops().get(0).outputs()) {
                for (Tensor t : outs) {
                    if (t.id() == lt.id()) {
                        result.add(t.toDoubleArray());
                    }
                }
            }
            return result;
        }
    }

    private static int indexOf(Op op, long tensorId) {
        for (int i = 0; i < op.inputs().size(); i++) {
            if (op.input(i).id() == tensorId) {
                return i;
            }
        }
        throw new IllegalArgumentException("tensor " + tensorId + " is not an input of " + op.describe());
    }

    /** The output dims the graph inferred for output i of a single-op graph. */
    public static long[] inferredDims(Op op, int output) {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        g.add(op);
        g.finalizeGraph();
        return g.ops().get(0).output(output).dims();
    }

    /** A dense f32 logical tensor. */
    public static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, io.partita.graph.DataType.F32, dims);
    }
}
