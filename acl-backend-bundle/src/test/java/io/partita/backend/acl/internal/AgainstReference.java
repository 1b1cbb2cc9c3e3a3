package io.partita.backend.acl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.partita.cache.CacheManager;
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
import io.partita.runtime.StandaloneRuntime;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/** Runs a graph on a runtime with the acl backend and on the reference alone, and compares every output. */
final class AgainstReference {
    static final CacheManager CACHES = StandaloneRuntime.newCacheManager();
    static final AclBackend ACL = new AclBackend(CACHES);
    static final GraphRuntime WITH_ACL = StandaloneRuntime.of(CACHES, ACL);
    static final GraphRuntime REFERENCE = GraphRuntime.referenceOnly();
    private static final OpSchemaRegistry SCHEMAS = REFERENCE.opSchemas();

    private AgainstReference() {
    }

    /** @return the partitions of the acl runtime, to check what acl claimed */
    static List<Partition> check(Consumer<Graph> build, long seed) {
        Graph g = WITH_ACL.createGraph(EngineKind.CPU);
        build.accept(g);
        g.finalizeGraph();
        Graph r = REFERENCE.createGraph(EngineKind.CPU);
        build.accept(r);
        r.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = WITH_ACL.compile(g, PartitionPolicy.FUSION, e);
                CompiledGraph rg = REFERENCE.compile(r, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, e, arena, seed);
            Map<Long, Tensor> expected = rg.execute(new Stream(e), in);
            for (int round = 0; round < 2; round++) { // the second round hits packed constants and pooled memory
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

    static void assertAcl(List<Partition> parts, String pattern) {
        assertEquals(1, parts.size(), parts.toString());
        assertEquals(AclBackend.ID, parts.get(0).backendId(), parts.toString());
        if (pattern != null) {
            assertEquals(pattern, parts.get(0).pattern(), parts.toString());
        }
    }
}
