package io.partita.formats.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphDescription;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.testing.Corpus;
import io.partita.testkit.check.RandomInputs;

/**
 * Every corpus file parses and round-trips; every f32-only file finalizes, partitions, compiles
 * and executes on the reference backend; other files run or fail with a clear, named error.
 */
class CorpusGraphsTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();

    private static final AtomicInteger PARSED = new AtomicInteger();
    private static final AtomicInteger F32_RUN = new AtomicInteger();
    private static final AtomicInteger OTHER_RUN = new AtomicInteger();
    private static final AtomicInteger OTHER_REFUSED = new AtomicInteger();

    @Test
    void corpusHas220Files() {
        assertEquals(220, Corpus.graphFiles().size());
    }

    @TestFactory
    Stream<DynamicTest> everyFileParsesAndRoundTrips() {
        return Corpus.graphFiles().stream().map(f -> DynamicTest.dynamicTest(Corpus.name(f), () -> {
            GraphDescription d = GraphJson.parse(f);
            String json = GraphJson.toJson(d);
            GraphDescription again = GraphJson.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
                    "round trip of " + f);
            assertEquals(d.ops(), again.ops());
            assertEquals(d.engineKind(), again.engineKind());
            assertEquals(d.fpMathMode(), again.fpMathMode());
            assertEquals(d.fpMathApplyToInt(), again.fpMathApplyToInt());
            // The graph built from the file writes back to the same graph too.
            GraphRuntime rt = GraphRuntime.referenceOnly();
            Graph g = d.toGraph(rt);
            GraphDescription written = GraphJson.parse(new ByteArrayInputStream(
                    GraphJson.toJson(GraphDescription.of(g)).getBytes(StandardCharsets.UTF_8)), "written " + f);
            assertEquals(g.ops(), written.toGraph(rt).ops());
            PARSED.incrementAndGet();
        }));
    }

    @TestFactory
    Stream<DynamicTest> everyFileRunsOnTheReferenceBackend() {
        return Corpus.graphFiles().stream().map(f -> DynamicTest.dynamicTest(Corpus.name(f), () -> runFile(f)));
    }

    private static void runFile(Path f) {
        // Like benchdnn, run on the engine of the runner (cpu), whatever engine_kind the file names.
        GraphDescription d = GraphJson.parse(f).withEngineKind(io.partita.graph.EngineKind.CPU);
        boolean f32 = Corpus.isF32Only(d);
        GraphRuntime rt = GraphRuntime.referenceOnly();
        try {
            Graph g = d.toGraph(rt);
            g.finalizeGraph();
            assertTrue(g.partitions(PartitionPolicy.FUSION).size() >= 1);
            Engine e = Engine.cpu();
            try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
                Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, e, arena, 42);
                Map<Long, Tensor> out = cg.execute(new io.partita.graph.Stream(e), in);
                assertEquals(g.outputs().size(), out.size(), "every graph output is produced");
            }
            (f32 ? F32_RUN : OTHER_RUN).incrementAndGet();
        } catch (UnsupportedFeatureException | InvalidGraphException e) {
            if (f32) {
                fail("f32 file " + Corpus.name(f) + " must run: " + e.getMessage(), e);
            }
            // A clear refusal names the op: "op 3 (Kind): ..." or the file place.
            assertTrue(e.getMessage().matches("(?s).*op \\d+.*"), "error names the op: " + e.getMessage());
            OTHER_REFUSED.incrementAndGet();
        }
    }

    @AfterAll
    static void summary() {
        System.out.printf("corpus: %d files parsed and round-tripped; f32 files executed: %d; other files executed: %d,"
                + " refused with a named error: %d%n", PARSED.get(), F32_RUN.get(), OTHER_RUN.get(), OTHER_REFUSED.get());
    }

    @Test
    void f32FilesAreCounted() {
        long n = Corpus.graphFiles().stream().filter(f -> Corpus.isF32Only(GraphJson.parse(f))).count();
        assertEquals(117, n);
        List<Path> all = Corpus.graphFiles();
        assertEquals(220, all.size());
    }
}
