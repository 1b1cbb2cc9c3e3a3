package io.partita.console.internal;

import java.lang.management.ManagementFactory;
import java.util.List;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.partita.cache.CacheManager;
import io.partita.cache.CacheStats;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.DeviceKind;
import io.partita.cache.KernelCacheStats;
import io.partita.graph.BackendInfo;
import io.partita.graph.EngineKind;
import io.partita.graph.GraphRuntime;

/**
 * What the console page shows, as one JSON document the page polls: backends (with what their
 * MBeans keep: claimed op kinds, compiled partitions and the cached ones, executions), every constant tensor
 * cache by device, the capacity set per engine kind, and the kernel caches (compiled partitions,
 * primitives). Hit rates over time are the page's to compute from successive snapshots.
 */
final class Snapshot {
    private final ObjectMapper json;
    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();

    Snapshot(ObjectMapper json) {
        this.json = json;
    }

    ObjectNode of(GraphRuntime runtime, CacheManager caches) {
        ObjectNode root = json.createObjectNode();
        root.put("time", System.currentTimeMillis());
        ArrayNode backends = root.putArray("backends");
        for (BackendInfo b : runtime.backends()) {
            ObjectNode n = backends.addObject();
            n.put("id", b.id());
            n.put("version", b.version());
            n.put("rank", b.rank());
            n.put("state", b.state().name().toLowerCase(java.util.Locale.ROOT));
            ArrayNode engines = n.putArray("engines");
            b.engineKinds().stream().map(EngineKind::spelling).sorted().forEach(engines::add);
            n.put("description", b.description());
            counters(b.id(), n);
        }
        ArrayNode kinds = root.putArray("capacityByKind");
        for (DeviceKind k : DeviceKind.values()) {
            long mb = caches.constantTensorCacheCapacity(k);
            ObjectNode n = kinds.addObject();
            n.put("kind", k.spelling());
            capacity(n, "capacityMb", mb);
        }
        ArrayNode constant = root.putArray("constantCaches");
        for (CacheStats s : caches.constantTensorCacheStats()) {
            ObjectNode n = constant.addObject();
            n.put("device", s.device().toString());
            n.put("kind", s.device().kind().spelling());
            n.put("policy", s.policy().spelling());
            capacity(n, "capacityBytes", s.capacityBytes());
            n.put("sizeBytes", s.sizeBytes());
            n.put("entries", s.entries());
            n.put("hits", s.hits());
            n.put("misses", s.misses());
            n.put("uncachedMisses", s.uncachedMisses());
            n.put("evictions", s.evictions());
        }
        ArrayNode kernel = root.putArray("kernelCaches");
        for (KernelCacheStats s : caches.kernelCacheStats()) {
            kernel.add(json.<ObjectNode>valueToTree(s)); // name, capacity, entries, hits, misses, evictions
        }
        caches.lastSettingError().ifPresent(e -> root.put("lastSettingError", e));
        return root;
    }

    /** A capacity, null when unlimited. */
    private static void capacity(ObjectNode n, String field, long value) {
        if (value == ConstantTensorCache.UNLIMITED) {
            n.putNull(field);
        } else {
            n.put(field, value);
        }
    }

    /**
     * The counters the runtime keeps per backend, read from its MBean
     * ({@code io.partita:type=Backend,id=ID}): the management view the console shares with JMX
     * clients. Left out when the backend has none (it went away meanwhile).
     */
    private void counters(String id, ObjectNode n) {
        try {
            ObjectName name = new ObjectName("io.partita:type=Backend,id=" + ObjectName.quote(id));
            if (!mbeans.isRegistered(name)) {
                return;
            }
            n.put("compiledPartitions", ((Number) mbeans.getAttribute(name, "CompiledPartitions")).longValue());
            n.put("executions", ((Number) mbeans.getAttribute(name, "Executions")).longValue());
            n.put("running", ((Number) mbeans.getAttribute(name, "Running")).intValue());
            ArrayNode cached = n.putArray("cachedPartitions");
            for (String line : (String[]) mbeans.getAttribute(name, "CachedPartitions")) {
                cached.add(line);
            }
            ObjectNode claimed = n.putObject("claimedOpKinds");
            for (String kv : (String[]) mbeans.getAttribute(name, "ClaimedOpKinds")) {
                int eq = kv.lastIndexOf('=');
                claimed.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
            }
        } catch (JMException | RuntimeException e) {
            n.put("countersError", "backend counters unavailable: " + e.getMessage());
        }
    }

    static List<String> policies() {
        return java.util.Arrays.stream(io.partita.cache.CachePolicy.values())
                .map(io.partita.cache.CachePolicy::spelling).toList();
    }
}
