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

/** benchdnn's LayerNorm + GELU pattern and RMSNorm op files: one norm partition, matching the reference. */
class CorpusNormTest {

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "pattern/f32/lnorm_gelu.json;",
        "pattern/f32/lnorm_gelu.json;0:4x33x768+1:768+2:768",
        "op/f32/rmsnorm.json;0:2x3x28x28+2:28"})
    void oneNormPartitionMatchingTheReference(String caseFile, String inShapes) {
        Graph g = GraphJson.parse(CorpusAttentionTest.GRAPHS.resolve(caseFile)).withEngineKind(EngineKind.CPU)
                .toGraph(CorpusAttentionTest.RUNTIME);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals(CompilerBackend.ID, parts.get(0).backendId());
        assertEquals(CompilerBackend.NORM, parts.get(0).pattern());
        CaseRunner runner = new CaseRunner(CorpusAttentionTest.RUNTIME, CorpusAttentionTest.GRAPHS, true, 0);
        String line = "--reset " + (inShapes == null ? "" : "--in-shapes=" + inShapes + " ") + "--case=" + caseFile;
        CaseRunner.LineResult r = runner.run(HarnessFile.parse(List.of(line), "test").get(0));
        assertTrue(r.passed(), r.toString());
        assertTrue(r.variants().stream().allMatch(v -> v.partitions() == 1), r.toString());
    }
}
