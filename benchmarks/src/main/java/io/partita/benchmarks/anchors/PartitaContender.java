package io.partita.benchmarks.anchors;

import java.lang.foreign.Arena;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.partita.graph.CompiledGraph;
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

/**
 * Partita on the plain class path: the case as a oneDNN-style graph (constant weights and biases),
 * partitioned with the FUSION policy, compiled once, executed through the public API exactly as a
 * user would. The DNNL-style backend must claim every op: a case that falls back to the reference
 * backend is refused rather than timed. Weights are packed into the constant cache by the untimed
 * first execution in {@link #prepare}.
 */
public final class PartitaContender implements Contender {
    private final int threads;
    private final Arena arena = Arena.ofShared();
    private final Engine engine = Engine.cpu();
    private final Stream stream = new Stream(engine);
    private final Map<Long, Tensor> inputs = new LinkedHashMap<>();
    private GraphRuntime runtime;
    private CompiledGraph compiled;
    private Tensor output;
    private String partitions = "";

    public PartitaContender(int threads) {
        this.threads = threads;
    }

    @Override
    public String name() {
        return Contenders.PARTITA;
    }

    @Override
    public String describe() {
        return "Partita DNNL-style backend (Java " + Runtime.version() + ", Vector API), threads " + threads
                + (partitions.isEmpty() ? "" : ", partitions " + partitions);
    }

    @Override
    public void prepare(Case c) {
        runtime = GraphRuntime.standalone();
        runtime.setThreads(threads);
        Graph g = runtime.createGraph(EngineKind.CPU);
        long outId = switch (c) {
            case Case.MatMul mm -> matmul(g, mm);
            case Case.Conv conv -> conv(g, conv);
            case Case.Mlp mlp -> mlp(g, mlp);
        };
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        partitions = String.join(" ", parts.stream().map(p -> p.backendId() + ":" + p.pattern()).toList());
        for (Partition p : parts) {
            if (!p.backendId().equals("dnnl")) {
                throw new IllegalStateException("the dnnl backend did not claim partition " + p.id() + " (" + p.pattern()
                        + ", " + p.backendId() + "): not measuring the reference backend");
            }
        }
        compiled = runtime.compile(g, PartitionPolicy.FUSION, engine);
        // the first execution packs the constant weights into the cache: untimed, like the others' prepacking
        output = compiled.execute(stream, inputs).get(outId);
    }

    /** Registers a graph input with its values; returns its logical tensor for the op builder. */
    private LogicalTensor input(LogicalTensor lt, float[] values) {
        Tensor t = Tensor.allocate(lt, engine, arena);
        t.copyFrom(values);
        inputs.put(lt.id(), t);
        return lt;
    }

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    private static LogicalTensor constant(long id, long... dims) {
        return f32(id, dims).withProperty(PropertyType.CONSTANT);
    }

    private long matmul(Graph g, Case.MatMul c) {
        LogicalTensor src = input(f32(0, c.m(), c.k()), c.src());
        LogicalTensor w = input(constant(1, c.k(), c.n()), c.weights());
        g.add(Op.builder(0, OpKind.MatMul).inputs(src, w).output(f32(2, c.m(), c.n())).build());
        return 2;
    }

    private long conv(Graph g, Case.Conv c) {
        LogicalTensor src = input(f32(0, c.srcShape()), c.src());
        LogicalTensor w = input(constant(1, c.weightsShape()), c.weights());
        LogicalTensor b = input(constant(2, c.k()), c.bias());
        long[] pads = {c.pad(), c.pad()};
        g.add(Op.builder(0, OpKind.Convolution).inputs(src, w, b).output(f32(3, c.outputShape()))
                .attr("strides", new long[] {c.stride(), c.stride()}).attr("dilations", new long[] {1, 1})
                .attr("pads_begin", pads).attr("pads_end", pads).attr("data_format", "NCX")
                .attr("weights_format", "OIX").build());
        return 3;
    }

    private long mlp(Graph g, Case.Mlp c) {
        int[] w = c.widths();
        LogicalTensor x = input(f32(0, c.batch(), w[0]), c.src());
        long id = 1;
        long opId = 0;
        for (int l = 0; l < c.layers(); l++) {
            LogicalTensor weights = input(constant(id++, w[l], w[l + 1]), c.weights(l));
            LogicalTensor bias = input(constant(id++, w[l + 1]), c.bias(l));
            LogicalTensor mm = f32(id++, c.batch(), w[l + 1]);
            g.add(Op.builder(opId++, OpKind.MatMul).inputs(x, weights).output(mm).build());
            LogicalTensor biased = f32(id++, c.batch(), w[l + 1]);
            g.add(Op.builder(opId++, OpKind.BiasAdd).inputs(mm, bias).output(biased).build());
            x = biased;
            if (c.relu(l)) {
                LogicalTensor act = f32(id++, c.batch(), w[l + 1]);
                g.add(Op.builder(opId++, OpKind.ReLU).input(biased).output(act).build());
                x = act;
            }
        }
        return x.id();
    }

    @Override
    public void runOnce() {
        compiled.execute(stream, inputs);
    }

    @Override
    public float[] output() {
        return output.toFloatArray();
    }

    @Override
    public void close() {
        if (compiled != null) {
            compiled.close();
        }
        arena.close();
    }
}
