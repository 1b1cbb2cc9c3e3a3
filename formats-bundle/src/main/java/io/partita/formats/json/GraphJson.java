package io.partita.formats.json;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.partita.graph.Graph;
import io.partita.graph.GraphDescription;
import io.partita.graph.GraphRuntime;

/**
 * oneDNN graph JSON: the format oneDNN writes with {@code ONEDNN_GRAPH_DUMP=graph} and benchdnn's
 * graph driver reads. Reading checks the format strictly and names the offending place.
 */
public final class GraphJson {
    /** The format version written by this library (the oneDNN format generation it follows). */
    public static final String FORMAT_VERSION = GraphDescription.ONEDNN_VERSION;

    private GraphJson() {
    }

    /** Parses a file. @throws GraphFormatException naming the file and the offending item */
    public static GraphDescription parse(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return GraphJsonReader.read(in, file.toString());
        } catch (IOException e) {
            throw new GraphFormatException("cannot read graph file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Parses a stream; {@code source} names it in error messages. */
    public static GraphDescription parse(InputStream in, String source) {
        return GraphJsonReader.read(in, source);
    }

    /** Parses a file and builds the graph on a runtime (ops validated; not yet finalized). */
    public static Graph read(GraphRuntime runtime, Path file) {
        return parse(file).toGraph(runtime);
    }

    public static void write(GraphDescription graph, OutputStream out) {
        try {
            GraphJsonWriter.write(graph, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void write(GraphDescription graph, Path file) {
        try (OutputStream out = Files.newOutputStream(file)) {
            write(graph, out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write graph file " + file, e);
        }
    }

    public static void write(Graph graph, Path file) {
        write(GraphDescription.of(graph), file);
    }

    /** The graph as a JSON string. */
    public static String toJson(GraphDescription graph) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        write(graph, bytes);
        return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    }
}
