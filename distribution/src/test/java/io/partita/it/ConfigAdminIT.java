package io.partita.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import javax.inject.Inject;

import org.junit.After;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;

import io.partita.cache.CacheKey;
import io.partita.cache.CacheManager;
import io.partita.cache.CachePolicy;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.DeviceKind;
import io.partita.cache.KernelCache;
import io.partita.graph.BackendInfo;
import io.partita.graph.GraphRuntime;

/**
 * Config Admin as an operator meets it: {@code .cfg} files in the folder FileInstall watches, whose
 * values are all text; edits of one line; a refused value; a deleted file.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ConfigAdminIT {
    private static final Path CONF = ContainerSupport.tempConf();

    @Inject
    private BundleContext context;

    @Inject
    private GraphRuntime runtime;

    @Inject
    private CacheManager caches;

    @Configuration
    public Option[] config() {
        return options(org.ops4j.pax.exam.CoreOptions.composite(ContainerSupport.distribution(CONF)));
    }

    private Path cfg(String pid) {
        return Path.of(context.getProperty("felix.fileinstall.dir")).resolve(pid + ".cfg");
    }

    /**
     * Writes a file whole (a temporary file renamed into place): FileInstall, polling, would
     * otherwise see the truncated file and apply it as a configuration without properties.
     */
    static void write(Path file, String content) throws java.io.IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    @After
    public void removeFiles() throws Exception {
        Files.deleteIfExists(cfg("io.partita.cache"));
        Files.deleteIfExists(cfg("io.partita.backend.dnnl"));
        await("defaults back", () -> caches.kernelCache(CacheManager.PRIMITIVES).capacity() == KernelCache.DEFAULT_CAPACITY
                && dnnl().rank() == 100);
    }

    private BackendInfo dnnl() {
        return runtime.backends().stream().filter(b -> b.id().equals("dnnl")).findFirst().orElseThrow();
    }

    /** {@code service.ranking = 7} and {@code primitive.cache.capacity = 77}: text in the file, integers in effect. */
    @Test
    public void untypedIntegersApply() throws Exception {
        write(cfg("io.partita.backend.dnnl"), "service.ranking = 7\nthreads = 2\n");
        write(cfg("io.partita.cache"), "primitive.cache.capacity = 77\n");
        await("dnnl at rank 7", () -> dnnl().rank() == 7);
        await("primitive cache capacity 77", () -> caches.kernelCache(CacheManager.PRIMITIVES).capacity() == 77);
        assertTrue(caches.lastSettingError().map(e -> !e.contains("primitive.cache.capacity")).orElse(true));
    }

    /** A malformed value is refused naming PID, key, value and the expected form; the previous value stays. */
    @Test
    public void aRefusedValueKeepsTheOldOne() throws Exception {
        write(cfg("io.partita.cache"), "primitive.cache.capacity = 50\n");
        await("capacity 50", () -> caches.kernelCache(CacheManager.PRIMITIVES).capacity() == 50);
        write(cfg("io.partita.cache"), "primitive.cache.capacity = fifty\n");
        await("fifty refused", () -> caches.lastSettingError().map(e -> e.contains("fifty")).orElse(false));
        String error = caches.lastSettingError().orElseThrow();
        assertTrue(error, error.contains("io.partita.cache primitive.cache.capacity = 'fifty'")
                && error.contains("expected an integer from 0 to"));
        assertEquals(50, caches.kernelCache(CacheManager.PRIMITIVES).capacity());

        write(cfg("io.partita.backend.dnnl"), "service.ranking = 300\n");
        await("dnnl at rank 300", () -> dnnl().rank() == 300);
        write(cfg("io.partita.backend.dnnl"), "service.ranking = first\n");
        Thread.sleep(1500); // FileInstall polls every 200 ms: the refusal has been seen by now
        assertEquals("a refused ranking keeps the current rank", 300, dnnl().rank());
        assertEquals("dnnl", runtime.backends().get(0).id());
    }

    /**
     * Adding a line to io.partita.cache.cfg applies that line alone: the capacity and policy set
     * since through the API stay, and the cache keeps its entries.
     */
    @Test
    public void editingOnePropertyAppliesOnlyThatOne() throws Exception {
        ConstantTensorCache gpu = caches.constantTensorCache(new Device(DeviceKind.GPU, 5));
        write(cfg("io.partita.cache"), "constant.tensor.cache.capacity = gpu.5:64\n"
                + "constant.tensor.cache.policy = gpu.5:lru\n");
        await("gpu.5 at 64 MB, lru", () -> gpu.capacity() == 64L << 20 && gpu.policy() == CachePolicy.LRU);
        caches.setConstantTensorCacheCapacity(new Device(DeviceKind.GPU, 5), 16);
        caches.setConstantTensorCachePolicy(new Device(DeviceKind.GPU, 5), CachePolicy.COST);
        gpu.getOrAdd(new CacheKey("it", "w"), 4096, () -> ConstantBuffer.allocateHost(4096)).close();
        write(cfg("io.partita.cache"), "constant.tensor.cache.capacity = gpu.5:64\n"
                + "constant.tensor.cache.policy = gpu.5:lru\nprimitive.cache.capacity = 99\n");
        await("primitive cache capacity 99", () -> caches.kernelCache(CacheManager.PRIMITIVES).capacity() == 99);
        assertEquals(16L << 20, gpu.capacity());
        assertEquals(CachePolicy.COST, gpu.policy());
        assertEquals("not flushed", 4096, gpu.sizeBytes("it"));
    }

    /** Deleting a configuration file restores the defaults of every property it set. */
    @Test
    public void deletingTheConfigurationRestoresDefaults() throws Exception {
        ConstantTensorCache gpu = caches.constantTensorCache(new Device(DeviceKind.GPU, 6));
        write(cfg("io.partita.cache"), "constant.tensor.cache.capacity = gpu.6:8:cost\n"
                + "compiled.partition.cache.capacity = 12\nprimitive.cache.capacity = 13\n");
        write(cfg("io.partita.backend.dnnl"), "service.ranking = 3\n");
        await("applied", () -> gpu.capacity() == 8L << 20 && gpu.policy() == CachePolicy.COST
                && caches.kernelCache(CacheManager.COMPILED_PARTITIONS).capacity() == 12 && dnnl().rank() == 3);
        Files.delete(cfg("io.partita.cache"));
        Files.delete(cfg("io.partita.backend.dnnl"));
        await("defaults", () -> gpu.capacity() == ConstantTensorCache.UNLIMITED && gpu.policy() == CachePolicy.NO_EVICT
                && caches.kernelCache(CacheManager.COMPILED_PARTITIONS).capacity() == KernelCache.DEFAULT_CAPACITY
                && caches.kernelCache(CacheManager.PRIMITIVES).capacity() == KernelCache.DEFAULT_CAPACITY
                && dnnl().rank() == 100);
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            assertTrue(what + " within 15 s", System.nanoTime() < deadline);
            Thread.sleep(100);
        }
    }
}
