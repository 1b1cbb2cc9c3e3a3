package io.partita.backend.compiler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.formats.json.GraphJson;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.testkit.benchdnn.CaseRunner;
import io.partita.testkit.benchdnn.HarnessFile;

/**
 * benchdnn's binary-matmul-binary file: ten Multiplies computing the MatMul's src, the batched
 * MatMul, ten Multiplies on its output, all one graph-compiler partition (as oneDNN's graph
 * compiler makes one), matching the reference.
 */
class CorpusMatMulChainTest {

    @Test
    void binaryMatMulBinaryIsOnePartitionMatchingTheReference() {
        String caseFile = "complex_fusion/bmb/binary-matmul-binary-f32.json";
        Graph g = GraphJson.parse(CorpusAttentionTest.GRAPHS.resolve(caseFile)).withEngineKind(EngineKind.CPU)
                .toGraph(CorpusAttentionTest.RUNTIME);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals(CompilerBackend.ID, parts.get(0).backendId());
        assertEquals(CompilerBackend.MATMUL, parts.get(0).pattern());
        assertEquals(21, parts.get(0).ops().size());
        CaseRunner runner = new CaseRunner(CorpusAttentionTest.RUNTIME, CorpusAttentionTest.GRAPHS, true, 0);
        CaseRunner.LineResult r = runner.run(HarnessFile.parse(List.of("--reset --case=" + caseFile),
                "test").get(0));
        assertTrue(r.passed(), r.toString());
        assertTrue(r.variants().stream().allMatch(v -> v.partitions() == 1), r.toString());
    }
}
