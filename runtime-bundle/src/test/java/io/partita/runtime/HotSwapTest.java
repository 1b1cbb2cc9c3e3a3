package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.cache.CacheKey;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.internal.CacheManagerImpl;
import io.partita.graph.BackendUnavailableException;
import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testing.TestBackend;

/** A backend going away after a live rank change: its partitions stop, compiled graphs move on. */
class HotSwapTest {
    private final CacheManagerImpl caches = new CacheManagerImpl(Map.of());
    private final RuntimeCore rt = new RuntimeCore(caches);
    private final TestBackend backend = TestBackend.matmulRelu("t", 7);
    private final Engine cpu = Engine.cpu();

    private Graph matmulRelu() {
        Graph g = rt.createGraph(EngineKind.CPU);
        LogicalTensor x = LogicalTensor.of(0, DataType.F32, 1, 2);
        LogicalTensor w = LogicalTensor.of(1, DataType.F32, 2, 2);
        LogicalTensor y = LogicalTensor.of(2, DataType.F32, 1, 2);
        LogicalTensor r = LogicalTensor.of(3, DataType.F32, 1, 2);
        g.add(Op.builder(0, OpKind.MatMul).inputs(x, w).output(y).build());
        g.add(Op.builder(1, OpKind.ReLU).input(y).output(r).build());
        return g.finalizeGraph();
    }

    private Map<Long, Tensor> inputs(Graph g, Arena arena) {
        Tensor x = Tensor.allocate(g.inputs().get(0), cpu, arena);
        x.copyFrom(new float[] {1, 2});
        Tensor w = Tensor.allocate(g.inputs().get(1), cpu, arena);
        w.copyFrom(new float[] {1, -1, 1, -3});
        return Map.of(0L, x, 1L, w);
    }

    private void cacheSomething(String backendId) {
        caches.constantTensorCache(Device.CPU)
                .getOrAdd(new CacheKey(backendId, "w"), 256, () -> ConstantBuffer.allocateHost(256)).close();
    }

    @Test
    void afterARankChangeStoppingTheBackendStopsWhatItCompiledAndDropsItsConstants() {
        rt.bindBackend(backend, Map.of("service.ranking", 5));
        Graph g = matmulRelu();
        Partition p = g.partitions(PartitionPolicy.FUSION).get(0);
        assertEquals("t", p.backendId());
        CompiledPartition cp = p.compile(cpu);
        cacheSomething("t");
        ConstantTensorCache cache = caches.constantTensorCache(Device.CPU);
        assertEquals(256, cache.sizeBytes("t"));

        rt.updatedBackend(backend, Map.of("service.ranking", "300")); // a live rank change
        assertEquals(300, rt.backends().get(0).rank());
        rt.unbindBackend(backend);

        try (Arena arena = Arena.ofConfined()) {
            Map<Long, Tensor> in = inputs(g, arena);
            Tensor out = Tensor.allocate(cp.outputs().get(0), cpu, arena);
            BackendUnavailableException e = assertThrows(BackendUnavailableException.class,
                    () -> cp.execute(new Stream(cpu), List.of(in.get(0L), in.get(1L)), List.of(out)));
            assertEquals("t", e.backendId());
        }
        assertEquals(0, cache.sizeBytes("t"));
    }

    @Test
    void aCompiledGraphRepartitionsWhenItsBackendGoes() {
        rt.bindBackend(backend, Map.of());
        Graph g = matmulRelu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, cpu)) {
            Map<Long, Tensor> in = inputs(g, arena);
            // x.w = [3, -7]; relu
            assertArrayEquals(new float[] {3, 0}, cg.execute(new Stream(cpu), in).get(3L).toFloatArray());
            assertEquals("t", cg.steps().get(0).partition().backendId());
            int ran = backend.executions.get();
            rt.updatedBackend(backend, Map.of("service.ranking", 8));
            rt.unbindBackend(backend);
            assertArrayEquals(new float[] {3, 0}, cg.execute(new Stream(cpu), in).get(3L).toFloatArray());
            assertEquals("reference", cg.steps().get(0).partition().backendId());
            assertEquals(2, cg.steps().size(), "the reference backend runs one op per partition");
            assertEquals(ran, backend.executions.get());
            rt.bindBackend(backend, Map.of()); // back: the graph stays on what it runs on now
            assertArrayEquals(new float[] {3, 0}, cg.execute(new Stream(cpu), in).get(3L).toFloatArray());
        }
    }

    /** What a compilation or execution running while the backend goes adds to the cache is dropped when it ends. */
    @Test
    void constantsAreDroppedOnlyOnceTheLastUserLeft() {
        rt.bindBackend(backend, Map.of());
        BackendHandle h = rt.activeBackends().get(0);
        assertEquals(true, h.enter());
        rt.unbindBackend(backend);
        assertEquals(false, h.enter(), "nothing new starts on a gone backend");
        cacheSomething("t"); // the running execution still caches a constant
        ConstantTensorCache cache = caches.constantTensorCache(Device.CPU);
        assertEquals(256, cache.sizeBytes("t"));
        h.leave();
        assertEquals(0, cache.sizeBytes("t"));
    }
}
