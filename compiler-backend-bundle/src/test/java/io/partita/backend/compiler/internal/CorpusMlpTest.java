package io.partita.backend.compiler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.formats.json.GraphJson;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.testkit.benchdnn.CaseRunner;
import io.partita.testkit.benchdnn.HarnessFile;

/**
 * benchdnn's gated-MLP files: the whole MLP one graph-compiler partition at full size (4096 x
 * 14336), and outputs matching the reference at the harness's reduced shapes.
 */
class CorpusMlpTest {

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "gated-mlp-f32.json;0:3x128+1:128x256+4:128x256+13:256x128",
        "gated-mlp-f32.json;0:1x128+1:128x256+4:128x256+13:256x128",
        "gated-mlp-gelu-f32.json;0:5x64+1:64x200+4:64x200+12:200x72"})
    void oneFusedPartitionMatchingTheReference(String file, String inShapes) {
        String caseFile = "complex_fusion/mlp/" + file;
        Graph g = GraphJson.parse(CorpusAttentionTest.GRAPHS.resolve(caseFile)).withEngineKind(EngineKind.CPU)
                .toGraph(CorpusAttentionTest.RUNTIME);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals(CompilerBackend.ID, parts.get(0).backendId());
        assertEquals(CompilerBackend.GATED_MLP, parts.get(0).pattern());
        CaseRunner runner = new CaseRunner(CorpusAttentionTest.RUNTIME, CorpusAttentionTest.GRAPHS, true, 0);
        CaseRunner.LineResult r = runner.run(HarnessFile.parse(List.of("--reset --in-shapes=" + inShapes + " --case="
                + caseFile), "test").get(0));
        assertTrue(r.passed(), r.toString());
        assertTrue(r.variants().stream().allMatch(v -> v.partitions() == 1), r.toString());
    }
}
