package io.partita.cli.run;

import java.nio.file.Files;
import java.nio.file.Path;

import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.PartitaException;
import io.partita.graph.io.GraphDescription;
import io.partita.graph.io.GraphJson;

/** A graph file loaded, validated and finalized on a runtime. */
record LoadedGraph(Path file, GraphDescription description, Graph graph, io.partita.graph.EngineKind writtenFor) {

    /** Loads and finalizes for an engine kind; errors carry the file name and what is wrong. */
    static LoadedGraph load(GraphRuntime runtime, Path file, io.partita.graph.EngineKind kind) {
        if (!Files.isRegularFile(file)) {
            throw new BadInputException("no such graph file: " + file);
        }
        GraphDescription d;
        try {
            d = GraphJson.parse(file);
        } catch (PartitaException e) {
            throw new BadInputException(e.getMessage());
        }
        LoadedGraph g = of(runtime, file, kind == null ? d : d.withEngineKind(kind));
        return new LoadedGraph(file, g.description(), g.graph(), d.engineKind());
    }

    static LoadedGraph of(GraphRuntime runtime, Path file, GraphDescription d) {
        try {
            Graph g = d.toGraph(runtime);
            g.finalizeGraph();
            return new LoadedGraph(file, d, g, d.engineKind());
        } catch (io.partita.graph.InvalidGraphException e) {
            throw new BadInputException(file + ": " + e.getMessage());
        }
    }

    String summary() {
        return file + " (" + graph.engineKind() + ", fpmath " + graph.fpMathMode() + ", " + graph.ops().size()
                + " ops, " + graph.inputs().size() + " inputs, " + graph.outputs().size() + " outputs)";
    }
}
