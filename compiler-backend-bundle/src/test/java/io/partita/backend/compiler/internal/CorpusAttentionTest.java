package io.partita.backend.compiler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.partita.cache.CacheManager;
import io.partita.formats.json.GraphJson;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.runtime.StandaloneRuntime;
import io.partita.testkit.benchdnn.CaseRunner;
import io.partita.testkit.benchdnn.HarnessFile;

/**
 * The f32 attention files of benchdnn's complex_fusion corpus: one partition claimed by the graph
 * compiler (as oneDNN's graph compiler makes one), outputs matching the reference backend.
 */
class CorpusAttentionTest {
    static final CacheManager CACHES = StandaloneRuntime.newCacheManager();
    static final CompilerBackend COMPILER = new CompilerBackend(CACHES);
    static final GraphRuntime RUNTIME = StandaloneRuntime.of(CACHES, COMPILER);
    static final Path GRAPHS = Paths.get("..", "testdata", "corpus", "benchdnn-graph");

    @ParameterizedTest
    @ValueSource(strings = {"MHA-bert_large-inf-fp32-bs1.json", "sdpa-plain-simplified-f32.json",
        "sdpa-plain-implicit-causal-mask-fp32-bs1.json", "MHA-GPT-inf-fp32-bs1.json",
        "MHA-stable_diffusion-inf-fp32-bs1.json", "GQA-f32.json", "GQA-f32-v2.json", "JAX-MQA-inf-fp32.json"})
    void claimsTheWholeBlockAndMatchesTheReference(String file) {
        String caseFile = "complex_fusion/mha/" + file;
        Graph g = GraphJson.parse(GRAPHS.resolve(caseFile)).withEngineKind(io.partita.graph.EngineKind.CPU)
                .toGraph(RUNTIME);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        List<Partition> compiled = parts.stream().filter(p -> p.backendId().equals(CompilerBackend.ID)).toList();
        assertEquals(1, compiled.size(), parts.toString());
        assertEquals(g.partitions(PartitionPolicy.FUSION).size(), 1,
                "every op of the file is part of the attention block: " + parts);
        CaseRunner runner = new CaseRunner(RUNTIME, GRAPHS, true, 0);
        CaseRunner.LineResult r = runner.run(HarnessFile.parse(List.of("--reset --case=" + caseFile), "test").get(0));
        assertTrue(r.passed(), r.toString());
    }

    /**
     * bf16 and f16 inputs and outputs around f32 scores (the harness's --dt rewrites, the -f16-f32
     * files): loads widen to f32, stores round back.
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "--reset --dt=1:f16+3:f16+16:f16+19:f16+20:f16 --case=complex_fusion/mha/GQA-f32-v2.json",
        "--reset --case=complex_fusion/mha/sdpa-plain-bottom-right-implicit-causal-mask-f16-f32.json"})
    void halfPrecisionAttentionIsOnePartition(String line) {
        CaseRunner runner = new CaseRunner(RUNTIME, GRAPHS, true, 0);
        CaseRunner.LineResult r = runner.run(HarnessFile.parse(List.of(line), "test").get(0));
        assertTrue(r.passed(), r.toString());
        assertTrue(r.variants().stream().allMatch(v -> v.partitions() == 1), r.toString());
    }

    /**
     * All-bf16 attention rounds every score and probability in the reference; the fused loop keeps
     * them in f32, so the graph compiler leaves such graphs to the per-op backends.
     */
    @ParameterizedTest
    @ValueSource(strings = {"--reset --dt=bf16 --case=complex_fusion/mha/sdpa-plain-simplified-f32.json"})
    void lowPrecisionScoresAreNotFused(String line) {
        CaseRunner runner = new CaseRunner(RUNTIME, GRAPHS, true, 0);
        CaseRunner.LineResult r = runner.run(HarnessFile.parse(List.of(line), "test").get(0));
        assertTrue(r.variants().stream().allMatch(v -> v.partitions() > 1), r.toString());
    }

    /** Training forward: the SoftMax's stats (max + log(sum) per row) are a second output of the fused loop. */
    @ParameterizedTest
    @ValueSource(strings = {
        "--reset --dt=0:f32+1:f32+4:f32+7:f32+10:f32+13:f32+14:f32 --case=complex_fusion/mha/sdpa-plain-training-forward-bf16-f32.json",
        "--reset --dt=0:f32+1:f32+4:f32+10:f32+13:f32+14:f32 --case=complex_fusion/mha/gqa-plain-training-forward-bf16-f32.json"})
    void trainingForwardWritesTheSoftmaxStats(String line) {
        CaseRunner runner = new CaseRunner(RUNTIME, GRAPHS, true, 0);
        CaseRunner.LineResult r = runner.run(HarnessFile.parse(List.of(line), "test").get(0));
        assertTrue(r.passed(), r.toString());
        assertTrue(r.variants().stream().allMatch(v -> v.partitions() == 1), r.toString());
    }
}
