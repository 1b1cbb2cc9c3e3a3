package io.partita.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.tinybundles.TinyBundles.bundle;

import java.io.InputStream;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;

import org.osgi.service.cm.ConfigurationAdmin;

import io.partita.graph.BackendInfo;
import io.partita.graph.BackendUnavailableException;
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
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.it.backend.GatedBackend;
import io.partita.it.backend.GatedBackendActivator;

/** The distribution's bundles in a real Felix container: runtime service, hot swap, FileInstall. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ContainerIT {
    private static final Path CONF = ContainerSupport.tempConf();

    @Inject
    private BundleContext context;

    @Inject
    private GraphRuntime runtime;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Inject
    private io.partita.cache.CacheManager caches;

    @Configuration
    public Option[] config() throws Exception {
        // Built here, in the test driver: the container only sees the finished jar.
        Path gated = Files.createTempFile("gated-backend", ".jar");
        try (InputStream jar = bundle()
                .addClass(GatedBackend.class)
                .addClass(GatedBackendActivator.class)
                .symbolicName("io.partita.test.gated")
                .activator(GatedBackendActivator.class)
                .setHeader(Constants.IMPORT_PACKAGE, "io.partita.graph,io.partita.spi,org.osgi.framework")
                .build()) {
            Files.copy(jar, gated, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return options(org.ops4j.pax.exam.CoreOptions.composite(ContainerSupport.distribution(CONF)),
                org.ops4j.pax.exam.CoreOptions.systemProperty("partita.it.gated").value(gated.toUri().toString()));
    }

    @Test
    public void everyBundleIsActive() {
        for (Bundle b : context.getBundles()) {
            boolean fragment = b.getHeaders().get(Constants.FRAGMENT_HOST) != null;
            if (!fragment && b.getSymbolicName().startsWith("io.partita")) {
                assertEquals(b.getSymbolicName() + " is active", Bundle.ACTIVE, b.getState());
            }
        }
        assertTrue(runtime.backends().stream().anyMatch(b -> b.id().equals("reference")));
    }

    /** The DNNL-style backend bundle fuses the two activations; the debug policy leaves one op per partition. */
    @Test
    public void aGraphRunsThroughTheRuntimeService() {
        Graph g = reluGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals(1, parts.size());
        assertEquals("dnnl", parts.get(0).backendId());
        float[] out = run(parts.get(0).compile(Engine.cpu()), new float[] {-1, 2, -3, 4});
        assertEquals(1 / (1 + Math.exp(-2)), out[1], 1e-6);
        assertEquals(0.5f, out[0], 1e-6);
        assertEquals(2, g.partitions(PartitionPolicy.DEBUG).size());
    }

    private Graph reluGraph() {
        Graph g = runtime.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.ReLU).input(lt(0)).output(lt(1)).build());
        g.add(Op.builder(1, OpKind.Sigmoid).input(lt(1)).output(lt(2)).build());
        return g.finalizeGraph();
    }

    private static LogicalTensor lt(long id) {
        return LogicalTensor.of(id, DataType.F32, 4);
    }

    private static float[] run(CompiledPartition cp, float[] in) {
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofShared()) {
            Tensor a = Tensor.allocate(cp.inputs().get(0), e, arena);
            a.copyFrom(in);
            Tensor b = Tensor.allocate(cp.outputs().get(0), e, arena);
            cp.execute(new Stream(e), List.of(a), List.of(b));
            return b.toFloatArray();
        }
    }

    /**
     * Installs a backend bundle while the container runs, starts an execution on it, stops the
     * bundle while that execution is in flight: the execution finishes, the next partitioning no
     * longer sees the backend, and the old compiled partition reports BackendUnavailableException.
     */
    @Test
    public void hotSwapOfABackendBundle() throws Exception {
        Bundle gated = context.installBundle(System.getProperty("partita.it.gated"));
        gated.start();
        try {
            assertEquals("gated", runtime.backends().get(0).id());
            Partition relu = reluGraph().partitions(PartitionPolicy.FUSION).get(0);
            assertEquals("gated", relu.backendId());
            CompiledPartition cp = relu.compile(Engine.cpu());

            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ServiceRegistration<?> r1 = context.registerService(CountDownLatch.class, entered, props("entered"));
            ServiceRegistration<?> r2 = context.registerService(CountDownLatch.class, release, props("release"));
            // Own threads: the common pool may have a single worker on a 2-core machine.
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
            CompletableFuture<float[]> inFlight = CompletableFuture.supplyAsync(() -> run(cp, new float[] {-5, 5, -1, 1}),
                    threads);
            assertTrue("the execution started", entered.await(10, TimeUnit.SECONDS));

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> {
                try {
                    gated.stop();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, threads);
            stopping.get(10, TimeUnit.SECONDS); // stopping does not wait for the execution
            assertTrue(runtime.backends().stream().noneMatch(b -> b.id().equals("gated")));
            release.countDown();
            float[] result = inFlight.get(10, TimeUnit.SECONDS);
            assertEquals(5f, result[1], 0);
            assertEquals(0f, result[0], 0);
            r1.unregister();
            r2.unregister();
            threads.shutdown();

            assertEquals("dnnl", reluGraph().partitions(PartitionPolicy.FUSION).get(0).backendId());
            try {
                run(cp, new float[] {1, 2, 3, 4});
                fail("a partition of a stopped backend must not run");
            } catch (BackendUnavailableException expected) {
                assertEquals("gated", expected.backendId());
            }
        } finally {
            gated.uninstall();
        }
    }

    private static Dictionary<String, Object> props(String name) {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("partita.test.latch", name);
        return p;
    }

    @Test
    public void fileInstallTurnsCfgFilesIntoConfigurations() throws Exception {
        // The folder FileInstall watches (this class is loaded anew inside the container).
        Path cfg = Path.of(context.getProperty("felix.fileinstall.dir")).resolve("io.partita.it.example.cfg");
        ConfigAdminIT.write(cfg, "answer = 42\n");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Object value = null;
        while (System.nanoTime() < deadline) {
            org.osgi.service.cm.Configuration[] found = configAdmin.listConfigurations("(service.pid=io.partita.it.example)");
            if (found != null && found.length == 1) {
                value = found[0].getProperties().get("answer");
                if (value != null) {
                    break;
                }
            }
            Thread.sleep(100);
        }
        assertNotNull("FileInstall delivered the configuration", value);
        assertEquals("42", value.toString());
    }

    /** Changing io.partita.cache through a .cfg file in the watched folder changes the caches live. */
    @Test
    public void cacheSettingsFollowTheConfigFile() throws Exception {
        io.partita.cache.ConstantTensorCache gpu = caches.constantTensorCache(
                new io.partita.cache.Device(io.partita.cache.DeviceKind.GPU, 3));
        Path cfg = Path.of(context.getProperty("felix.fileinstall.dir")).resolve("io.partita.cache.cfg");
        ConfigAdminIT.write(cfg, "constant.tensor.cache.capacity = gpu:64\nconstant.tensor.cache.policy = gpu:lru\n"
                + "primitive.cache.capacity = 77\n");
        await("gpu capacity 64 MB", () -> gpu.capacity() == 64L << 20);
        await("gpu policy lru", () -> gpu.policy() == io.partita.cache.CachePolicy.LRU);
        await("primitive cache capacity 77",
                () -> caches.kernelCache(io.partita.cache.CacheManager.PRIMITIVES).capacity() == 77);
        ConfigAdminIT.write(cfg, "constant.tensor.cache.capacity = gpu:32\nconstant.tensor.cache.policy = gpu:cost\n");
        await("gpu capacity 32 MB, policy cost",
                () -> gpu.capacity() == 32L << 20 && gpu.policy() == io.partita.cache.CachePolicy.COST);
        // a malformed value is refused, remembered, and the previous setting stays
        ConfigAdminIT.write(cfg, "constant.tensor.cache.capacity = gpu:lots\n");
        await("gpu:lots refused", () -> caches.lastSettingError().map(e -> e.contains("gpu:lots")).orElse(false));
        assertEquals(32L << 20, gpu.capacity());
        Files.delete(cfg);
    }

    /**
     * Stopping the cache bundle releases every cached buffer, but a buffer in use stays valid until
     * its lease closes; the bundle then starts again with empty caches.
     */
    @Test
    public void stoppingTheCacheBundleReleasesBuffersOnceLeasesEnd() throws Exception {
        java.util.concurrent.atomic.AtomicInteger frees = new java.util.concurrent.atomic.AtomicInteger();
        io.partita.cache.ConstantTensorCache cpu = caches.constantTensorCache(io.partita.cache.Device.CPU);
        io.partita.cache.Lease lease = cpu.getOrAdd(new io.partita.cache.CacheKey("it", "w"), 64, () -> {
            io.partita.cache.ConstantBuffer b = io.partita.cache.ConstantBuffer.allocateHost(64);
            return new io.partita.cache.ConstantBuffer() {
                @Override
                public long byteSize() {
                    return b.byteSize();
                }

                @Override
                public java.lang.foreign.MemorySegment segment() {
                    return b.segment();
                }

                @Override
                public void free() {
                    frees.incrementAndGet();
                    b.free();
                }
            };
        });
        lease.segment().set(java.lang.foreign.ValueLayout.JAVA_INT, 0, 42);
        Bundle cacheBundle = java.util.Arrays.stream(context.getBundles())
                .filter(b -> "io.partita.cache".equals(b.getSymbolicName())).findFirst().orElseThrow();
        cacheBundle.stop();
        try {
            assertEquals(0, cpu.size());
            assertEquals("still readable while leased", 42, lease.segment().get(java.lang.foreign.ValueLayout.JAVA_INT, 0));
            assertEquals(0, frees.get());
            lease.close();
            assertEquals("freed when the lease closed", 1, frees.get());
        } finally {
            cacheBundle.start();
        }
        await("runtime service back", () -> context.getServiceReference(GraphRuntime.class) != null);
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            assertTrue(what + " within 15 s", System.nanoTime() < deadline);
            Thread.sleep(100);
        }
    }

    /**
     * JOCL lives in its own bundle so that its native library stays loaded in one class loader:
     * updating the gpu bundle brings up a new gpu backend that runs kernels again, where a second
     * load of libJOCL from the new revision would fail with UnsatisfiedLinkError.
     */
    @Test
    public void theGpuBundleUpdatesWhileJoclKeepsItsNativeLibrary() throws Exception {
        Bundle gpu = installed("io.partita.gpu");
        Bundle jocl = installed("org.jocl");
        assertEquals(Bundle.ACTIVE, jocl.getState());
        assertEquals(List.of(0f, 2f, 0f, 4f), boxed(reluOnGpu()));
        gpu.update();
        await("the updated gpu backend registered", () -> gpu.getState() == Bundle.ACTIVE && runtime.backends().stream()
                .anyMatch(b -> b.id().equals("gpu") && b.state() == BackendInfo.State.ACTIVE));
        assertEquals(List.of(0f, 2f, 0f, 4f), boxed(reluOnGpu()));
        assertEquals(Bundle.ACTIVE, jocl.getState());
    }

    private Bundle installed(String symbolicName) {
        return java.util.Arrays.stream(context.getBundles()).filter(b -> symbolicName.equals(b.getSymbolicName()))
                .findFirst().orElseThrow(() -> new AssertionError(symbolicName + " is not installed"));
    }

    private float[] reluOnGpu() {
        Graph g = runtime.createGraph(EngineKind.GPU);
        g.add(Op.builder(0, OpKind.ReLU).input(lt(0)).output(lt(1)).build());
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertEquals("gpu", parts.get(0).backendId());
        Engine e = new Engine(EngineKind.GPU, 0);
        CompiledPartition cp = parts.get(0).compile(e);
        try (Arena arena = Arena.ofShared()) {
            Tensor a = Tensor.allocate(cp.inputs().get(0), e, arena);
            a.copyFrom(new float[] {-1, 2, -3, 4});
            Tensor b = Tensor.allocate(cp.outputs().get(0), e, arena);
            cp.execute(new Stream(e), List.of(a), List.of(b));
            return b.toFloatArray();
        }
    }

    private static List<Float> boxed(float[] v) {
        List<Float> r = new java.util.ArrayList<>();
        for (float f : v) {
            r.add(f);
        }
        return r;
    }

    @Test
    public void backendInfoListsEngineKinds() {
        BackendInfo ref = runtime.backends().get(runtime.backends().size() - 1);
        assertEquals(Map.of("id", "reference", "cpu", true),
                Map.of("id", ref.id(), "cpu", ref.engineKinds().contains(EngineKind.CPU)));
    }
}
