package io.partita.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.cache.CacheKey;
import io.partita.cache.CacheManager;
import io.partita.cache.CachePolicy;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.DeviceKind;
import io.partita.cache.KernelCache;

/** PID io.partita.cache as Config Admin delivers it: text values, one-line edits, deletion. */
class CacheConfigUpdatesTest {

    private static Map<String, Object> props(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        m.put("service.pid", "io.partita.cache");
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static void fill(ConstantTensorCache c) {
        c.getOrAdd(new CacheKey("t", "w"), 1024, () -> ConstantBuffer.allocateHost(1024)).close();
    }

    @Test
    void untypedIntegersApplyAndAMalformedOneKeepsThePreviousValue() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of());
        m.configure(props("primitive.cache.capacity", "77"));
        assertEquals(77, m.kernelCache(CacheManager.PRIMITIVES).capacity());
        m.configure(props("primitive.cache.capacity", " 12x"));
        assertEquals(77, m.kernelCache(CacheManager.PRIMITIVES).capacity());
        String error = m.lastSettingError().orElseThrow();
        assertTrue(error.contains("io.partita.cache primitive.cache.capacity = ' 12x'")
                && error.contains("expected an integer from 0 to 2147483647"), error);
        m.configure(props("primitive.cache.capacity", 55)); // typed (a .config file or the API): as well
        assertEquals(55, m.kernelCache(CacheManager.PRIMITIVES).capacity());
    }

    @Test
    void editingOnePropertyLeavesTheOthersAndTheCacheAlone() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of());
        ConstantTensorCache cpu = m.constantTensorCache(Device.CPU);
        m.configure(props("constant.tensor.cache.capacity", "cpu:64", "constant.tensor.cache.policy", "cpu:lru"));
        assertEquals(64L << 20, cpu.capacity());
        m.setConstantTensorCacheCapacity(DeviceKind.CPU, 16); // through the API, after the file
        m.setConstantTensorCachePolicy(DeviceKind.CPU, CachePolicy.COST);
        fill(cpu);
        m.configure(props("constant.tensor.cache.capacity", "cpu:64", "constant.tensor.cache.policy", "cpu:lru",
                "primitive.cache.capacity", "9"));
        assertEquals(9, m.kernelCache(CacheManager.PRIMITIVES).capacity());
        assertEquals(16L << 20, cpu.capacity(), "the unchanged line is not applied again over the API's value");
        assertEquals(CachePolicy.COST, cpu.policy());
        assertEquals(1, cpu.stats().entries(), "nothing flushed");
        m.configure(props("constant.tensor.cache.capacity", "cpu:128", "constant.tensor.cache.policy", "cpu:lru",
                "primitive.cache.capacity", "9"));
        assertEquals(128L << 20, cpu.capacity());
        assertEquals(1, cpu.stats().entries(), "a larger capacity does not flush");
        m.configure(props("constant.tensor.cache.capacity", "cpu:1", "constant.tensor.cache.policy", "cpu:lru",
                "primitive.cache.capacity", "9"));
        assertEquals(0, cpu.stats().entries(), "a smaller one does");
    }

    @Test
    void deletingTheConfigurationRestoresTheEnvironmentsOrBuiltInSettings() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of(CacheManager.CONSTANT_CAPACITY_ENV, "gpu:32:lru",
                CacheManager.COMPILED_PARTITION_CAPACITY_ENV, "5"));
        ConstantTensorCache cpu = m.constantTensorCache(Device.CPU);
        ConstantTensorCache gpu = m.constantTensorCache(new Device(DeviceKind.GPU, 0));
        m.configure(props("constant.tensor.cache.capacity", "cpu:64;gpu:128", "constant.tensor.cache.policy",
                "gpu:cost", "primitive.cache.capacity", "9", "compiled.partition.cache.capacity", "11"));
        assertEquals(128L << 20, gpu.capacity());
        assertEquals(CachePolicy.COST, gpu.policy());
        fill(cpu);
        m.configure(props()); // the configuration was deleted
        assertEquals(ConstantTensorCache.UNLIMITED, cpu.capacity());
        assertEquals(1, cpu.stats().entries(), "back to unlimited: no flush");
        assertEquals(32L << 20, gpu.capacity(), "the environment's setting");
        assertEquals(CachePolicy.LRU, gpu.policy());
        assertEquals(KernelCache.DEFAULT_CAPACITY, m.kernelCache(CacheManager.PRIMITIVES).capacity());
        assertEquals(5, m.kernelCache(CacheManager.COMPILED_PARTITIONS).capacity());
    }

    @Test
    void removingACapacityThatSetAPolicyRestoresThePolicyButKeepsTheConfiguredPolicyProperty() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of());
        ConstantTensorCache gpu1 = m.constantTensorCache(new Device(DeviceKind.GPU, 1));
        ConstantTensorCache gpu2 = m.constantTensorCache(new Device(DeviceKind.GPU, 2));
        m.configure(props("constant.tensor.cache.capacity", "gpu.1:8:cost;gpu.2:8:cost",
                "constant.tensor.cache.policy", "gpu.2:lru"));
        assertEquals(CachePolicy.COST, gpu1.policy());
        assertEquals(CachePolicy.LRU, gpu2.policy());
        m.configure(props("constant.tensor.cache.policy", "gpu.2:lru"));
        assertEquals(ConstantTensorCache.UNLIMITED, gpu1.capacity());
        assertEquals(CachePolicy.NO_EVICT, gpu1.policy());
        assertEquals(CachePolicy.LRU, gpu2.policy(), "the policy property still applies");
    }

    /** Seed 000's getters: capacity per engine kind in MB and the old enabled switch. */
    @Test
    void capacityPerKindAndTheEnabledGetter() {
        CacheManagerImpl m = new CacheManagerImpl(Map.of());
        assertEquals(ConstantTensorCache.UNLIMITED, m.constantTensorCacheCapacity(DeviceKind.CPU));
        assertTrue(m.isConstantTensorCacheEnabled());
        m.setConstantTensorCacheCapacity(DeviceKind.CPU, 10240);
        m.configure(props("constant.tensor.cache.capacity", "gpu:2048"));
        assertEquals(10240, m.constantTensorCacheCapacity(DeviceKind.CPU));
        assertEquals(2048, m.constantTensorCacheCapacity(DeviceKind.GPU));
        m.setConstantTensorCacheEnabled(false);
        assertEquals(0, m.constantTensorCacheCapacity(DeviceKind.GPU));
        assertEquals(false, m.isConstantTensorCacheEnabled());
        m.setConstantTensorCacheEnabled(true);
        assertTrue(m.isConstantTensorCacheEnabled());
        assertEquals(ConstantTensorCache.UNLIMITED, m.constantTensorCacheCapacity(DeviceKind.CPU));
    }
}
