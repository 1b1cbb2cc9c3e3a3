package io.partita.cli.run;

import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.partita.formats.json.GraphJson;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphDescription;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Op;
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
        if (dims != null && !dims.isEmpty() && !isOnnx(file)) {
            throw new BadInputException("--dim gives values to an ONNX model's symbolic dims; " + file
                    + " is a graph JSON file, whose dims are all given");
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
     * The model's own values of the graph's constant inputs (ONNX initializers), by tensor id; none
     * for a JSON graph, which carries no values.
     */
    Map<Long, Tensor> modelConstants(Graph graph, Engine engine, Arena arena) {
        Map<Long, Tensor> out = new java.util.HashMap<>();
        if (onnx == null) {
            return out;
        }
        Set<Long> inputs = new HashSet<>();
        graph.inputs().forEach(t -> inputs.add(t.id()));
        for (Map.Entry<Long, Tensor> e : onnx.constantTensors(engine, arena).entrySet()) {
            if (inputs.contains(e.getKey())) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /**
     * What the file's {@code input_ports}/{@code output_ports} list that the ops do not match. The
     * ports are informational (the graph's inputs and outputs follow from its ops, and oneDNN's own
     * dumps are not always consistent), so these are warnings, not errors.
     */
    List<String> portWarnings() {
        Set<Long> consumed = new HashSet<>();
        Set<Long> produced = new HashSet<>();
        for (Op op : description.ops()) {
            op.inputs().forEach(t -> consumed.add(t.id()));
            op.outputs().forEach(t -> produced.add(t.id()));
        }
        List<String> warnings = new ArrayList<>();
        List<Long> strayIn = description.inputPorts().stream()
                .filter(id -> !consumed.contains(id) || produced.contains(id)).toList();
        if (!strayIn.isEmpty()) {
            warnings.add(file + ": input_ports " + strayIn + " are not graph inputs (no op consumes them, or an op"
                    + " produces them); ignored");
        }
        List<Long> strayOut = description.outputPorts().stream().filter(id -> !produced.contains(id)).toList();
        if (!strayOut.isEmpty()) {
            warnings.add(file + ": output_ports " + strayOut + " are produced by no op; ignored");
        }
        return warnings;
    }

    String summary() {
        String kind = onnx == null ? "" : "ONNX opset " + onnx.opset() + ", ";
        return file + " (" + kind + graph.engineKind() + ", fpmath " + graph.fpMathMode() + ", " + graph.ops().size()
                + " ops, " + graph.inputs().size() + " inputs" + (onnx == null ? "" : " of which "
                        + onnx.constants().size() + " constant") + ", " + graph.outputs().size() + " outputs)";
    }
}
