package io.partita.testkit.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.partita.graph.GraphRuntime;
import io.partita.graph.PartitionPolicy;
import io.partita.testing.Corpus;

/**
 * The PyTorch-exported model tests (testdata/corpus/onnx-pytorch, opsets 6 to 12) and the further
 * node tests (testdata/corpus/onnx-node-more) on the reference backend. Every test passes or is
 * refused by the importer for the reason listed in {@code unsupported-CORPUS.txt} (test name, tab,
 * the reason, see {@link #reason}); a wrong result or any other error fails. On a mismatch the message
 * lists the current reasons in that file's form.
 */
class OnnxCorpusConformanceTest {

    /** The listed reasons: test name to message fragment. */
    static Map<String, String> explained(String corpus) {
        Map<String, String> m = new TreeMap<>();
        String res = "unsupported-" + corpus + ".txt";
        InputStream in = OnnxCorpusConformanceTest.class.getResourceAsStream(res);
        assertNotNull(in, res);
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null;) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int tab = line.indexOf('\t');
                assertTrue(tab > 0, res + ": expected NAME<TAB>REASON: " + line);
                m.put(line.substring(0, tab), line.substring(tab + 1));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return m;
    }

    /**
     * The reason of an unsupported message, independent of node names and paths: "OP: what follows
     * the node" for a node, the message without file paths otherwise.
     */
    static String reason(String message) {
        String m = message.replaceAll("\\S*model\\.onnx", "model.onnx");
        int at = m.indexOf(" at node ");
        int colon = at < 0 ? -1 : m.indexOf(": ", at);
        if (!m.startsWith("unsupported ONNX op ") || colon < 0) {
            return m;
        }
        return m.substring(20, m.indexOf(' ', 20)) + ": " + m.substring(colon + 2);
    }

    static void check(String corpus, int expectedTests) {
        Path dir = Corpus.root().resolve(corpus);
        OnnxConformance.Report report = OnnxConformance.runAll(dir, GraphRuntime.referenceOnly(), PartitionPolicy.DEBUG);
        System.out.println("ONNX " + corpus + " on the reference backend:\n" + report.table());
        assertEquals(expectedTests, report.cases().size());
        Map<String, String> why = explained(corpus);
        List<String> problems = new ArrayList<>();
        StringBuilder listing = new StringBuilder();
        for (OnnxConformance.CaseResult c : report.cases()) {
            String w = why.get(c.name());
            switch (c.status()) {
                case FAIL -> problems.add("FAIL " + c.name() + ": " + c.detail());
                case UNSUPPORTED -> {
                    listing.append(c.name()).append('\t').append(reason(c.detail())).append('\n');
                    if (w == null) {
                        problems.add("unexplained UNSUPPORTED " + c.name() + ": " + c.detail());
                    } else if (!reason(c.detail()).equals(w)) {
                        problems.add("UNSUPPORTED " + c.name() + " for another reason than '" + w + "': " + c.detail());
                    }
                }
                case PASS -> {
                    if (w != null) {
                        problems.add("PASS " + c.name() + " is listed as unsupported: update the list");
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems) + "\n" + report.table()
                + "\nunsupported now (for unsupported-" + corpus + ".txt):\n" + listing);
    }

    @Test
    void pytorchExportsMatchGoldenOutputs() {
        check("onnx-pytorch", 117);
    }

    @Test
    void moreNodeTestsMatchGoldenOutputs() {
        check("onnx-node-more", 331);
    }

    @Test
    void reasonIsTheOpAndWhatFollowsTheNode() {
        assertEquals("Pad: no translation to Partita ops", reason(
                "unsupported ONNX op Pad (opset 6) at node (unnamed, output 'y'): no translation to Partita ops"));
        assertEquals("unsupported ONNX opset in model.onnx (opset 27): opset 27 is not supported", reason(
                "unsupported ONNX opset in /a/b/model.onnx (opset 27): opset 27 is not supported"));
    }
}
