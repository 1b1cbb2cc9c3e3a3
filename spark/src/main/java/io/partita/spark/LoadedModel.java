package io.partita.spark;

import java.io.ByteArrayInputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.formats.json.GraphJson;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphDescription;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.RandomInputs;

/**
 * A model compiled on an executor: the finalized graph, its constant inputs (allocated once; the
 * backends pack them into the runtime's constant tensor cache at the first execution, so every
 * task shares one packed copy) and a pool of execution contexts. A compiled graph's buffers serve
 * one execution at a time, so each task running at once takes a context of its own; contexts
 * after the first compile from the runtime's compiled-partition cache (the partitions are compiled
 * once) and only allocate their buffers.
 */
public final class LoadedModel {
    private static final Logger LOG = LoggerFactory.getLogger(LoadedModel.class);

    private final GraphRuntime runtime;
    private final Graph graph;
    private final ModelSignature signature;
    private final Engine engine;
    private final Map<Long, Tensor> constants;
    private final int rowsPerExecution;
    private final int partitions;
    private final int partitionsFromStore;
    private final ConcurrentLinkedQueue<Context> idle = new ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicInteger created = new java.util.concurrent.atomic.AtomicInteger();
    private final String source;
    // the constants live as long as the executor: models are not unloaded (see the README)
    private final Arena arena = Arena.ofShared();

    /** A graph read from a model file, finalized, with its ports by name. */
    record Parsed(String source, Graph graph, ModelSignature signature, OnnxModel onnx) {
    }

    private LoadedModel(GraphRuntime runtime, Parsed parsed, ModelSettings settings) {
        this.runtime = runtime;
        this.source = parsed.source();
        this.graph = parsed.graph();
        this.signature = parsed.signature();
        this.engine = settings.toEngine();
        this.rowsPerExecution = Math.toIntExact(signature.batch() == ModelSignature.DYNAMIC ? settings.miniBatchSize() : signature.batch());
        Context first;
        try {
            this.constants = parsed.onnx() != null ? parsed.onnx().constantTensors(engine, arena) : syntheticConstants(settings);
            first = new Context();
        } catch (RuntimeException | Error e) {
            arena.close(); // a model that does not compile keeps no native memory
            throw e;
        }
        this.partitions = first.compiled.steps().size();
        this.partitionsFromStore = (int) first.compiled.steps().stream().filter(s -> s.compiled().fromBlobs()).count();
        idle.add(first);
    }

    /** Reads, finalizes and compiles a model on a runtime (an executor's). */
    static LoadedModel load(GraphRuntime runtime, ModelBytes bytes, ModelSettings settings) {
        long t0 = System.nanoTime();
        LoadedModel m = new LoadedModel(runtime, parse(runtime, bytes, settings), settings);
        LOG.info("compiled {} for engine {}: {} partitions ({} from the persistent kernel cache), {} rows per execution,"
                + " in {} ms", bytes, settings.engine(), m.partitions, m.partitionsFromStore, m.rowsPerExecution,
                (System.nanoTime() - t0) / 1_000_000);
        return m;
    }

    /**
     * Reads a model into a finalized graph and its signature. A symbolic first dim of an ONNX input
     * (a batch dim {@code N}) takes the mini-batch size; graph JSON keeps its dims as written.
     */
    static Parsed parse(GraphRuntime runtime, ModelBytes bytes, ModelSettings settings) {
        if (bytes.format() == ModelBytes.Format.ONNX) {
            Map<String, Long> dimValues = new HashMap<>();
            for (List<String> params : OnnxModels.inputDimParams(bytes.bytes(), bytes.source()).values()) {
                if (!params.isEmpty() && params.get(0) != null) {
                    dimValues.put(params.get(0), (long) settings.miniBatchSize());
                }
            }
            OnnxModel m = OnnxModels.read(runtime.opSchemas(), bytes.bytes(), bytes.source(), dimValues);
            Graph g = m.graph().withEngineKind(settings.toEngine().kind()).toGraph(runtime).finalizeGraph();
            return new Parsed(bytes.source(), g, ModelSignature.of(bytes.source(), ports(g.inputs(), m.inputs()), ports(g.outputs(), m.outputs())), m);
        }
        GraphDescription d = GraphJson.parse(new ByteArrayInputStream(bytes.bytes()), bytes.source());
        Graph g = d.withEngineKind(settings.toEngine().kind()).toGraph(runtime).finalizeGraph();
        // graph JSON names no tensors: a port is its id in decimal
        Map<String, Long> in = new LinkedHashMap<>();
        g.inputs().stream().filter(t -> !t.isConstant()).forEach(t -> in.put(Long.toString(t.id()), t.id()));
        Map<String, Long> out = new LinkedHashMap<>();
        g.outputs().forEach(t -> out.put(Long.toString(t.id()), t.id()));
        return new Parsed(bytes.source(), g, ModelSignature.of(bytes.source(), ports(g.inputs(), in), ports(g.outputs(), out)), null);
    }

    private static Map<String, LogicalTensor> ports(List<LogicalTensor> tensors, Map<String, Long> names) {
        Map<Long, LogicalTensor> byId = new HashMap<>();
        tensors.forEach(t -> byId.put(t.id(), t));
        Map<String, LogicalTensor> out = new LinkedHashMap<>();
        names.forEach((name, id) -> {
            LogicalTensor t = byId.get(id);
            if (t != null) {
                out.put(name, t);
            }
        });
        return out;
    }

    /**
     * Graph JSON carries no tensor values: its constant inputs get the seeded values
     * {@code partita run --seed S} gives them (the same per-tensor seeds), so a graph dump can be
     * scored and compared; real weights come with an ONNX model.
     */
    private Map<Long, Tensor> syntheticConstants(ModelSettings settings) {
        Map<Long, Tensor> out = new LinkedHashMap<>();
        for (LogicalTensor lt : graph.inputs()) {
            if (lt.isConstant()) {
                Tensor t = Tensor.allocate(dense(lt, lt.dims()), engine, arena);
                RandomInputs.fill(runtime.opSchemas(), t, graph.ops(), settings.constantSeed() ^ (lt.id() * 0x9E3779B97F4A7C15L));
                out.put(lt.id(), t);
            }
        }
        if (!out.isEmpty()) {
            LOG.warn("{}: graph JSON carries no constant values; its {} constant inputs get seeded synthetic values (seed {})."
                    + " Use an ONNX model for real weights", source, out.size(), settings.constantSeed());
        }
        return out;
    }

    private static LogicalTensor dense(LogicalTensor lt, long[] dims) {
        return LogicalTensor.of(lt.id(), lt.dataType(), dims).withProperty(lt.property());
    }

    public ModelSignature signature() {
        return signature;
    }

    /** Rows of one execution: the static batch dim, or the mini-batch size for a dynamic one. */
    public int rowsPerExecution() {
        return rowsPerExecution;
    }

    /** Partitions of the compiled graph. */
    public int partitions() {
        return partitions;
    }

    /** Partitions that the first compile created from the persistent kernel cache's blobs. */
    public int partitionsFromStore() {
        return partitionsFromStore;
    }

    /** A context for one task's executions; give it back with {@link #release}. */
    Context acquire() {
        Context c = idle.poll();
        return c != null ? c : new Context();
    }

    void release(Context c) {
        idle.add(c);
    }

    /** Contexts created so far (one per task that ran at the same time as others). */
    int contexts() {
        return created.get();
    }

    /**
     * A compiled graph with its feed buffers: rows are staged as floats per input, written into the
     * input tensors in one copy per batch, and the graph runs on them.
     */
    final class Context {
        private final CompiledGraph compiled;
        private final Stream stream = new Stream(engine);
        private final Map<String, float[]> staging = new LinkedHashMap<>();
        private final Map<String, MemorySegment> feedMemory = new LinkedHashMap<>();
        private final Map<String, LogicalTensor> feedTensor = new LinkedHashMap<>();

        Context() {
            created.incrementAndGet();
            this.compiled = runtime.compile(graph, PartitionPolicy.FUSION, engine);
            Map<Long, LogicalTensor> compiledInputs = new HashMap<>();
            compiled.inputs().forEach(t -> compiledInputs.put(t.id(), t));
            for (ModelSignature.Port p : signature.inputs().values()) {
                LogicalTensor lt = compiledInputs.getOrDefault(p.id(), LogicalTensor.of(p.id(), p.dataType(), p.dims()));
                long[] full = p.dims().clone();
                full[0] = rowsPerExecution;
                LogicalTensor sized = dense(lt, full);
                feedTensor.put(p.name(), sized);
                feedMemory.put(p.name(), Tensor.allocate(sized, engine, arena).data());
                staging.put(p.name(), new float[Math.multiplyExact(rowsPerExecution, p.rowElements())]);
            }
        }

        /** The staging buffer of an input: row r's values go at {@code r * rowElements}. */
        float[] staging(String input) {
            return staging.get(input);
        }

        /**
         * Runs the graph on the first {@code rows} staged rows (a static batch runs whole, the rows
         * past {@code rows} zeroed) and returns each wanted output's first {@code rows} rows.
         */
        Map<String, float[][]> run(int rows, List<String> fetch) {
            boolean dynamic = signature.batch() == ModelSignature.DYNAMIC;
            int runRows = dynamic ? rows : rowsPerExecution;
            Map<Long, Tensor> inputs = new HashMap<>(constants);
            for (ModelSignature.Port p : signature.inputs().values()) {
                float[] stage = staging.get(p.name());
                int rowElems = p.rowElements();
                if (rows < runRows) {
                    // padding rows: zeros, so no stale row of the previous batch runs again
                    Arrays.fill(stage, rows * rowElems, runRows * rowElems, 0f);
                }
                LogicalTensor lt = feedTensor.get(p.name());
                MemorySegment mem = feedMemory.get(p.name());
                if (dynamic) {
                    long[] dims = lt.dims().clone();
                    dims[0] = rows;
                    lt = dense(lt, dims);
                }
                Tensor t = Tensor.of(lt, engine, mem);
                if (p.dataType() == DataType.F32) {
                    MemorySegment.copy(stage, 0, mem, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, runRows * rowElems);
                } else {
                    t.copyFrom(Arrays.copyOf(stage, runRows * rowElems)); // rounded to bf16, f16, ... by the codec
                }
                inputs.put(p.id(), t);
            }
            Map<Long, Tensor> out = compiled.execute(stream, inputs);
            stream.waitAll();
            Map<String, float[][]> result = new LinkedHashMap<>();
            for (String name : fetch) {
                Tensor t = out.get(signature.outputs().get(name).id());
                LogicalTensor lt = t.logicalTensor();
                long[] dims = lt.dims();
                int rowElems = 1;
                for (int i = 1; i < dims.length; i++) {
                    rowElems = Math.multiplyExact(rowElems, Math.toIntExact(dims[i]));
                }
                float[][] rowsOut = new float[rows][];
                if (lt.dataType() == DataType.F32 && lt.isDense()) {
                    for (int r = 0; r < rows; r++) {
                        rowsOut[r] = new float[rowElems];
                        MemorySegment.copy(t.data(), ValueLayout.JAVA_FLOAT_UNALIGNED, (long) r * rowElems * Float.BYTES,
                                rowsOut[r], 0, rowElems);
                    }
                } else {
                    float[] all = t.toFloatArray();
                    for (int r = 0; r < rows; r++) {
                        rowsOut[r] = Arrays.copyOfRange(all, r * rowElems, (r + 1) * rowElems);
                    }
                }
                result.put(name, rowsOut);
            }
            return result;
        }
    }
}
