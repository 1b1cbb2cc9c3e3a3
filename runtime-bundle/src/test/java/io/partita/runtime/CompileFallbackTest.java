package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.partita.cache.internal.CacheManagerImpl;
import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.PartitaException;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.CompileRequest;
import io.partita.spi.ForwardingBackend;
import io.partita.spi.Kernel;
import io.partita.testing.Graphs;
import io.partita.testing.TestBackend;

/**
 * A backend that cannot compile its claim (generated code rejected, an unsupported feature, an
 * internal failure) is a compile error naming the partition; a compiled graph then gives those ops to
 * the other backends and runs, with the same results.
 */
class CompileFallbackTest {

    /** Claims like the fused test backend and fails to compile the claims whose first op id is in {@code failing}. */
    private static class Failing extends ForwardingBackend {
        final AtomicInteger failures = new AtomicInteger();
        private final RuntimeException failure;
        private final List<Long> failing;

        Failing(String id, int rank, RuntimeException failure, List<Long> failing) {
            super(TestBackend.matmulRelu(id, rank));
            this.failure = failure;
            this.failing = failing;
        }

        @Override
        public Kernel compile(CompileRequest request) {
            if (failing.contains(request.ops().get(0).id())) {
                failures.incrementAndGet();
                throw failure;
            }
            return super.compile(request);
        }
    }

    private static RuntimeCore runtime(io.partita.spi.Backend... backends) {
        RuntimeCore rt = new RuntimeCore(new CacheManagerImpl(Map.of()));
        int rank = 100;
        for (io.partita.spi.Backend b : backends) {
            rt.addBackend(b, rank--);
        }
        return rt;
    }

    private static float[] run(GraphRuntime rt, Graph g, CompiledGraph cg) {
        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> in = new java.util.HashMap<>();
            for (io.partita.graph.LogicalTensor t : g.inputs()) {
                Tensor x = Tensor.allocate(t, Engine.cpu(), arena);
                float[] v = new float[(int) t.elementCount()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = (float) Math.sin(1.7 * i + t.id()); // the same inputs for both graphs
                }
                x.copyFrom(v);
                in.put(t.id(), x);
            }
            return cg.execute(new Stream(Engine.cpu()), in).get(6L).toFloatArray();
        }
    }

    @Test
    void aClaimItsBackendCannotCompileGoesToTheNextBackendAndTheGraphRuns() {
        for (RuntimeException failure : List.of(new UnsupportedFeatureException("partition 0 (matmul_relu): the JVM "
                + "rejected the code generated for it"), new IllegalStateException("a bug in the backend"))) {
            Failing fast = new Failing("fast", 10, failure, List.of(2L));
            TestBackend next = TestBackend.matmulRelu("next", 5);
            RuntimeCore rt = runtime(fast, next);
            Graph g = Graphs.twoLayers(rt, 3, 4, 5).finalizeGraph();
            try (CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, Engine.cpu())) {
                List<String> backends = cg.steps().stream().map(s -> s.partition().backendId()).toList();
                assertEquals(List.of("fast", "next"), backends, "ops 2 and 3 went to the next backend");
                assertEquals(1, fast.failures.get(), "refused once, not retried in a loop");
                GraphRuntime ref = GraphRuntime.referenceOnly();
                Graph r = Graphs.twoLayers(ref, 3, 4, 5).finalizeGraph();
                try (CompiledGraph rg = ref.compile(r, PartitionPolicy.DEBUG, Engine.cpu())) {
                    assertArrayEquals(run(ref, r, rg), run(rt, g, cg), 0f);
                }
            }
            // the refusal belongs to that graph: a new graph offers the claim again
            Graph again = Graphs.twoLayers(rt, 3, 4, 5).finalizeGraph();
            assertEquals("fast", again.partitions(PartitionPolicy.FUSION).get(1).backendId());
        }
    }

    @Test
    void withNoOtherBackendTheReferenceBackendTakesTheOps() {
        Failing only = new Failing("only", 10, new UnsupportedFeatureException("not this shape"), List.of(0L, 2L));
        RuntimeCore rt = runtime(only);
        Graph g = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph();
        try (CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, Engine.cpu())) {
            assertTrue(cg.steps().stream().allMatch(s -> s.partition().backendId().equals("reference")),
                    cg.steps().toString());
            assertEquals(4, cg.steps().size(), "one op per reference partition");
        }
    }

    /** On an engine the reference backend cannot run, a failure that no other backend can take is reported as it was. */
    @Test
    void whenNothingElseCanTakeTheOpsTheOriginalFailureIsReported() {
        Failing gpu = new Failing("gpu", 10, new UnsupportedFeatureException("engine gpu.7 does not exist"),
                List.of(0L, 2L)) {
            @Override
            public java.util.Set<io.partita.graph.EngineKind> engineKinds() {
                return java.util.Set.of(io.partita.graph.EngineKind.GPU);
            }
        };
        RuntimeCore rt = runtime(gpu);
        Graph g = Graphs.twoLayers(rt, 2, 3, 4);
        Graph gg = rt.createGraph(io.partita.graph.EngineKind.GPU);
        g.ops().forEach(gg::add);
        gg.finalizeGraph();
        UnsupportedFeatureException e = assertThrows(UnsupportedFeatureException.class,
                () -> rt.compile(gg, PartitionPolicy.FUSION, new Engine(io.partita.graph.EngineKind.GPU, 7)));
        assertEquals("engine gpu.7 does not exist", e.getMessage());
        assertTrue(e.getSuppressed().length == 1, "the reference backend's refusal is kept beside it");
    }

    @Test
    void theCallersErrorsAreNotFallenBackFrom() {
        Failing bad = new Failing("bad", 10, new InvalidArgumentException("input 0 has the wrong dims"), List.of(0L));
        RuntimeCore rt = runtime(bad);
        Graph g = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph();
        PartitaException e = assertThrows(InvalidArgumentException.class,
                () -> rt.compile(g, PartitionPolicy.FUSION, Engine.cpu()));
        assertTrue(e.getMessage().contains("wrong dims"), e.getMessage());
    }

    @Test
    void aPartitionCompiledAloneReportsTheFailureNamingThePartition() {
        Failing f = new Failing("f", 10, new IllegalStateException("boom"), List.of(0L));
        RuntimeCore rt = runtime(f);
        var p = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph().partitions(PartitionPolicy.FUSION).get(0);
        PartitaException e = assertThrows(PartitaException.class, () -> p.compile(Engine.cpu()));
        assertTrue(e.getMessage().startsWith("backend f failed to compile partition " + p.id() + " (matmul_relu)"),
                e.getMessage());
    }
}
