package io.partita.cli.run;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.cli.CliRun;
import io.partita.formats.json.GraphJson;
import io.partita.graph.GraphRuntime;
import io.partita.graph.PartitionPolicy;
import io.partita.testkit.onnx.OnnxConformance;

/**
 * ONNX node tests with every backend of the distribution on the class path (the dnnl backend
 * claims what it can in FUSION policy): no test may fail, and the dnnl backend must actually run
 * some of them (otherwise this test would only repeat the reference backend's). Also the CLI's
 * run / convert / conformance on ONNX files.
 */
class OnnxConformanceAllBackendsTest {

    static Path corpus() {
        String p = System.getProperty("partita.corpus");
        Path root = p != null && !p.isEmpty() && !p.startsWith("${") ? Paths.get(p) : Paths.get("..", "testdata", "corpus");
        return root.resolve("onnx-node");
    }

    @Test
    void everyBackendMatchesOnnxGoldenOutputs() {
        GraphRuntime rt = GraphRuntime.standalone();
        assertTrue(rt.backends().stream().anyMatch(b -> b.id().equals("dnnl")), "dnnl backend on the class path: "
                + rt.backends());
        OnnxConformance.Report report = OnnxConformance.runAll(corpus(), rt, PartitionPolicy.FUSION);
        System.out.println("ONNX node tests, all backends (FUSION):\n" + report.table());
        List<String> failures = new ArrayList<>();
        for (OnnxConformance.CaseResult c : report.cases()) {
            if (c.status() == OnnxConformance.Status.FAIL) {
                failures.add(c.name() + " " + c.backends() + ": " + c.detail());
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        long onDnnl = report.cases().stream().filter(c -> c.status() == OnnxConformance.Status.PASS
                && c.backends().contains("dnnl")).count();
        assertTrue(onDnnl >= 50, "only " + onDnnl + " passing tests ran a dnnl partition");
    }

    /** The PyTorch exports and the further node tests on every backend: what imports must not fail. */
    @Test
    void everyBackendMatchesGoldenOutputsOfPytorchExportsAndMoreNodeTests() {
        GraphRuntime rt = GraphRuntime.standalone();
        List<String> failures = new ArrayList<>();
        for (String name : List.of("onnx-pytorch", "onnx-node-more")) {
            OnnxConformance.Report report = OnnxConformance.runAll(corpus().resolveSibling(name), rt,
                    PartitionPolicy.FUSION);
            System.out.println("ONNX " + name + ", all backends (FUSION):\n" + report.table());
            for (OnnxConformance.CaseResult c : report.cases()) {
                if (c.status() == OnnxConformance.Status.FAIL) {
                    failures.add(name + " " + c.name() + " " + c.backends() + ": " + c.detail());
                }
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    private static String cli(int expectedExit, String... args) {
        return CliRun.expect(expectedExit, args);
    }

    @Test
    void runChecksAnOnnxModelAgainstTheReference() {
        String text = cli(0, "run", corpus().resolve("test_conv_with_strides_and_asymmetric_padding/model.onnx").toString(),
                "--iterations", "1", "--check");
        assertTrue(text.contains("ONNX opset") && text.contains("check: all 1 outputs match"), text);
    }

    @Test
    void convertWritesGraphJsonAndConstants(@TempDir Path tmp) throws Exception {
        Path json = tmp.resolve("gelu.json");
        String text = cli(0, "convert", corpus().resolve("test_gelu_default_1_expanded/model.onnx").toString(),
                json.toString(), "--constants", tmp.resolve("c").toString());
        assertTrue(text.contains("PartitaErf") && text.contains("oneDNN will not load"), text);
        assertTrue(GraphJson.parse(json).ops().size() >= 5);
        assertTrue(Files.isRegularFile(tmp.resolve("c/constants.json")), text);
    }

    @Test
    void conformanceCommandPrintsTheTableAndFailsOnBadFolders(@TempDir Path tmp) {
        String text = cli(0, "conformance", corpus().resolve("test_softmax_axis_0").toString(), "--verbose");
        assertTrue(text.contains("PASS test_softmax_axis_0") && text.contains("Softmax"), text);
        cli(2, "conformance", tmp.resolve("nothing").toString());
        cli(2, "conformance", tmp.toString());
    }

    @Test
    void conformanceTolerancesAreOptionsAndEachTestReportsItsWorstError() {
        String text = cli(0, "conformance", corpus().resolve("test_relu").toString(), "--verbose", "--atol", "0",
                "--rtol", "0");
        assertTrue(text.contains("PASS test_relu") && text.contains("worst abs err 0") && text.contains("atol 0"), text);
        String loose = cli(0, "conformance", corpus().resolve("test_softmax_axis_0").toString(), "--verbose",
                "--rtol", "0.01");
        assertTrue(loose.contains("rtol 0.01"), loose);
        cli(2, "conformance", corpus().resolve("test_relu").toString(), "--rtol", "-1");
    }

    @Test
    void malformedModelIsBadInput(@TempDir Path tmp) throws Exception {
        Path bad = tmp.resolve("bad.onnx");
        Files.write(bad, new byte[] {0x3a, 0x05, 1});
        String text = cli(2, "run", bad.toString());
        assertTrue(text.contains("bad.onnx") && text.contains("malformed"), text);
    }
}
