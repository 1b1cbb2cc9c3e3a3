package io.partita.graph;

import java.util.List;


/**
 * The content of a graph file before it becomes a {@link Graph}: header fields and ops. Tools
 * (shape rewriting, conversions) edit this; {@link #toGraph} builds and validates the graph.
 *
 * @param version the oneDNN version that wrote the file
 * @param inputPorts graph input tensor ids as listed by the file (may be empty)
 * @param outputPorts graph output tensor ids as listed by the file (may be empty)
 */
public record GraphDescription(String version, EngineKind engineKind, FpMathMode fpMathMode, boolean fpMathApplyToInt,
        List<Long> inputPorts, List<Long> outputPorts, List<Op> ops) {

    /** The oneDNN graph format version a description of a live graph claims (that of oneDNN 3.x dumps). */
    public static final String ONEDNN_VERSION = "3.0.0";

    public GraphDescription {
        inputPorts = List.copyOf(inputPorts);
        outputPorts = List.copyOf(outputPorts);
        ops = List.copyOf(ops);
    }

    /** A description of an existing graph (its ops as added or, once finalized, as inferred). */
    public static GraphDescription of(Graph graph) {
        return new GraphDescription(ONEDNN_VERSION, graph.engineKind(), graph.fpMathMode(),
                graph.fpMathApplyToInt(), List.of(), List.of(), graph.ops());
    }

    /** The same description for another engine kind (benchdnn runs files on the engine it is told). */
    public GraphDescription withEngineKind(EngineKind kind) {
        return new GraphDescription(version, kind, fpMathMode, fpMathApplyToInt, inputPorts, outputPorts, ops);
    }

    /** The same description with other ops. */
    public GraphDescription withOps(List<Op> newOps) {
        return new GraphDescription(version, engineKind, fpMathMode, fpMathApplyToInt, inputPorts, outputPorts, newOps);
    }

    /** Builds the graph on a runtime: every op is validated as it is added (not finalized). */
    public Graph toGraph(GraphRuntime runtime) {
        Graph g = runtime.createGraph(engineKind, fpMathMode, fpMathApplyToInt);
        for (Op op : ops) {
            g.add(op);
        }
        return g;
    }
}
