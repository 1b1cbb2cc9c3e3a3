package io.partita.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.cache.CachePolicy;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.DeviceKind;
import io.partita.cache.InvalidCacheSettingException;

/** Every form of the capacity and policy settings, and every kind of malformed value. */
class CacheSettingsTest {

    @Test
    void parsesKindsDevicesUnlimitedAndPolicies() {
        var m = CacheSettings.parseCapacities("env", " cpu:10240 ; gpu:2048;gpu.1:512:lru ;cpu.2:unlimited");
        assertEquals(4, m.size());
        assertEquals(10240L << 20, m.get(new CacheSettings.Target(DeviceKind.CPU, null)).bytes());
        var gpu1 = m.get(new CacheSettings.Target(DeviceKind.GPU, new Device(DeviceKind.GPU, 1)));
        assertEquals(512L << 20, gpu1.bytes());
        assertEquals(CachePolicy.LRU, gpu1.policy());
        assertEquals(ConstantTensorCache.UNLIMITED,
                m.get(new CacheSettings.Target(DeviceKind.CPU, new Device(DeviceKind.CPU, 2))).bytes());
        var p = CacheSettings.parsePolicies("cfg", "cpu:cost;gpu.3:no_evict");
        assertEquals(Map.of(new CacheSettings.Target(DeviceKind.CPU, null), CachePolicy.COST,
                new CacheSettings.Target(DeviceKind.GPU, new Device(DeviceKind.GPU, 3)), CachePolicy.NO_EVICT), p);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "tpu:1024|'tpu' is not a device kind",
        "cpu:-5|'-5' is not a number of megabytes",
        "cpu:12abc|'12abc' is not a number of megabytes",
        "cpu:1.5|'1.5' is not a number of megabytes",
        "cpu:1024,gpu:2048|'1024,gpu' is not a number of megabytes",
        "cpu:1024;;gpu:2048|entry 2 is empty (stray ';')",
        "cpu:1024;|entry 2 is empty (stray ';')",
        "cpu=1024|'cpu=1024' is not KIND[.DEVICE]:MEGABYTES[:POLICY]",
        "cpu:1024:lru:x|is not KIND[.DEVICE]:MEGABYTES[:POLICY]",
        "cpu:1024:fifo|unknown cache policy 'fifo'",
        "cpu:1;cpu:2|'cpu' is set twice",
        "gpu.x:1|'gpu.x' is not a device kind",
        "cpu:99999999999999999999|is too large",
        "cpu:9000000000000|megabytes is too large"
    })
    void malformedCapacitiesAreRefusedQuotingTheValueAndTheForm(String value, String problem) {
        InvalidCacheSettingException e = assertThrows(InvalidCacheSettingException.class,
                () -> CacheSettings.parseCapacities("PARTITA_CONSTANT_TENSOR_CACHE_CAPACITY", value));
        assertTrue(e.getMessage().startsWith("PARTITA_CONSTANT_TENSOR_CACHE_CAPACITY='" + value + "'"), e.getMessage());
        assertTrue(e.getMessage().contains(problem), e.getMessage());
        assertTrue(e.getMessage().contains("expected KIND[.DEVICE]:MEGABYTES[:POLICY] entries separated by ';'"),
                e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "cpu|'cpu' is not KIND[.DEVICE]:POLICY",
        "cpu:random|unknown cache policy 'random'",
        "npu:lru|'npu' is not a device kind",
        "' '|the value is empty"
    })
    void malformedPoliciesAreRefused(String value, String problem) {
        InvalidCacheSettingException e = assertThrows(InvalidCacheSettingException.class,
                () -> CacheSettings.parsePolicies("policy", value));
        assertTrue(e.getMessage().contains(problem), e.getMessage());
        assertTrue(e.getMessage().contains("expected KIND[.DEVICE]:POLICY"), e.getMessage());
    }

    @Test
    void kernelEntriesMustBeANonNegativeInteger() {
        assertEquals(64, CacheSettings.entriesCount("PARTITA_PRIMITIVE_CACHE_CAPACITY", " 64 "));
        for (String bad : new String[] {"-1", "many", "1e3", ""}) {
            InvalidCacheSettingException e = assertThrows(InvalidCacheSettingException.class,
                    () -> CacheSettings.entriesCount("PARTITA_PRIMITIVE_CACHE_CAPACITY", bad));
            assertTrue(e.getMessage().contains("PARTITA_PRIMITIVE_CACHE_CAPACITY='" + bad + "'"), e.getMessage());
            assertTrue(e.getMessage().contains("expected a non-negative integer"), e.getMessage());
        }
    }
}
