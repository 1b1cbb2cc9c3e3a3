package io.partita.testkit.benchdnn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import io.partita.graph.GraphRuntime;
import io.partita.testing.Corpus;

/**
 * benchdnn's CI harness lines from the corpus run on the reference backend: every line that
 * starts with --reset passes; a line that inherits knobs from the line before (benchdnn keeps them
 * until --reset) may be refused when they do not fit its graph, but only with a named error.
 */
class HarnessCiLinesTest {

    @Test
    void ciHarnessLinesPass() throws Exception {
        List<CaseLine> lines = HarnessFile.read(Corpus.benchdnnGraph().resolve("harness-cases.tsv")).stream()
                .filter(l -> l.harness().endsWith("_ci")).toList();
        assertEquals(123, lines.size());
        CaseRunner runner = new CaseRunner(GraphRuntime.referenceOnly(), Corpus.benchdnnGraph(), true, 0);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<CaseRunner.LineResult>> futures = new ArrayList<>();
        for (CaseLine l : lines) {
            futures.add(pool.submit(() -> runner.run(l)));
        }
        int passed = 0;
        List<String> failures = new ArrayList<>();
        for (Future<CaseRunner.LineResult> f : futures) {
            CaseRunner.LineResult r = f.get();
            if (r.passed()) {
                passed++;
                continue;
            }
            String why = r.error() != null ? r.error() : r.variants().stream()
                    .filter(v -> v.status() != CaseRunner.Status.PASS).map(v -> v.label() + ": " + v.message())
                    .findFirst().orElse("?");
            assertFalse(r.line().text().startsWith("--reset"), r.line() + " must pass: " + why);
            assertTrue(why.matches("(?s).*(tensor|op) \\d+.*"), "the refusal names the tensor or op: " + why);
            failures.add(r.line() + " -> " + why);
        }
        pool.shutdown();
        System.out.printf("benchdnn CI harness lines: %d of %d pass; refused (knobs inherited without --reset): %s%n",
                passed, lines.size(), failures);
        assertTrue(passed >= 122, "passed " + passed);
    }
}
