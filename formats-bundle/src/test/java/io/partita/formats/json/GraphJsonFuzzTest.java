package io.partita.formats.json;


import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.partita.formats.FuzzLoop;
import io.partita.formats.FuzzLoop.Outcome;
import io.partita.graph.Graph;
import io.partita.graph.GraphDescription;
import io.partita.graph.GraphRuntime;
import io.partita.graph.PartitaException;
import io.partita.graph.PartitionPolicy;
import io.partita.testing.Corpus;

/**
 * Mutated oneDNN graph JSON files (the benchdnn corpus and the examples, see
 * {@link GraphJsonMutations}) must be refused with a clear {@link PartitaException} or give a
 * description the reference runtime builds, finalizes and partitions (or refuses with a
 * PartitaException). Time-bounded: {@code -Dpartita.fuzz.seconds=N}, reproducible with
 * {@code -Dpartita.fuzz.seed=S} (see {@link FuzzLoop}).
 */
class GraphJsonFuzzTest {
    private static final GraphRuntime RUNTIME = GraphRuntime.referenceOnly();

    @Test
    void mutatedGraphFilesAreRefusedClearlyOrGiveValidGraphs() {
        List<Path> files = new ArrayList<>(Corpus.graphFiles());
        Path examples = Corpus.root().resolve("..").resolve("..").resolve("examples").normalize();
        if (Files.isDirectory(examples)) {
            try (Stream<Path> s = Files.list(examples)) {
                s.filter(p -> p.toString().endsWith(".json")).sorted().forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        GraphJsonMutations mutations = new GraphJsonMutations(files, Corpus.root().resolve("..").resolve(".."));
        FuzzLoop.Report report = FuzzLoop.run("fuzz_json", mutations::next, GraphJsonFuzzTest::run);
        FuzzLoop.printAndAssertClean(report);
    }

    private static Outcome run(FuzzLoop.Input input) {
        GraphDescription d;
        try {
            d = GraphJson.parse(new ByteArrayInputStream(input.bytes()), "fuzz.json");
        } catch (PartitaException e) {
            return FuzzLoop.refusal(e, Outcome.REFUSED);
        }
        try {
            Graph g = d.toGraph(RUNTIME).finalizeGraph();
            g.partitions(PartitionPolicy.FUSION);
            return Outcome.VALID;
        } catch (PartitaException e) {
            return FuzzLoop.refusal(e, Outcome.REJECTED);
        }
    }
}
