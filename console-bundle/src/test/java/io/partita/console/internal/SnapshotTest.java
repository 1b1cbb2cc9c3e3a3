package io.partita.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.partita.cache.CacheManager;
import io.partita.cache.Device;
import io.partita.graph.GraphRuntime;
import io.partita.runtime.StandaloneRuntime;

class SnapshotTest {

    @Test
    void theSnapshotCarriesBackendsCachesAndTheCapacityPerKind() throws Exception {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        GraphRuntime runtime = StandaloneRuntime.of(caches);
        CacheSettingsForm.parse(Map.of("target", "cpu", "capacity", "42", "policy", "cost")).applyTo(caches);
        caches.constantTensorCache(Device.CPU); // created on first use, as a backend would
        caches.kernelCache(CacheManager.COMPILED_PARTITIONS);
        JsonNode s = new ObjectMapper().readTree(new Snapshot(new ObjectMapper()).of(runtime, caches).toString());

        assertTrue(s.get("time").asLong() > 0);
        assertEquals("reference", s.get("backends").get(0).get("id").asText(), s.toString());
        assertEquals("active", s.get("backends").get(0).get("state").asText());
        assertEquals("cpu", s.get("capacityByKind").get(0).get("kind").asText());
        assertEquals(42, s.get("capacityByKind").get(0).get("capacityMb").asLong());
        assertTrue(s.get("capacityByKind").get(1).get("capacityMb").isNull(), "gpu: unlimited is null");
        JsonNode cpu = s.get("constantCaches").get(0);
        assertEquals("cpu", cpu.get("device").asText());
        assertEquals("cost", cpu.get("policy").asText());
        assertEquals(42L << 20, cpu.get("capacityBytes").asLong());
        assertEquals(0, cpu.get("hits").asLong());
        JsonNode kernel = s.get("kernelCaches");
        assertTrue(kernel.size() >= 1, s.toString());
        for (String field : new String[] { "name", "capacity", "entries", "hits", "misses", "evictions" }) {
            assertTrue(kernel.get(0).has(field), field + " in " + kernel.get(0));
        }
    }
}
