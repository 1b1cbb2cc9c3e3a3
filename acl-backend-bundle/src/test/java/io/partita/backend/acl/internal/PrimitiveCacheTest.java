package io.partita.backend.acl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.partita.backend.acl.internal.memory.CachedMemoryManager;
import io.partita.backend.acl.internal.memory.PoolHandle;
import io.partita.backend.acl.internal.ops.GemmConvolution;
import io.partita.cache.CacheManager;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.runtime.StandaloneRuntime;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/** Primitives in the primitive cache: pools reused while cached, freed on eviction, never shared by concurrent runs. */
class PrimitiveCacheTest {

    static GemmConvolution.Desc conv(int cout) {
        return new GemmConvolution.Desc(1, 4, 9, 9, cout, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, false, false, false, false,
                false);
    }

    @Test
    void aCachedPrimitiveReusesItsPoolAndEvictionFreesIt() {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        AclBackend acl = new AclBackend(caches);
        AclPrimitive p = acl.primitive(conv(5));
        assertSame(p, acl.primitive(conv(5)));
        for (int i = 0; i < 5; i++) {
            p.execute(pool -> assertTrue(pool.segment("im2col").byteSize() > 0));
        }
        assertEquals(1, p.memory().poolsCreated());
        long bytes = p.memory().plan().poolBytes();
        assertEquals(bytes, acl.budget().pooledBytes());
        assertTrue(acl.description().contains("pooled=" + bytes + "B"), acl.description());
        caches.kernelCache(CacheManager.PRIMITIVES).setCapacity(0); // evicts everything
        assertEquals(0, acl.budget().pooledBytes());
        assertEquals(0, ((CachedMemoryManager) p.memory()).poolManager().poolCount());
        assertNotSame(p, acl.primitive(conv(5)));
        acl.close();
    }

    @Test
    void theOnDemandBaselineAllocatesEveryRunAndKeepsNothing() {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        AclBackend acl = new AclBackend(caches);
        AclPrimitive cached = acl.primitive(conv(5));
        acl.setCachedMemory(false);
        AclPrimitive onDemand = acl.primitive(conv(5));
        assertNotSame(cached, onDemand); // the manager kind is part of the primitive key
        for (int i = 0; i < 4; i++) {
            onDemand.execute(pool -> pool.segment("im2col"));
        }
        assertEquals(4, onDemand.memory().poolsCreated());
        assertEquals(0, acl.budget().pooledBytes());
        assertTrue(acl.description().contains("memory=on-demand"), acl.description());
        acl.close();
    }

    @Test
    void identicalPrimitivesRunningTogetherEachReserveTheirOwnPool() throws Exception {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        AclBackend acl = new AclBackend(caches);
        AclPrimitive p = acl.primitive(conv(3));
        CountDownLatch bothInside = new CountDownLatch(2);
        List<PoolHandle> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService ex = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                fs.add(ex.submit(() -> {
                    p.execute(pool -> {
                        seen.add(pool);
                        bothInside.countDown();
                        try {
                            assertTrue(bothInside.await(30, TimeUnit.SECONDS), "the other run never started");
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                    });
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            ex.shutdownNow();
        }
        assertNotSame(seen.get(0).pool(), seen.get(1).pool());
        assertEquals(2, ((CachedMemoryManager) p.memory()).poolManager().freeCount());
        acl.close();
        assertEquals(0, acl.budget().pooledBytes());
    }

    /**
     * Four threads run several graphs whose primitives do not all fit in a primitive cache of two
     * entries, so primitives are evicted while other threads run them: every output matches the
     * reference, and once the cache is flushed no pooled byte is left.
     */
    @Test
    void evictionMidRunUnderFourThreadsNeitherCorruptsNorLeaks() throws Exception {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        caches.setKernelCacheCapacity(CacheManager.PRIMITIVES, 2);
        AclBackend acl = new AclBackend(caches);
        GraphRuntime rt = StandaloneRuntime.of(caches, acl);
        GraphRuntime ref = GraphRuntime.referenceOnly();
        Engine e = Engine.cpu();
        int graphs = 4;
        List<CompiledGraph> compiled = new ArrayList<>();
        List<CompiledGraph> acls = new ArrayList<>();
        List<Map<Long, Tensor>> inputs = new ArrayList<>();
        List<Map<Long, Tensor>> expected = new ArrayList<>();
        try (Arena arena = Arena.ofShared()) {
            for (int i = 0; i < graphs; i++) {
                int cout = 3 + i;
                Graph g = convGraph(rt, cout);
                Graph r = convGraph(ref, cout);
                CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e);
                assertEquals(AclBackend.ID, g.partitions(PartitionPolicy.FUSION).get(0).backendId());
                compiled.add(cg);
                acls.add(cg);
                Map<Long, Tensor> in = RandomInputs.forGraph(ref.opSchemas(), g, e, arena, i);
                inputs.add(in);
                CompiledGraph rg = ref.compile(r, PartitionPolicy.DEBUG, e); // owns the expected outputs
                compiled.add(rg);
                expected.add(rg.execute(new Stream(e), in));
            }
            var primitives = caches.kernelCache(CacheManager.PRIMITIVES);
            long evictionsBefore = primitives.stats().evictions();
            ExecutorService ex = Executors.newFixedThreadPool(5);
            java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
            try {
                List<Future<?>> fs = new ArrayList<>();
                // evicts primitives while the others run them: new descriptors push the cached ones out
                Future<?> evictor = ex.submit(() -> {
                    for (int c = 1; running.get(); c++) {
                        acl.primitive(conv(20 + c % 7)).execute(pool -> pool.segment("im2col"));
                        Thread.sleep(1);
                    }
                    return null;
                });
                for (int t = 0; t < 4; t++) {
                    int seed = t;
                    fs.add(ex.submit(() -> {
                        for (int round = 0; round < 60; round++) {
                            int i = (round + seed) % graphs;
                            Map<Long, Tensor> out = acls.get(i).execute(new Stream(e), inputs.get(i));
                            for (var x : expected.get(i).entrySet()) {
                                OutputComparison.Result res = OutputComparison.compare(x.getValue(), out.get(x.getKey()));
                                assertTrue(res.matches(), "graph " + i + " round " + round + ": " + res.describe());
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fs) {
                    f.get(300, TimeUnit.SECONDS);
                }
                running.set(false);
                evictor.get(60, TimeUnit.SECONDS);
            } finally {
                ex.shutdownNow();
            }
            assertTrue(primitives.stats().evictions() - evictionsBefore > 50, primitives.stats().toString());
            compiled.forEach(CompiledGraph::close);
        }
        caches.kernelCache(CacheManager.PRIMITIVES).setCapacity(0);
        assertEquals(0, acl.budget().pooledBytes(), "pooled bytes after the primitive cache was flushed");
        assertFalse(acl.budget().peakPooledBytes() == 0);
        acl.close();
    }

    private static Graph convGraph(GraphRuntime rt, int cout) {
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.Convolution)
                .inputs(f32(0, 2, 5, 11, 11), f32(1, cout, 5, 3, 3).withProperty(PropertyType.CONSTANT))
                .output(f32(2, 2, cout, 11, 11)).attr("strides", 1L, 1L).attr("pads_begin", 1L, 1L)
                .attr("pads_end", 1L, 1L).attr("dilations", 1L, 1L).attr("data_format", "NCX")
                .attr("weights_format", "OIX").build());
        g.finalizeGraph();
        return g;
    }

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }
}
