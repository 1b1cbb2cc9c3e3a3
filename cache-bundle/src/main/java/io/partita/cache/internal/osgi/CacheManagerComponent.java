package io.partita.cache.internal.osgi;

import java.util.List;
import java.util.Optional;

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
import io.partita.cache.internal.CacheManagerImpl;

/**
 * The process's {@link CacheManager} as a service. Config Admin changes apply live; a malformed
 * property is logged (quoting it and the expected form), remembered for management tools, and the
 * previous setting stays. When the bundle stops, every cached buffer is released (its memory
 * returns once the last lease on it closes).
 */
@Component(service = CacheManager.class, configurationPid = "io.partita.cache", immediate = true)
@Designate(ocd = CacheConfig.class)
public class CacheManagerComponent implements CacheManager {
    private static final Logger LOG = LoggerFactory.getLogger(CacheManagerComponent.class);

    private final CacheManagerImpl manager = CacheManagerImpl.global();

    @Activate
    @Modified
    void configure(CacheConfig config) {
        apply("constant.tensor.cache.capacity", config.constant_tensor_cache_capacity(),
                manager::applyConstantTensorCacheSettings);
        apply("constant.tensor.cache.policy", config.constant_tensor_cache_policy(),
                manager::applyConstantTensorCachePolicies);
        apply("primitive.cache.capacity", config.primitive_cache_capacity(), v -> manager.setKernelCacheCapacity(
                PRIMITIVES, entries("primitive.cache.capacity", v)));
        apply("compiled.partition.cache.capacity", config.compiled_partition_cache_capacity(),
                v -> manager.setKernelCacheCapacity(COMPILED_PARTITIONS, entries("compiled.partition.cache.capacity", v)));
    }

    private static int entries(String property, String value) {
        String t = value.trim();
        if (!t.matches("\\d{1,9}")) {
            throw new InvalidCacheSettingException("io.partita.cache " + property + "='" + value
                    + "' is not a number of entries; expected a non-negative integer");
        }
        return Integer.parseInt(t);
    }

    private void apply(String property, String value, java.util.function.Consumer<String> setter) {
        if (value == null || value.isBlank()) {
            return;
        }
        try {
            setter.accept(value);
            LOG.info("io.partita.cache {} = {}", property, value);
        } catch (InvalidCacheSettingException e) {
            manager.recordSettingError("io.partita.cache " + property + ": " + e.getMessage());
            LOG.error("refused io.partita.cache {}: {}", property, e.getMessage());
        }
    }

    @Deactivate
    void deactivate() {
        manager.releaseAll();
    }

    @Override
    public ConstantTensorCache constantTensorCache(Device device) {
        return manager.constantTensorCache(device);
    }

    @Override
    public List<ConstantTensorCache> constantTensorCaches() {
        return manager.constantTensorCaches();
    }

    @Override
    public void setConstantTensorCacheCapacity(DeviceKind kind, long megabytes) {
        manager.setConstantTensorCacheCapacity(kind, megabytes);
    }

    @Override
    public void setConstantTensorCacheCapacity(Device device, long megabytes) {
        manager.setConstantTensorCacheCapacity(device, megabytes);
    }

    @Override
    public void setConstantTensorCachePolicy(DeviceKind kind, CachePolicy policy) {
        manager.setConstantTensorCachePolicy(kind, policy);
    }

    @Override
    public void setConstantTensorCachePolicy(Device device, CachePolicy policy) {
        manager.setConstantTensorCachePolicy(device, policy);
    }

    @Override
    public void setConstantTensorCacheEnabled(boolean enabled) {
        manager.setConstantTensorCacheEnabled(enabled);
    }

    @Override
    public void applyConstantTensorCacheSettings(String spec) {
        manager.applyConstantTensorCacheSettings(spec);
    }

    @Override
    public void applyConstantTensorCachePolicies(String spec) {
        manager.applyConstantTensorCachePolicies(spec);
    }

    @Override
    public <K, V> KernelCache<K, V> kernelCache(String name) {
        return manager.kernelCache(name);
    }

    @Override
    public void setKernelCacheCapacity(String name, int entries) {
        manager.setKernelCacheCapacity(name, entries);
    }

    @Override
    public Optional<String> lastSettingError() {
        return manager.lastSettingError();
    }

    @Override
    public void removeBackend(String backendId) {
        manager.removeBackend(backendId);
    }

    @Override
    public List<CacheStats> constantTensorCacheStats() {
        return manager.constantTensorCacheStats();
    }

    @Override
    public List<KernelCacheStats> kernelCacheStats() {
        return manager.kernelCacheStats();
    }
}
