package io.partita.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.cache.CacheManager;
import io.partita.cache.CachePolicy;
import io.partita.cache.CacheStats;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.DeviceKind;
import io.partita.runtime.StandaloneRuntime;

class CacheSettingsFormTest {

    @Test
    void aKindCapacityAndPolicyAreAppliedToTheCacheManager() {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        String done = CacheSettingsForm.parse(Map.of("target", "cpu", "capacity", "123", "policy", "lru"))
                .applyTo(caches);
        assertEquals("cpu: policy lru capacity 123 MB", done);
        assertEquals(123, caches.constantTensorCacheCapacity(DeviceKind.CPU));
        CacheStats cpu = caches.constantTensorCache(Device.CPU).stats();
        assertEquals(123L << 20, cpu.capacityBytes());
        assertEquals(CachePolicy.LRU, cpu.policy());
    }

    @Test
    void aDeviceTargetLeavesItsKindAlone() {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        CacheSettingsForm.parse(Map.of("target", "gpu.1", "capacity", "64")).applyTo(caches);
        assertEquals(64L << 20, caches.constantTensorCache(new Device(DeviceKind.GPU, 1)).stats().capacityBytes());
        assertEquals(ConstantTensorCache.UNLIMITED, caches.constantTensorCacheCapacity(DeviceKind.GPU));
        CacheSettingsForm.parse(Map.of("target", "gpu.1", "capacity", "unlimited")).applyTo(caches);
        assertEquals(ConstantTensorCache.UNLIMITED,
                caches.constantTensorCache(new Device(DeviceKind.GPU, 1)).stats().capacityBytes());
    }

    @Test
    void eachBadFieldIsNamedWithWhatWasExpectedAndNothingIsApplied() {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        CacheSettingsForm.parse(Map.of("target", "cpu", "capacity", "50")).applyTo(caches);
        record Bad(Map<String, String> fields, String says) {
        }
        for (Bad b : new Bad[] {
                new Bad(Map.of("capacity", "5"), "target is missing"),
                new Bad(Map.of("target", "tpu", "capacity", "5"), "target 'tpu' is not an engine kind"),
                new Bad(Map.of("target", "gpu.x", "capacity", "5"), "device index 'x' is not a number"),
                new Bad(Map.of("target", "gpu.99999", "capacity", "5"), "device index '99999'"),
                new Bad(Map.of("target", "cpu", "capacity", "-1"), "capacity '-1' is not a capacity"),
                new Bad(Map.of("target", "cpu", "capacity", "12MB"), "capacity '12MB' is not a capacity"),
                new Bad(Map.of("target", "cpu", "capacity", "99999999999999999999"), "is not a capacity"),
                new Bad(Map.of("target", "cpu", "capacity", "7", "policy", "fifo"), "policy 'fifo' is not a cache policy"),
                new Bad(Map.of("target", "cpu"), "nothing to change for cpu") }) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> CacheSettingsForm.parse(b.fields()).applyTo(caches), b.fields().toString());
            assertTrue(e.getMessage().contains(b.says()), e.getMessage());
            assertTrue(e.getMessage().contains("expected") || e.getMessage().contains("give"), e.getMessage());
        }
        // the refused forms left the earlier setting as it was, the bad policy's capacity included
        assertEquals(50, caches.constantTensorCacheCapacity(DeviceKind.CPU));
        assertEquals(CachePolicy.NO_EVICT, caches.constantTensorCache(Device.CPU).stats().policy());
    }
}
