package io.partita.gpu.internal;

import static io.partita.gpu.internal.AgainstReference.constant;
import static io.partita.gpu.internal.AgainstReference.f32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.gpu.internal.cl.GpuDevice;
import io.partita.gpu.internal.cl.Transfers;
import io.partita.runtime.StandaloneRuntime;
import io.partita.testkit.check.RandomInputs;

/** Discovery, selection, listing, counted copies and the engine index of the gpu backend. */
class GpuBackendTest {

    @Test
    void discoversAnOpenClDeviceAndListsIt() {
        List<GpuDevice> devices = AgainstReference.BACKEND.devices();
        assertFalse(devices.isEmpty(), AgainstReference.BACKEND.description());
        GpuDevice d = devices.get(0);
        assertEquals(0, d.index());
        assertFalse(d.name().isBlank());
        assertTrue(d.globalMemBytes() > 0);
        String text = AgainstReference.BACKEND.description();
        assertTrue(text.startsWith("OpenCL, "), text);
        assertTrue(text.contains("gpu.0: " + d.name()), text);
        assertTrue(text.contains("driver " + d.driverVersion()), text);
        assertTrue(text.contains("memory " + (d.globalMemBytes() >> 20) + " MiB"), text);
        assertTrue(text.contains(d.extensions().isEmpty() ? "extensions: " : d.extensions().get(0)), text);
    }

    @Test
    void standaloneRuntimeFindsTheBackendThroughItsFactory() {
        assertTrue(GraphRuntime.standalone().backends().stream()
                .anyMatch(b -> b.id().equals("gpu") && b.engineKinds().equals(java.util.Set.of(EngineKind.GPU))));
    }

    @Test
    void selectionByIndexAndNameAndItsErrors() {
        List<GpuDevice> all = AgainstReference.BACKEND.devices();
        GpuDevice first = all.get(0);
        assertEquals(first.name(), DeviceSelection.select(all, "0").get(0).name());
        String part = first.name().substring(0, Math.min(4, first.name().length())).toUpperCase(java.util.Locale.ROOT);
        assertEquals(first.name(), DeviceSelection.select(all, " " + part + " ").get(0).name());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DeviceSelection.select(all, "0, no-such-device"));
        assertTrue(e.getMessage().contains("'no-such-device' matches no OpenCL device"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DeviceSelection.select(all, String.valueOf(all.size())));
    }

    @Test
    void disabledOrUnmatchedSelectionClaimsNothing() {
        GpuBackend b = new GpuBackend(StandaloneRuntime.newCacheManager());
        b.configure(false, "");
        assertTrue(b.description().startsWith("disabled"), b.description());
        GraphRuntime rt = StandaloneRuntime.of(b);
        Graph g = rt.createGraph(EngineKind.GPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0, 4)).output(f32(1, 4)).build());
        g.finalizeGraph();
        assertEquals("reference", g.partitions(PartitionPolicy.FUSION).get(0).backendId());
        b.configure(true, "no-such-device");
        assertTrue(b.devices().isEmpty());
        assertTrue(b.description().contains("'no-such-device' matches no OpenCL device"), b.description());
        b.configure(true, "");
        assertFalse(b.devices().isEmpty());
        b.close();
    }

    @Test
    void anEngineIndexWithoutDeviceIsRefusedAtCompile() {
        GraphRuntime rt = AgainstReference.WITH_GPU;
        Graph g = rt.createGraph(EngineKind.GPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0, 4)).output(f32(1, 4)).build());
        g.finalizeGraph();
        int missing = AgainstReference.BACKEND.devices().size();
        Exception e = assertThrows(RuntimeException.class,
                () -> rt.compile(g, PartitionPolicy.FUSION, new Engine(EngineKind.GPU, missing)).close());
        Throwable t = e;
        while (!(t instanceof UnsupportedFeatureException) && t.getCause() != null) {
            t = t.getCause();
        }
        assertTrue(t.getMessage().contains("engine gpu." + missing + " does not exist"), t.getMessage());
    }

    @Test
    void copiesBetweenHostAndDeviceAreCountedPerExecute() {
        GraphRuntime rt = AgainstReference.WITH_GPU;
        Graph g = rt.createGraph(EngineKind.GPU);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 9, 11), constant(1, 11, 13)).output(f32(2, 9, 13)).build());
        g.add(Op.builder(1, OpKind.ReLU).input(f32(2, 9, 13)).output(f32(3, 9, 13)).build());
        g.finalizeGraph();
        Engine e = AgainstReference.GPU0;
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, e, arena, 1);
            cg.execute(new Stream(e), in); // warm: whatever the first call sets up
            Transfers.Snapshot before = AgainstReference.BACKEND.transfers(0);
            Stream s = new Stream(e);
            cg.execute(s, in);
            cg.execute(s, in);
            Transfers.Snapshot d = AgainstReference.BACKEND.transfers(0).since(before);
            // one fused partition: the variable input in and the output back per call; the constant
            // weights went to the device in the warm call and stay in the constant tensor cache
            assertEquals(2, d.toDevice(), d.toString());
            assertEquals(2 * 4L * 9 * 11, d.toDeviceBytes(), d.toString());
            assertEquals(2, d.toHost(), d.toString());
            assertEquals(2 * 4L * 9 * 13, d.toHostBytes(), d.toString());
        }
    }

    @Test
    void constantWeightsStayOnTheDeviceInTheUnifiedCacheUntilEvicted() {
        io.partita.cache.CacheManager caches = StandaloneRuntime.newCacheManager();
        GpuBackend b = new GpuBackend(caches);
        GraphRuntime rt = StandaloneRuntime.of(caches, b);
        io.partita.cache.ConstantTensorCache gpu = caches.constantTensorCache(
                new io.partita.cache.Device(io.partita.cache.DeviceKind.GPU, 0));
        Graph g = rt.createGraph(EngineKind.GPU);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 5, 7), constant(1, 7, 3)).output(f32(2, 5, 3)).build());
        g.finalizeGraph();
        Engine e = AgainstReference.GPU0;
        long liveBefore = io.partita.gpu.internal.cl.DeviceConstant.live();
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, e, arena, 3);
            Transfers.Snapshot t0 = b.transfers(0);
            for (int i = 0; i < 3; i++) {
                cg.execute(new Stream(e), in);
            }
            Transfers.Snapshot d = b.transfers(0).since(t0);
            assertEquals(1 + 3, d.toDevice(), "the weights once, the variable input per call: " + d);
            assertEquals(1, gpu.stats().entries(), gpu.stats().toString());
            assertEquals(4L * 7 * 3, gpu.size());
            assertEquals(liveBefore + 1, io.partita.gpu.internal.cl.DeviceConstant.live());

            // a capacity of 0 disables the cache: the weights go over on every call
            caches.setConstantTensorCacheCapacity(io.partita.cache.DeviceKind.GPU, 0);
            assertEquals(liveBefore, io.partita.gpu.internal.cl.DeviceConstant.live(), "evicted: cl_mem released");
            Transfers.Snapshot t1 = b.transfers(0);
            cg.execute(new Stream(e), in);
            cg.execute(new Stream(e), in);
            assertEquals(4, b.transfers(0).since(t1).toDevice());
            assertEquals(liveBefore, io.partita.gpu.internal.cl.DeviceConstant.live(), "private copies freed with their lease");
        } finally {
            b.close();
        }
    }
}
