package io.partita.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.cache.CacheKey;
import io.partita.cache.CacheManager;
import io.partita.cache.CachePolicy;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.DeviceKind;
import io.partita.cache.InvalidCacheSettingException;
import io.partita.cache.KernelCache;

/** Settings from the environment and the API: kinds, devices, latest wins, refusals keep the previous value. */
class CacheManagerImplTest {
    private static final Device GPU0 = new Device(DeviceKind.GPU, 0);
    private static final Device GPU1 = new Device(DeviceKind.GPU, 1);

    @Test
    void theEnvironmentConfiguresCachesPerKindAndDevice() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of(CacheManager.CONSTANT_CAPACITY_ENV, "cpu:10240;gpu:2048;gpu.1:512:lru",
                CacheManager.PRIMITIVE_CAPACITY_ENV, "64", CacheManager.COMPILED_PARTITION_CAPACITY_ENV, "8"));
        assertEquals(10240L << 20, m.constantTensorCache(Device.CPU).capacity());
        assertEquals(2048L << 20, m.constantTensorCache(GPU0).capacity());
        assertEquals(512L << 20, m.constantTensorCache(GPU1).capacity());
        assertEquals(CachePolicy.LRU, m.constantTensorCache(GPU1).policy());
        assertEquals(CachePolicy.NO_EVICT, m.constantTensorCache(GPU0).policy());
        assertEquals(64, m.kernelCache(CacheManager.PRIMITIVES).capacity());
        assertEquals(8, m.kernelCache(CacheManager.COMPILED_PARTITIONS).capacity());
        assertEquals(KernelCache.DEFAULT_CAPACITY, m.kernelCache("programs").capacity());
        assertSame(m.constantTensorCache(Device.CPU), m.constantTensorCache(Device.CPU));
        assertTrue(m.lastSettingError().isEmpty());
    }

    @Test
    void aMalformedEnvironmentIsIgnoredAndRemembered() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of(CacheManager.CONSTANT_CAPACITY_ENV, "cpu:lots",
                CacheManager.PRIMITIVE_CAPACITY_ENV, "-3"));
        assertEquals(ConstantTensorCache.UNLIMITED, m.constantTensorCache(Device.CPU).capacity());
        assertEquals(KernelCache.DEFAULT_CAPACITY, m.kernelCache(CacheManager.PRIMITIVES).capacity());
        assertTrue(m.lastSettingError().orElseThrow().contains("PARTITA_PRIMITIVE_CACHE_CAPACITY='-3'"));
    }

    @Test
    void theLatestSettingWinsAndARefusedOneChangesNothing() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of(CacheManager.CONSTANT_CAPACITY_ENV, "cpu:100"));
        ConstantTensorCache cpu = m.constantTensorCache(Device.CPU);
        m.applyConstantTensorCacheSettings("cpu:200:lru");
        assertEquals(200L << 20, cpu.capacity());
        assertEquals(CachePolicy.LRU, cpu.policy());
        InvalidCacheSettingException e = assertThrows(InvalidCacheSettingException.class,
                () -> m.applyConstantTensorCacheSettings("cpu:300;gpu:x"));
        assertTrue(e.getMessage().contains("'x' is not a number of megabytes"), e.getMessage());
        assertEquals(200L << 20, cpu.capacity(), "nothing of a refused value is applied");
        assertTrue(m.lastSettingError().orElseThrow().contains("cpu:300;gpu:x"));
        m.setConstantTensorCacheCapacity(DeviceKind.CPU, 50);
        assertEquals(50L << 20, cpu.capacity());
        assertThrows(InvalidCacheSettingException.class, () -> m.setConstantTensorCacheCapacity(DeviceKind.CPU, -1));
        assertEquals(50L << 20, cpu.capacity());
        m.applyConstantTensorCachePolicies("cpu:cost");
        assertEquals(CachePolicy.COST, cpu.policy());
        assertThrows(InvalidCacheSettingException.class, () -> m.applyConstantTensorCachePolicies("cpu:mru"));
        assertEquals(CachePolicy.COST, cpu.policy());
    }

    @Test
    void aDeviceSettingOverridesItsKind() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of());
        ConstantTensorCache g0 = m.constantTensorCache(GPU0);
        ConstantTensorCache g1 = m.constantTensorCache(GPU1);
        m.setConstantTensorCacheCapacity(GPU1, 10);
        m.setConstantTensorCacheCapacity(DeviceKind.GPU, 30);
        assertEquals(30L << 20, g0.capacity());
        assertEquals(10L << 20, g1.capacity());
        assertEquals(30L << 20, m.constantTensorCache(new Device(DeviceKind.GPU, 2)).capacity(),
                "a device created later gets its kind's setting");
        m.setConstantTensorCachePolicy(GPU0, CachePolicy.LRU);
        assertEquals(CachePolicy.LRU, g0.policy());
        assertEquals(CachePolicy.NO_EVICT, g1.policy());
    }

    @Test
    void theOldSwitchMapsToDefaultOrZeroForAllKinds() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of());
        ConstantTensorCache cpu = m.constantTensorCache(Device.CPU);
        m.setConstantTensorCacheCapacity(GPU1, 10);
        m.setConstantTensorCacheEnabled(false);
        assertEquals(0, cpu.capacity());
        assertEquals(0, m.constantTensorCache(GPU1).capacity());
        m.setConstantTensorCacheEnabled(true);
        assertEquals(ConstantTensorCache.UNLIMITED, cpu.capacity());
    }

    @Test
    void removeBackendAndReleaseAllEmptyEveryDevice() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of());
        for (Device d : new Device[] {Device.CPU, GPU1}) {
            m.constantTensorCache(d).getOrAdd(new CacheKey("dnnl", 1), 64, new TestBuffers.CountingProducer(64)).close();
            m.constantTensorCache(d).getOrAdd(new CacheKey("acl", 1), 64, new TestBuffers.CountingProducer(64)).close();
        }
        m.removeBackend("dnnl");
        assertEquals(1, m.constantTensorCache(Device.CPU).stats().entries());
        assertEquals(1, m.constantTensorCache(GPU1).stats().entries());
        m.kernelCache("k").getOrCreate("x", k -> "y");
        m.releaseAll();
        assertEquals(0, m.constantTensorCache(GPU1).size());
        assertEquals(0, m.kernelCache("k").size());
        assertEquals(2, m.constantTensorCacheStats().size());
    }
}
