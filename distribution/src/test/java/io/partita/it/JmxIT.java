package io.partita.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.util.List;

import javax.inject.Inject;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import io.partita.cache.CacheManager;
import io.partita.cache.CachePolicy;
import io.partita.cache.Device;
import io.partita.cache.DeviceKind;
import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/** The MBeans the cache and runtime components register, read and set through the platform MBean server. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class JmxIT {
    @Inject
    private GraphRuntime runtime;

    @Inject
    private CacheManager caches;

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Configuration
    public Option[] config() {
        return options(org.ops4j.pax.exam.CoreOptions.composite(ContainerSupport.distribution(ContainerSupport.tempConf())));
    }

    @Test
    public void eachConstantCacheHasAnMBeanWithStatsAndSettableCapacityAndPolicy() throws Exception {
        caches.constantTensorCache(new Device(DeviceKind.GPU, 7)); // created now: its MBean appears with it
        ObjectName gpu7 = new ObjectName("io.partita:type=ConstantTensorCache,device=gpu.7");
        assertEquals("gpu.7", server.getAttribute(gpu7, "Device"));
        assertEquals(-1L, server.getAttribute(gpu7, "CapacityMegabytes"));
        server.setAttribute(gpu7, new Attribute("CapacityMegabytes", 48L));
        server.setAttribute(gpu7, new Attribute("Policy", "lru"));
        assertEquals(48L << 20, caches.constantTensorCache(new Device(DeviceKind.GPU, 7)).capacity());
        assertEquals(CachePolicy.LRU, caches.constantTensorCache(new Device(DeviceKind.GPU, 7)).policy());
        assertEquals("lru", server.getAttribute(gpu7, "Policy"));
        try {
            server.setAttribute(gpu7, new Attribute("Policy", "fifo"));
            fail("fifo is no policy");
        } catch (javax.management.RuntimeMBeanException e) {
            assertTrue(e.getCause().getMessage(), e.getCause().getMessage().contains("expected no_evict, lru or cost"));
        }
        assertEquals(0L, server.getAttribute(gpu7, "SizeBytes"));
        assertEquals(0.0, (Double) server.getAttribute(gpu7, "HitRate"), 0);

        ObjectName primitives = new ObjectName("io.partita:type=KernelCache,name=\"primitives\"");
        server.setAttribute(primitives, new Attribute("Capacity", 321));
        assertEquals(321, caches.kernelCache(CacheManager.PRIMITIVES).capacity());
        assertEquals(321, server.getAttribute(primitives, "Capacity"));
    }

    @Test
    public void eachBackendHasAnMBeanWithRankCompilationsAndExecutions() throws Exception {
        ObjectName dnnl = new ObjectName("io.partita:type=Backend,id=\"dnnl\"");
        assertEquals(100, server.getAttribute(dnnl, "Rank"));
        assertEquals("active", server.getAttribute(dnnl, "State"));
        long compiled = (Long) server.getAttribute(dnnl, "CompiledPartitions");
        long executed = (Long) server.getAttribute(dnnl, "Executions");

        Graph g = runtime.createGraph(EngineKind.CPU);
        LogicalTensor a = LogicalTensor.of(0, DataType.F32, 3, 5);
        LogicalTensor b = LogicalTensor.of(1, DataType.F32, 3, 5);
        g.add(Op.builder(0, OpKind.Tanh).input(a).output(b).build());
        g.finalizeGraph();
        var p = g.partitions(PartitionPolicy.FUSION).get(0);
        assertEquals("dnnl", p.backendId());
        CompiledPartition cp = p.compile(Engine.cpu());
        try (Arena arena = Arena.ofConfined()) {
            Tensor in = Tensor.allocate(cp.inputs().get(0), Engine.cpu(), arena);
            Tensor out = Tensor.allocate(cp.outputs().get(0), Engine.cpu(), arena);
            for (int i = 0; i < 3; i++) {
                cp.execute(new Stream(Engine.cpu()), List.of(in), List.of(out));
            }
        }
        assertEquals(compiled + 1, server.getAttribute(dnnl, "CompiledPartitions"));
        assertEquals(executed + 3, server.getAttribute(dnnl, "Executions"));
        assertEquals(0, server.getAttribute(dnnl, "Running"));
        String[] cached = (String[]) server.getAttribute(dnnl, "CachedPartitions");
        assertTrue(java.util.Arrays.toString(cached), java.util.Arrays.stream(cached)
                .anyMatch(l -> l.contains("Tanh#0 on cpu, f32[3,5] -> f32[3,5]")));
        // the Tanh claim is counted under its kind (other tests of this container may have added more)
        String[] kinds = (String[]) server.getAttribute(dnnl, "ClaimedOpKinds");
        assertTrue(java.util.Arrays.toString(kinds),
                java.util.Arrays.stream(kinds).anyMatch(k -> k.matches("Tanh=[1-9][0-9]*")));
        assertTrue(server.isRegistered(new ObjectName("io.partita:type=Backend,id=\"reference\"")));
    }
}
