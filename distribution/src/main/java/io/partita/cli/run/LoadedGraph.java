package io.partita.cli.run;

import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

import io.partita.formats.json.GraphJson;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphDescription;
import io.partita.graph.GraphRuntime;
import io.partita.graph.PartitaException;
import io.partita.graph.Tensor;

/**
 * A graph file loaded, validated and finalized on a runtime: oneDNN graph JSON, or an ONNX model
 * ({@code .onnx}), whose initializers then come with their values ({@code onnx} non-null).
 */
record LoadedGraph(Path file, GraphDescription description, Graph graph, io.partita.graph.EngineKind writtenFor,
        OnnxModel onnx) {

    static boolean isOnnx(Path file) {
        return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".onnx");
    }

    /** Loads and finalizes for an engine kind; errors carry the file name and what is wrong. */
    static LoadedGraph load(GraphRuntime runtime, Path file, io.partita.graph.EngineKind kind) {
        return load(runtime, file, kind, Map.of());
    }

    /** @param dims values of an ONNX model's symbolic input dims, by name */
    static LoadedGraph load(GraphRuntime runtime, Path file, io.partita.graph.EngineKind kind, Map<String, Long> dims) {
        if (!Files.isRegularFile(file)) {
            throw new BadInputException("no such graph file: " + file);
        }
        GraphDescription d;
        OnnxModel onnx = null;
        try {
            if (isOnnx(file)) {
                onnx = OnnxModels.read(runtime.opSchemas(), file, dims == null ? Map.of() : dims);
                d = onnx.graph();
            } else {
                d = GraphJson.parse(file);
            }
        } catch (PartitaException e) {
            throw new BadInputException(e.getMessage());
        }
        LoadedGraph g = of(runtime, file, kind == null ? d : d.withEngineKind(kind), onnx);
        return new LoadedGraph(file, g.description(), g.graph(), d.engineKind(), onnx);
    }

    static LoadedGraph of(GraphRuntime runtime, Path file, GraphDescription d) {
        return of(runtime, file, d, null);
    }

    static LoadedGraph of(GraphRuntime runtime, Path file, GraphDescription d, OnnxModel onnx) {
        try {
            Graph g = d.toGraph(runtime);
            g.finalizeGraph();
            return new LoadedGraph(file, d, g, d.engineKind(), onnx);
        } catch (io.partita.graph.InvalidGraphException e) {
            throw new BadInputException(file + ": " + e.getMessage());
        }
    }

    /**
     * Replaces the random values of constant inputs by the model's own (ONNX initializers); a JSON
     * graph carries no values, so nothing changes for it.
     */
    void useModelConstants(Map<Long, Tensor> inputs, Engine engine, Arena arena) {
        if (onnx == null) {
            return;
        }
        for (Map.Entry<Long, Tensor> e : onnx.constantTensors(engine, arena).entrySet()) {
            if (inputs.containsKey(e.getKey())) {
                inputs.put(e.getKey(), e.getValue());
            }
        }
    }

    String summary() {
        String kind = onnx == null ? "" : "ONNX opset " + onnx.opset() + ", ";
        return file + " (" + kind + graph.engineKind() + ", fpmath " + graph.fpMathMode() + ", " + graph.ops().size()
                + " ops, " + graph.inputs().size() + " inputs" + (onnx == null ? "" : " of which "
                        + onnx.constants().size() + " constant") + ", " + graph.outputs().size() + " outputs)";
    }
}
