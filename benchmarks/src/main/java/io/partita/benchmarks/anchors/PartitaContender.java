package io.partita.benchmarks.anchors;

import java.lang.foreign.Arena;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.partita.benchmarks.models.NetworkModel;
import io.partita.formats.onnx.OnnxModels;

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
 * user would. For the single-op cases the DNNL-style backend must claim every op: a case that
 * falls back to the reference backend is refused rather than timed. A network case takes the path
 * of {@code partita run}: the ONNX model imported by {@link OnnxModels}, its graph partitioned over
 * every backend of the class path (highest rank first, the reference backend taking what nobody
 * claims) and compiled; the initializers are the constant inputs. Weights are packed into the
 * constant cache by the first execution, which is the first {@link #runOnce} (the harness reports
 * its latency apart).
 */
public final class PartitaContender implements Contender {
    private final int threads;
    private final Arena arena = Arena.ofShared();
    /** The engine the case runs on; its backend must claim every op of a single-op case. */
    private final Engine engine;
    private final String backend;
    private final Stream stream;
    private final Map<Long, Tensor> inputs = new LinkedHashMap<>();
    private GraphRuntime runtime;
    private CompiledGraph compiled;
    private Tensor output;
    private long outId;
    private boolean network;
    private String partitions = "";

    /** On the CPU: the DNNL-style backend. */
    public PartitaContender(int threads) {
        this(threads, Engine.cpu(), "dnnl");
    }

    /**
     * On the OpenCL device gpu.0 (the {@code gpu} contender): the gpu backend must claim every op;
     * the device's own threads are the driver's (PoCL's are set by the harness through
     * {@code POCL_MAX_PTHREAD_COUNT}).
     */
    public static PartitaContender gpu(int threads) {
        return new PartitaContender(threads, new Engine(EngineKind.GPU, 0), "gpu");
    }

    private PartitaContender(int threads, Engine engine, String backend) {
        this.threads = threads;
        this.engine = engine;
        this.backend = backend;
        this.stream = new Stream(engine);
    }

    @Override
    public String name() {
        return engine.kind() == EngineKind.GPU ? Contenders.GPU : Contenders.PARTITA;
    }

    @Override
    public String describe() {
        return "Partita " + (network ? "ONNX import, all backends (partita run's path)"
                : engine.kind() == EngineKind.GPU ? "gpu backend on gpu.0 (OpenCL, JOCL)" : "DNNL-style backend")
                + " (Java " + Runtime.version() + ", Vector API), threads " + threads + (partitions.isEmpty() ? "" : ", partitions " + partitions);
    }

    @Override
    public void prepare(Case c) {
        runtime = GraphRuntime.standalone();
        runtime.setThreads(threads);
        if (c instanceof Case.Network net) {
            network(net);
            return;
        }
        Graph g = runtime.createGraph(engine.kind());
        outId = switch (c) {
            case Case.MatMul mm -> matmul(g, mm);
            case Case.Conv conv -> conv(g, conv);
            case Case.Mlp mlp -> mlp(g, mlp);
            case Case.Network net -> throw new AssertionError("handled above: " + net.name());
        };
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        partitions = String.join(" ", parts.stream().map(p -> p.backendId() + ":" + p.pattern()).toList());
        for (Partition p : parts) {
            if (!p.backendId().equals(backend)) {
                throw new IllegalStateException("the " + backend + " backend did not claim partition " + p.id() + " (" + p.pattern()
                        + ", " + p.backendId() + "): not measuring the reference backend");
            }
        }
        compiled = runtime.compile(g, PartitionPolicy.FUSION, engine);
    }

    /** {@code partita run}'s path: import, finalize, partition over all backends, compile. */
    private void network(Case.Network net) {
        network = true;
        io.partita.formats.onnx.OnnxModel m = OnnxModels.read(runtime.opSchemas(), net.model().bytes(), net.name() + ".onnx");
        Graph g = m.graph().toGraph(runtime);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        Map<String, Integer> perBackend = new TreeMap<>();
        parts.forEach(p -> perBackend.merge(p.backendId(), 1, Integer::sum));
        partitions = parts.size() + " (" + String.join(", ", perBackend.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).toList()) + ") for " + g.ops().size() + " ops";
        compiled = runtime.compile(g, PartitionPolicy.FUSION, engine);
        inputs.putAll(m.constantTensors(engine, arena));
        Map<Long, LogicalTensor> graphInputs = new HashMap<>();
        g.inputs().forEach(t -> graphInputs.put(t.id(), t));
        for (NetworkModel.Input in : net.inputs()) {
            Long id = m.inputs().get(in.name());
            if (id == null) {
                throw new IllegalStateException(net.name() + ": the imported model has no input " + in.name() + "; it has "
                        + m.inputs().keySet());
            }
            input(graphInputs.get(id), in.values());
        }
        outId = m.outputs().get(net.model().output().name());
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
        output = compiled.execute(stream, inputs).get(outId);
        stream.waitAll();
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
