package io.partita.backend.compiler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/** Graph building and checks against the reference backend shared by the norm and eltwise tests. */
final class RowFusionChecks {
    static final GraphRuntime RUNTIME = CorpusAttentionTest.RUNTIME;
    static final GraphRuntime REFERENCE = GraphRuntime.referenceOnly();

    private RowFusionChecks() {
    }

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static Graph graph(GraphRuntime runtime, Consumer<Graph> build) {
        Graph g = runtime.createGraph(EngineKind.CPU);
        build.accept(g);
        g.finalizeGraph();
        return g;
    }

    static List<Partition> compilerParts(Graph g, PartitionPolicy policy) {
        return g.partitions(policy).stream().filter(p -> p.backendId().equals(CompilerBackend.ID)).toList();
    }

    /** The graph is one partition of the compiler's with this pattern. */
    static Partition onePartition(Graph g, String pattern) {
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals(CompilerBackend.ID, parts.get(0).backendId(), parts.toString());
        assertEquals(pattern, parts.get(0).pattern());
        return parts.get(0);
    }

    /** Runs the whole graph through the runtime (FUSION) and through the reference; every output matches. */
    static void wholeGraphMatches(Consumer<Graph> build, long seed) {
        Graph g = graph(RUNTIME, build);
        Graph r = graph(REFERENCE, build);
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofShared(); CompiledGraph rg = REFERENCE.compile(r, PartitionPolicy.DEBUG, e);
                CompiledGraph cg = RUNTIME.compile(g, PartitionPolicy.FUSION, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(REFERENCE, r, e, arena, seed);
            Map<Long, Tensor> expected = rg.execute(new Stream(e), in);
            Map<Long, Tensor> actual = cg.execute(new Stream(e), in);
            assertEquals(expected.keySet(), actual.keySet());
            for (var x : expected.entrySet()) {
                OutputComparison.Result res = OutputComparison.compare(x.getValue(), actual.get(x.getKey()));
                assertTrue(res.matches(), "output " + x.getKey() + ": " + res.describe());
            }
        }
    }

    /**
     * Executes one compiled (dynamic) partition for the concrete graph {@code concrete} builds and
     * compares every partition output with the reference compiled for that graph.
     */
    static void partitionMatches(CompiledPartition cp, Consumer<Graph> concrete, long seed) {
        Graph r = graph(REFERENCE, concrete);
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofShared(); CompiledGraph rg = REFERENCE.compile(r, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(REFERENCE, r, e, arena, seed);
            Map<Long, Tensor> expected = rg.execute(new Stream(e), in);
            List<Tensor> ins = cp.inputs().stream().map(t -> in.get(t.id())).toList();
            List<LogicalTensor> outLts = cp.inferOutputs(ins.stream().map(Tensor::logicalTensor).toList());
            List<Tensor> outs = outLts.stream().map(lt -> Tensor.allocate(lt, e, arena)).toList();
            cp.execute(new Stream(e), ins, outs);
            for (int i = 0; i < outs.size(); i++) {
                long id = outLts.get(i).id();
                Tensor x = expected.get(id);
                assertTrue(x != null, "partition output " + id + " is a graph output");
                OutputComparison.Result res = OutputComparison.compare(x, outs.get(i));
                assertTrue(res.matches(), "output " + id + " " + LogicalTensor.dimsToString(outLts.get(i).dims())
                        + ": " + res.describe());
            }
        }
    }
}
