package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/** Builds a graph twice (with the dnnl backend, and on the reference alone) and compares every output. */
final class AgainstReference {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();

    static final GraphRuntime WITH_DNNL = GraphRuntime.standalone();
    static final GraphRuntime REFERENCE = GraphRuntime.referenceOnly();

    private AgainstReference() {
    }

    /**
     * Runs the graph built by {@code build} on both runtimes with the same seeded inputs.
     *
     * @return the partitions the dnnl runtime made (to check what was claimed)
     */
    static List<Partition> check(Consumer<Graph> build, long seed) {
        return check(build, seed, in -> { });
    }

    /** As above, with the seeded inputs edited by {@code edit} first (special values at chosen places). */
    static List<Partition> check(Consumer<Graph> build, long seed, Consumer<Map<Long, Tensor>> edit) {
        assertTrue(WITH_DNNL.backends().stream().anyMatch(b -> b.id().equals("dnnl")), "dnnl is discovered");
        Graph g = WITH_DNNL.createGraph(EngineKind.CPU);
        build.accept(g);
        g.finalizeGraph();
        Graph r = REFERENCE.createGraph(EngineKind.CPU);
        build.accept(r);
        r.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = WITH_DNNL.compile(g, PartitionPolicy.FUSION, e);
                CompiledGraph rg = REFERENCE.compile(r, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, e, arena, seed);
            edit.accept(in);
            Map<Long, Tensor> expected = rg.execute(new Stream(e), in);
            for (int round = 0; round < 2; round++) { // the second round reuses cached constants
                Map<Long, Tensor> actual = cg.execute(new Stream(e), in);
                assertEquals(expected.keySet(), actual.keySet());
                for (Map.Entry<Long, Tensor> x : expected.entrySet()) {
                    OutputComparison.Result res = OutputComparison.compare(x.getValue(), actual.get(x.getKey()));
                    assertTrue(res.matches(), "output " + x.getKey() + " round " + round + ": " + res.describe());
                }
            }
            return g.partitions(PartitionPolicy.FUSION);
        }
    }
}
