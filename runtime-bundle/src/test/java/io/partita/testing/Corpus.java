package io.partita.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;

import io.partita.graph.DataType;
import io.partita.graph.GraphDescription;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/** The external corpus under testdata/corpus (see its README). */
public final class Corpus {
    private Corpus() {
    }

    public static Path root() {
        String p = System.getProperty("partita.corpus");
        Path path = p != null ? Paths.get(p) : Paths.get("..", "testdata", "corpus");
        if (!Files.isDirectory(path)) {
            throw new IllegalStateException("corpus not found at " + path.toAbsolutePath()
                    + "; set -Dpartita.corpus=DIR");
        }
        return path;
    }

    public static Path benchdnnGraph() {
        return root().resolve("benchdnn-graph");
    }

    /** All graph JSON files of the benchdnn corpus, sorted. */
    public static List<Path> graphFiles() {
        try (Stream<Path> s = Files.walk(benchdnnGraph())) {
            return s.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether every tensor of the graph is f32. */
    public static boolean isF32Only(GraphDescription d) {
        for (Op op : d.ops()) {
            for (LogicalTensor t : op.inputs()) {
                if (t.dataType() != DataType.F32) {
                    return false;
                }
            }
            for (LogicalTensor t : op.outputs()) {
                if (t.dataType() != DataType.F32) {
                    return false;
                }
            }
        }
        return true;
    }

    public static String name(Path file) {
        return benchdnnGraph().relativize(file).toString();
    }
}
