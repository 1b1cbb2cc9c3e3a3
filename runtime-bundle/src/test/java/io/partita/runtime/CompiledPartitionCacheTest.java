package io.partita.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.cache.CacheKey;
import io.partita.cache.CacheManager;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.Device;
import io.partita.cache.internal.CacheManagerImpl;
import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.testing.Graphs;
import io.partita.testing.TestBackend;

/** Compiling the same partition the same way twice returns the cached compiled partition. */
class CompiledPartitionCacheTest {

    private static CacheManager freshCaches() {
        return new CacheManagerImpl(Map.of());
    }

    @Test
    void sameKeySameCompiledPartitionAcrossGraphs() {
        TestBackend fuse = TestBackend.matmulRelu("fuse", 10);
        RuntimeCore rt = new RuntimeCore(freshCaches());
        rt.addBackend(fuse, 10);
        Partition p1 = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph().partitions(PartitionPolicy.FUSION).get(0);
        Partition p2 = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph().partitions(PartitionPolicy.FUSION).get(0);
        CompiledPartition a = p1.compile(Engine.cpu());
        CompiledPartition b = p2.compile(Engine.cpu());
        assertSame(a, b, "the same ops, ports and engine compile once");
        assertEquals(1, fuse.compiles.get());
        assertEquals(1, rt.caches().kernelCache(CacheManager.COMPILED_PARTITIONS).stats().hits());
        // other shapes: another compilation
        Partition p3 = Graphs.twoLayers(rt, 5, 3, 4).finalizeGraph().partitions(PartitionPolicy.FUSION).get(0);
        assertNotSame(a, p3.compile(Engine.cpu()));
        assertEquals(2, fuse.compiles.get());
    }

    @Test
    void aRemovedBackendTakesItsCompiledPartitionsAndConstantTensorsAlong() {
        CacheManager caches = freshCaches();
        TestBackend fuse = TestBackend.matmulRelu("fuse", 10);
        RuntimeCore rt = new RuntimeCore(caches);
        rt.addBackend(fuse, 10);
        Graph g = Graphs.twoLayers(rt, 2, 3, 4).finalizeGraph();
        g.partitions(PartitionPolicy.FUSION).get(0).compile(Engine.cpu());
        caches.constantTensorCache(Device.CPU)
                .getOrAdd(new CacheKey("fuse", "w"), 64, () -> ConstantBuffer.allocateHost(64)).close();
        caches.constantTensorCache(Device.CPU)
                .getOrAdd(new CacheKey("other", "w"), 64, () -> ConstantBuffer.allocateHost(64)).close();
        assertEquals(1, caches.kernelCache(CacheManager.COMPILED_PARTITIONS).size());
        rt.removeBackend(fuse);
        assertEquals(0, caches.kernelCache(CacheManager.COMPILED_PARTITIONS).size());
        assertEquals(1, caches.constantTensorCache(Device.CPU).stats().entries(), "only the other backend's tensor stays");
        // re-registered: compiles anew
        rt.addBackend(fuse, 10);
        g.partitions(PartitionPolicy.FUSION).get(0).compile(Engine.cpu());
        assertEquals(2, fuse.compiles.get());
    }
}
