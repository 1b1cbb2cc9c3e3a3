package io.partita.runtime;

import static io.partita.testing.Graphs.f32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.spi.Claim;
import io.partita.testing.TestBackend;

/**
 * Partitioning and the whole-graph passes stay near-linear: 50,000-op graphs finalize, partition
 * under both policies and compile in seconds. The bounds are generous (shared, loaded CI machines);
 * a quadratic pass takes minutes at this size.
 */
class PartitionScalingTest {
    private static final int OPS = 50_000;

    /** Under DEBUG claims every op on its own, so every claim goes through the partitioner's checks. */
    private static TestBackend singleOps() {
        return new TestBackend("single", 5, (g, policy) -> {
            List<Claim> out = new ArrayList<>();
            if (policy == PartitionPolicy.DEBUG) {
                for (Op op : g.ops()) {
                    out.add(Claim.of("one", op.id()));
                }
            }
            return out;
        });
    }

    /** Under FUSION claims each op with its first consumer when neither is taken yet (convex pairs). */
    private static TestBackend pairs() {
        return new TestBackend("pairs", 4, (g, policy) -> {
            List<Claim> out = new ArrayList<>();
            if (policy == PartitionPolicy.DEBUG) {
                return out;
            }
            Set<Long> taken = new HashSet<>();
            for (Op op : g.ops()) {
                List<Op> next = g.consumers(op.output(0).id());
                if (taken.contains(op.id()) || next.isEmpty() || taken.contains(next.get(0).id())) {
                    continue;
                }
                taken.add(op.id());
                taken.add(next.get(0).id());
                out.add(Claim.of("pair", op.id(), next.get(0).id()));
            }
            return out;
        });
    }

    /** t0 -ReLU-> t1 -ReLU-> ... -> t{n} (op i: t{i} -> t{i+1}). */
    static Graph chain(RuntimeCore rt, int n) {
        Graph g = rt.createGraph(EngineKind.CPU);
        for (int i = 0; i < n; i++) {
            g.add(Op.builder(i, OpKind.ReLU).input(f32(i, 2)).output(f32(i + 1, 2)).build());
        }
        return g;
    }

    /**
     * Two rails joined at every rung: a{i+1} = ReLU(a{i}), b{i+1} = Add(a{i+1}, b{i}); op ids 2i and
     * 2i+1, tensor ids a{i} = 2i, b{i} = 2i+1.
     */
    static Graph ladder(RuntimeCore rt, int rungs) {
        Graph g = rt.createGraph(EngineKind.CPU);
        for (int i = 0; i < rungs; i++) {
            long a = 2L * i;
            long b = 2L * i + 1;
            g.add(Op.builder(2L * i, OpKind.ReLU).input(f32(a, 2)).output(f32(a + 2, 2)).build());
            g.add(Op.builder(2L * i + 1, OpKind.Add).inputs(f32(a + 2, 2), f32(b, 2)).output(f32(b + 2, 2)).build());
        }
        return g;
    }

    private static <T> T timed(String what, Supplier<T> s) {
        long t0 = System.nanoTime();
        T r = s.get();
        System.out.printf("%-40s %8.2f s%n", what, (System.nanoTime() - t0) / 1e9);
        return r;
    }

    private static void run(String name, RuntimeCore rt, Graph g, int ops) {
        timed(name + " finalize", g::finalizeGraph);
        List<Partition> debug = timed(name + " partitions(DEBUG)", () -> g.partitions(PartitionPolicy.DEBUG));
        assertEquals(ops, debug.size());
        List<Partition> fusion = timed(name + " partitions(FUSION)", () -> g.partitions(PartitionPolicy.FUSION));
        assertEquals(ops, fusion.stream().mapToInt(p -> p.ops().size()).sum());
        CompiledGraph cg = timed(name + " compile(FUSION)",
                () -> rt.compile(g, PartitionPolicy.FUSION, Engine.cpu()));
        assertEquals(fusion.size(), cg.steps().size());
        cg.close();
    }

    @Test
    void chainOf50000OpsPartitionsInSeconds() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            RuntimeCore rt = StandaloneRuntime.of(singleOps(), pairs());
            run("chain", rt, chain(rt, OPS), OPS);
        });
    }

    @Test
    void ladderOf50000OpsPartitionsInSeconds() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            RuntimeCore rt = StandaloneRuntime.of(singleOps(), pairs());
            run("ladder", rt, ladder(rt, OPS / 2), OPS);
        });
    }
}
