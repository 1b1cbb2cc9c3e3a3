package io.partita.cache.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.CacheManager;
import io.partita.cache.CachePolicy;
import io.partita.cache.CacheStats;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.DeviceKind;
import io.partita.cache.InvalidCacheSettingException;
import io.partita.cache.KernelCache;
import io.partita.cache.KernelCacheStats;
import io.partita.cache.PersistentCache;
import io.partita.cache.config.ConfigProperties;

/**
 * The process's caches and their settings. A setting for a kind applies to every device of that
 * kind that has no setting of its own. Settings methods are synchronized; cache operations are not.
 */
@Component(service = CacheManager.class, configurationPid = "io.partita.cache", immediate = true)
@Designate(ocd = CacheConfig.class)
public final class CacheManagerImpl implements CacheManager {
    private static final Logger LOG = LoggerFactory.getLogger(CacheManagerImpl.class);

    private final Map<Device, ConstantTensorCacheImpl> caches = new ConcurrentHashMap<>();
    private final Map<String, LruKernelCache<?, ?>> kernelCaches = new ConcurrentHashMap<>();
    private final Map<DeviceKind, Long> kindCapacity = new EnumMap<>(DeviceKind.class);
    private final Map<Device, Long> deviceCapacity = new HashMap<>();
    private final Map<DeviceKind, CachePolicy> kindPolicy = new EnumMap<>(DeviceKind.class);
    private final Map<Device, CachePolicy> devicePolicy = new HashMap<>();
    private final Map<String, Integer> kernelCapacity = new HashMap<>();
    private final PersistentStore persistent = new PersistentStore();
    private volatile String lastError;
    static final String PID = "io.partita.cache";
    /** The settings from the environment (or built in): what a removed Config Admin property falls back to. */
    private Map<DeviceKind, Long> defaultKindCapacity;
    private Map<Device, Long> defaultDeviceCapacity;
    private Map<DeviceKind, CachePolicy> defaultKindPolicy;
    private Map<Device, CachePolicy> defaultDevicePolicy;
    private Map<String, Integer> defaultKernelCapacity;
    private final ConfigProperties config;
    private java.util.function.Consumer<ConstantTensorCache> newConstantCache;
    private java.util.function.Consumer<String> newKernelCache;
    /** The policy property as last applied from Config Admin (null when absent). */
    private String configuredPolicies;

    /**
     * A manager configured from the process environment, read once here. This is how
     * {@link java.util.ServiceLoader} creates one for a plain class path runtime.
     */
    public CacheManagerImpl() {
        this(System.getenv());
    }

    /** A manager configured from these environment variables (read once, here). */
    public CacheManagerImpl(Map<String, String> env) {
        String capacities = env.get(CONSTANT_CAPACITY_ENV);
        if (capacities != null && !capacities.isBlank()) {
            guard(() -> applyCapacities(CONSTANT_CAPACITY_ENV, capacities));
        }
        kernelFromEnv(env, PRIMITIVE_CAPACITY_ENV, PRIMITIVES);
        kernelFromEnv(env, COMPILED_PARTITION_CAPACITY_ENV, COMPILED_PARTITIONS);
        persistentFromEnv(env, PERSISTENT_DIR_ENV, this::applyPersistentCacheDirectory);
        persistentFromEnv(env, PERSISTENT_CAPACITY_ENV, this::applyPersistentCacheCapacity);
        persistentFromEnv(env, PERSISTENT_ENGINES_ENV, this::applyPersistentCacheEngines);
        // What removing a Config Admin property (or deleting the configuration) restores.
        synchronized (this) {
            defaultKindCapacity = new EnumMap<>(kindCapacity);
            defaultDeviceCapacity = new HashMap<>(deviceCapacity);
            defaultKindPolicy = new EnumMap<>(kindPolicy);
            defaultDevicePolicy = new HashMap<>(devicePolicy);
            defaultKernelCapacity = new HashMap<>(kernelCapacity);
        }
        config = new ConfigProperties(PID)
                .text("constant.tensor.cache.capacity", "KIND[.DEVICE]:MEGABYTES[:POLICY] entries separated by ';'",
                        this::applyConstantTensorCacheSettings, this::resetConstantTensorCacheCapacities)
                .text("constant.tensor.cache.policy", "KIND[.DEVICE]:POLICY entries separated by ';'", v -> {
                    applyConstantTensorCachePolicies(v);
                    configuredPolicies = v;
                }, this::resetConstantTensorCachePolicies)
                .integer("primitive.cache.capacity", 0, Integer.MAX_VALUE, n -> setKernelCacheCapacity(PRIMITIVES, n),
                        () -> resetKernelCacheCapacity(PRIMITIVES))
                .integer("compiled.partition.cache.capacity", 0, Integer.MAX_VALUE,
                        n -> setKernelCacheCapacity(COMPILED_PARTITIONS, n),
                        () -> resetKernelCacheCapacity(COMPILED_PARTITIONS));
    }

    private void persistentFromEnv(Map<String, String> env, String var, java.util.function.BiConsumer<String, String> setter) {
        String v = env.get(var);
        if (v != null && !v.isBlank()) {
            guard(() -> setter.accept(var, v));
        }
    }

    private void kernelFromEnv(Map<String, String> env, String var, String cache) {
        String v = env.get(var);
        if (v != null && !v.isBlank()) {
            guard(() -> setKernelCacheCapacity(cache, CacheSettings.entriesCount(var, v)));
        }
    }

    /** An environment variable cannot be refused to its writer: it is logged and remembered. */
    private void guard(Runnable r) {
        try {
            r.run();
        } catch (InvalidCacheSettingException e) {
            lastError = e.getMessage();
            LOG.error("ignored a malformed cache setting: {}", e.getMessage());
        }
    }

    @Override
    public ConstantTensorCache constantTensorCache(Device device) {
        ConstantTensorCacheImpl c = caches.get(device);
        return c != null ? c : create(device);
    }

    private synchronized ConstantTensorCacheImpl create(Device device) {
        ConstantTensorCacheImpl existing = caches.get(device);
        if (existing != null) {
            return existing;
        }
        ConstantTensorCacheImpl c = new ConstantTensorCacheImpl(device);
        Long cap = effectiveCapacity(device);
        if (cap != null) {
            c.setCapacity(cap);
        }
        c.setPolicy(effectivePolicy(device));
        caches.put(device, c);
        if (newConstantCache != null) {
            newConstantCache.accept(c);
        }
        return c;
    }

    /**
     * Tells management tools of every cache, those present now and those created later (null: stop
     * telling). Used by the JMX component of this bundle.
     */
    synchronized void onNewCache(java.util.function.Consumer<ConstantTensorCache> constant,
            java.util.function.Consumer<String> kernel) {
        newConstantCache = constant;
        newKernelCache = kernel;
        if (constant != null) {
            caches.values().forEach(constant);
        }
        if (kernel != null) {
            kernelCaches.keySet().forEach(kernel);
        }
    }

    @Override
    public List<ConstantTensorCache> constantTensorCaches() {
        List<ConstantTensorCache> l = new ArrayList<>(caches.values());
        l.sort(Comparator.comparing(ConstantTensorCache::device, Comparator.comparing(Device::kind)
                .thenComparingInt(Device::index)));
        return l;
    }

    private Long effectiveCapacity(Device d) {
        Long c = deviceCapacity.get(d);
        return c != null ? c : kindCapacity.get(d.kind());
    }

    private CachePolicy effectivePolicy(Device d) {
        CachePolicy p = devicePolicy.get(d);
        return p != null ? p : kindPolicy.getOrDefault(d.kind(), CachePolicy.NO_EVICT);
    }

    private static long bytes(long megabytes) {
        if (megabytes == ConstantTensorCache.UNLIMITED) {
            return megabytes;
        }
        if (megabytes < 0) {
            throw new InvalidCacheSettingException("constant tensor cache capacity must be >= 0 megabytes, got "
                    + megabytes);
        }
        if (megabytes > (Long.MAX_VALUE >> 20)) {
            throw new InvalidCacheSettingException("constant tensor cache capacity of " + megabytes
                    + " megabytes is too large");
        }
        return megabytes << 20;
    }

    @Override
    public synchronized void setConstantTensorCacheCapacity(DeviceKind kind, long megabytes) {
        kindCapacity.put(kind, bytes(megabytes));
        reapply();
    }

    @Override
    public synchronized void setConstantTensorCacheCapacity(Device device, long megabytes) {
        deviceCapacity.put(device, bytes(megabytes));
        reapply();
    }

    @Override
    public synchronized void setConstantTensorCachePolicy(DeviceKind kind, CachePolicy policy) {
        kindPolicy.put(kind, java.util.Objects.requireNonNull(policy, "policy"));
        reapply();
    }

    @Override
    public synchronized void setConstantTensorCachePolicy(Device device, CachePolicy policy) {
        devicePolicy.put(device, java.util.Objects.requireNonNull(policy, "policy"));
        reapply();
    }

    @Override
    public synchronized void setConstantTensorCacheEnabled(boolean enabled) {
        deviceCapacity.clear();
        for (DeviceKind k : DeviceKind.values()) {
            kindCapacity.put(k, enabled ? ConstantTensorCache.UNLIMITED : 0L);
        }
        reapply();
    }

    @Override
    public synchronized long constantTensorCacheCapacity(DeviceKind kind) {
        Long bytes = kindCapacity.get(java.util.Objects.requireNonNull(kind, "kind"));
        return bytes == null || bytes == ConstantTensorCache.UNLIMITED ? ConstantTensorCache.UNLIMITED : bytes >> 20;
    }

    @Override
    public synchronized boolean isConstantTensorCacheEnabled() {
        for (DeviceKind k : DeviceKind.values()) {
            Long bytes = kindCapacity.get(k);
            if (bytes == null || bytes != 0) {
                return true;
            }
        }
        return false;
    }

    @Override
    public synchronized void applyConstantTensorCacheSettings(String spec) {
        applyCapacities("constant tensor cache capacity", spec);
    }

    private synchronized void applyCapacities(String source, String spec) {
        Map<CacheSettings.Target, CacheSettings.Capacity> parsed;
        try {
            parsed = CacheSettings.parseCapacities(source, spec);
        } catch (InvalidCacheSettingException e) {
            lastError = e.getMessage();
            throw e;
        }
        parsed.forEach((t, c) -> {
            if (t.device() != null) {
                deviceCapacity.put(t.device(), c.bytes());
                if (c.policy() != null) {
                    devicePolicy.put(t.device(), c.policy());
                }
            } else {
                kindCapacity.put(t.kind(), c.bytes());
                if (c.policy() != null) {
                    kindPolicy.put(t.kind(), c.policy());
                }
            }
        });
        reapply();
    }

    @Override
    public synchronized void applyConstantTensorCachePolicies(String spec) {
        Map<CacheSettings.Target, CachePolicy> parsed;
        try {
            parsed = CacheSettings.parsePolicies("constant tensor cache policy", spec);
        } catch (InvalidCacheSettingException e) {
            lastError = e.getMessage();
            throw e;
        }
        parsed.forEach((t, p) -> {
            if (t.device() != null) {
                devicePolicy.put(t.device(), p);
            } else {
                kindPolicy.put(t.kind(), p);
            }
        });
        reapply();
    }

    /** Pushes the effective settings to every cache (each decides whether to flush). */
    private void reapply() {
        for (ConstantTensorCacheImpl c : caches.values()) {
            c.setPolicy(effectivePolicy(c.device()));
            Long cap = effectiveCapacity(c.device());
            if (cap != null && (cap != c.capacity() || !c.isCapacitySet())) {
                c.setCapacity(cap);
            } else if (cap == null && c.capacity() != ConstantTensorCache.UNLIMITED) {
                c.setCapacity(ConstantTensorCache.UNLIMITED); // its setting was removed: the default, no flush
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <K, V> KernelCache<K, V> kernelCache(String name) {
        LruKernelCache<?, ?> c = kernelCaches.get(name);
        if (c == null) {
            synchronized (this) {
                c = kernelCaches.get(name);
                if (c == null) {
                    c = new LruKernelCache<>(name, kernelCapacity.getOrDefault(name, KernelCache.DEFAULT_CAPACITY));
                    kernelCaches.put(name, c);
                    if (newKernelCache != null) {
                        newKernelCache.accept(name);
                    }
                }
            }
        }
        return (KernelCache<K, V>) c;
    }

    @Override
    public synchronized void setKernelCacheCapacity(String name, int entries) {
        if (entries < 0) {
            InvalidCacheSettingException e = new InvalidCacheSettingException(
                    "kernel cache '" + name + "' capacity must be >= 0 entries, got " + entries);
            lastError = e.getMessage();
            throw e;
        }
        kernelCapacity.put(name, entries);
        LruKernelCache<?, ?> c = kernelCaches.get(name);
        if (c != null) {
            c.setCapacity(entries);
        }
    }

    @Override
    public PersistentCache persistentCache() {
        return persistent;
    }

    @Override
    public synchronized void setPersistentCacheDirectory(Path directory) {
        if (directory == null) {
            throw refused(new InvalidCacheSettingException("persistent cache directory is missing; expected a directory path"));
        }
        try {
            PersistentStore.checkDirectory("persistent cache directory", directory, directory);
        } catch (InvalidCacheSettingException e) {
            throw refused(e);
        }
        persistent.setDirectory(directory);
    }

    @Override
    public synchronized void setPersistentCacheCapacity(long megabytes) {
        try {
            persistent.setCapacity(PersistentStore.checkCapacity("persistent cache capacity", megabytes, megabytes));
        } catch (InvalidCacheSettingException e) {
            throw refused(e);
        }
    }

    @Override
    public synchronized void setPersistentCacheEnabled(DeviceKind kind, boolean enabled) {
        if (kind == null) {
            throw refused(new InvalidCacheSettingException("persistent cache engine kind is missing; expected cpu or gpu"));
        }
        persistent.setEnabled(kind, enabled);
    }

    /** A directory written as the environment variable and Config Admin take it; {@code source} names the setting. */
    synchronized void applyPersistentCacheDirectory(String source, String value) {
        try {
            persistent.setDirectory(PersistentStore.parseDirectory(source, value));
        } catch (InvalidCacheSettingException e) {
            throw refused(e);
        }
    }

    synchronized void applyPersistentCacheCapacity(String source, String value) {
        try {
            persistent.setCapacity(PersistentStore.parseCapacity(source, value));
        } catch (InvalidCacheSettingException e) {
            throw refused(e);
        }
    }

    /** Engine kinds {@code cpu;gpu}, {@code gpu} or {@code none}: those listed are on, the others off. */
    synchronized void applyPersistentCacheEngines(String source, String value) {
        try {
            persistent.setEngines(PersistentStore.parseEngines(source, value));
        } catch (InvalidCacheSettingException e) {
            throw refused(e);
        }
    }

    private InvalidCacheSettingException refused(InvalidCacheSettingException e) {
        lastError = e.getMessage();
        return e;
    }

    @Override
    public Optional<String> lastSettingError() {
        return Optional.ofNullable(lastError);
    }

    // Config Admin (PID io.partita.cache): only the properties that changed since the last
    // configuration are applied; a removed one (or a deleted configuration) restores the environment's
    // or built-in setting; a malformed one is logged quoting it and the expected form, remembered for
    // management tools, and the previous setting stays.
    @Activate
    @Modified
    void configure(Map<String, Object> properties) {
        config.update(properties).forEach(this::recordSettingError);
    }

    /**
     * Capacities back to the environment's (or unlimited): a lower one flushes, as any capacity
     * change. The removed property may have set policies too (its third field): they go back to
     * the environment's as well, with the policy property, if configured, applied over them.
     */
    synchronized void resetConstantTensorCacheCapacities() {
        kindCapacity.clear();
        kindCapacity.putAll(defaultKindCapacity);
        deviceCapacity.clear();
        deviceCapacity.putAll(defaultDeviceCapacity);
        resetPolicies();
        if (configuredPolicies != null) {
            applyConstantTensorCachePolicies(configuredPolicies);
        }
        reapply();
    }

    synchronized void resetConstantTensorCachePolicies() {
        configuredPolicies = null;
        resetPolicies();
        reapply();
    }

    private void resetPolicies() {
        kindPolicy.clear();
        kindPolicy.putAll(defaultKindPolicy);
        devicePolicy.clear();
        devicePolicy.putAll(defaultDevicePolicy);
    }

    synchronized void resetKernelCacheCapacity(String name) {
        setKernelCacheCapacity(name, defaultKernelCapacity.getOrDefault(name, KernelCache.DEFAULT_CAPACITY));
    }

    /** Records a refusal made elsewhere (e.g. of a Config Admin property). */
    public void recordSettingError(String message) {
        lastError = message;
    }

    @Override
    public void removeBackend(String backendId) {
        for (ConstantTensorCacheImpl c : caches.values()) {
            c.removeBackend(backendId);
        }
    }

    @Override
    public List<CacheStats> constantTensorCacheStats() {
        return constantTensorCaches().stream().map(ConstantTensorCache::stats).toList();
    }

    @Override
    public List<KernelCacheStats> kernelCacheStats() {
        return kernelCaches.values().stream().map(KernelCache::stats)
                .sorted(Comparator.comparing(KernelCacheStats::name)).toList();
    }

    /** Releases every cached buffer (memory returns once the last leases close) and empties the kernel caches. */
    @Deactivate
    public void releaseAll() {
        for (ConstantTensorCacheImpl c : caches.values()) {
            c.flush();
        }
        for (LruKernelCache<?, ?> k : kernelCaches.values()) {
            k.clear();
        }
    }
}
