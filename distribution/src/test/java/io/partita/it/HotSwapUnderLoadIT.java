package io.partita.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;

import io.partita.cache.CacheManager;
import io.partita.cache.Device;
import io.partita.graph.BackendUnavailableException;
import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * The DNNL-style bundle updated, re-ranked, stopped and started while eight threads execute
 * compiled graphs on it: no execution fails or computes a wrong value, and the constants it cached
 * are gone once it is.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HotSwapUnderLoadIT {
    private static final Path CONF = ContainerSupport.tempConf();
    private static final int M = 8;
    private static final int K = 64;
    private static final int N = 32;

    @Inject
    private BundleContext context;

    @Inject
    private GraphRuntime runtime;

    @Inject
    private CacheManager caches;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Configuration
    public Option[] config() {
        return options(org.ops4j.pax.exam.CoreOptions.composite(ContainerSupport.distribution(CONF)));
    }

    /** ReLU(x · w) with constant weights, which the DNNL-style backend claims as one partition and caches. */
    private Graph graph() {
        Graph g = runtime.createGraph(EngineKind.CPU);
        LogicalTensor x = LogicalTensor.of(0, DataType.F32, M, K);
        LogicalTensor w = LogicalTensor.of(1, DataType.F32, K, N).withProperty(PropertyType.CONSTANT);
        LogicalTensor y = LogicalTensor.of(2, DataType.F32, M, N);
        LogicalTensor r = LogicalTensor.of(3, DataType.F32, M, N);
        g.add(Op.builder(0, OpKind.MatMul).inputs(x, w).output(y).build());
        g.add(Op.builder(1, OpKind.ReLU).input(y).output(r).build());
        return g.finalizeGraph();
    }

    // Small integers: every backend computes the sums exactly in f32.
    private static float[] xs() {
        float[] x = new float[M * K];
        for (int i = 0; i < x.length; i++) {
            x[i] = (i * 7 % 5) - 2;
        }
        return x;
    }

    private static float[] ws() {
        float[] w = new float[K * N];
        for (int i = 0; i < w.length; i++) {
            w[i] = (i * 11 % 3) - 1;
        }
        return w;
    }

    private static float[] expected() {
        float[] x = xs();
        float[] w = ws();
        float[] r = new float[M * N];
        for (int i = 0; i < M; i++) {
            for (int j = 0; j < N; j++) {
                float s = 0;
                for (int k = 0; k < K; k++) {
                    s += x[i * K + k] * w[k * N + j];
                }
                r[i * N + j] = Math.max(s, 0);
            }
        }
        return r;
    }

    private static LogicalTensor input(Graph g, long id) {
        return g.inputs().stream().filter(t -> t.id() == id).findFirst().orElseThrow();
    }

    private Bundle dnnlBundle() {
        return Arrays.stream(context.getBundles()).filter(b -> "io.partita.backend.dnnl".equals(b.getSymbolicName()))
                .findFirst().orElseThrow();
    }

    private long dnnlBytes() {
        return caches.constantTensorCache(Device.CPU).sizeBytes("dnnl");
    }

    @Test
    public void eightThreadsRunThroughTwentyUpdatesARankChangeAndAStopStart() throws Exception {
        float[] expected = expected();
        Engine cpu = Engine.cpu();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong executions = new AtomicLong();
        AtomicLong onDnnl = new AtomicLong();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread th = new Thread(() -> {
                try (Arena arena = Arena.ofShared()) {
                    Graph g = graph();
                    Tensor x = Tensor.allocate(input(g, 0), cpu, arena);
                    x.copyFrom(xs());
                    Tensor w = Tensor.allocate(input(g, 1), cpu, arena);
                    w.copyFrom(ws());
                    try (CompiledGraph cg = runtime.compile(g, PartitionPolicy.FUSION, cpu)) {
                        Stream stream = new Stream(cpu);
                        while (!stop.get()) {
                            float[] got = cg.execute(stream, Map.of(0L, x, 1L, w)).get(3L).toFloatArray();
                            if (!Arrays.equals(expected, got)) {
                                failures.add("wrong result " + Arrays.toString(Arrays.copyOf(got, 8)));
                            }
                            executions.incrementAndGet();
                            if (cg.steps().get(0).partition().backendId().equals("dnnl")) {
                                onDnnl.incrementAndGet();
                            }
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e.toString());
                }
            }, "hot-swap-load-" + t);
            workers.add(th);
            th.start();
        }
        Bundle dnnl = dnnlBundle();
        try {
            ConfigAdminIT.await("dnnl caches the weights", () -> dnnlBytes() > 0);
            for (int i = 0; i < 20; i++) {
                if (i == 10) {
                    Hashtable<String, Object> p = new Hashtable<>();
                    p.put("service.ranking", "250"); // as a .cfg file gives it: text
                    configAdmin.getConfiguration("io.partita.backend.dnnl", null).update(p);
                    ConfigAdminIT.await("dnnl at rank 250", () -> runtime.backends().get(0).rank() == 250);
                }
                dnnl.update();
                ConfigAdminIT.await("dnnl back after update " + i,
                        () -> runtime.backends().stream().anyMatch(b -> b.id().equals("dnnl")));
                Thread.sleep(100);
            }
            dnnl.stop();
            Thread.sleep(300);
            dnnl.start();
            ConfigAdminIT.await("dnnl back after restart",
                    () -> runtime.backends().stream().anyMatch(b -> b.id().equals("dnnl")));
            Thread.sleep(300);
        } finally {
            stop.set(true);
            for (Thread th : workers) {
                th.join(30_000);
            }
        }
        assertTrue("failed executions: " + failures, failures.isEmpty());
        assertTrue("executions ran: " + executions.get(), executions.get() > 100);
        assertTrue("executions ran on dnnl: " + onDnnl.get(), onDnnl.get() > 0);

        dnnl.stop();
        try {
            ConfigAdminIT.await("constant bytes of the stopped dnnl backend back to 0", () -> dnnlBytes() == 0);
        } finally {
            dnnl.start();
            configAdmin.getConfiguration("io.partita.backend.dnnl", null).delete();
        }
    }

    /** A partition compiled before a live rank change stops running once its backend is stopped. */
    @Test
    public void aPartitionCompiledBeforeARankChangeIsUnavailableAfterTheBackendStops() throws Exception {
        Bundle dnnl = dnnlBundle();
        Graph g = graph();
        Partition p = g.partitions(PartitionPolicy.FUSION).get(0);
        assertEquals("dnnl", p.backendId());
        CompiledPartition cp = p.compile(Engine.cpu());
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("service.ranking", "7");
        configAdmin.getConfiguration("io.partita.backend.dnnl", null).update(props);
        ConfigAdminIT.await("dnnl at rank 7", () -> runtime.backends().stream()
                .anyMatch(b -> b.id().equals("dnnl") && b.rank() == 7));
        dnnl.stop();
        try (Arena arena = Arena.ofConfined()) {
            Tensor x = Tensor.allocate(cp.inputs().get(0), Engine.cpu(), arena);
            Tensor w = Tensor.allocate(cp.inputs().get(1), Engine.cpu(), arena);
            Tensor r = Tensor.allocate(cp.outputs().get(0), Engine.cpu(), arena);
            cp.execute(new Stream(Engine.cpu()), List.of(x, w), List.of(r));
            fail("a partition of a stopped backend ran");
        } catch (BackendUnavailableException expected) {
            assertEquals("dnnl", expected.backendId());
        } finally {
            dnnl.start();
            configAdmin.getConfiguration("io.partita.backend.dnnl", null).delete();
        }
        ConfigAdminIT.await("dnnl back at rank 100", () -> runtime.backends().stream()
                .anyMatch(b -> b.id().equals("dnnl") && b.rank() == 100));
    }
}
