package io.partita.cache;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The caches of one process: a constant tensor cache per device and the named kernel caches, with
 * their settings. Settings arrive from the environment (read once at start), Config Admin (PID
 * {@code io.partita.cache}) and this API; the latest wins. A malformed setting is refused with an
 * {@link InvalidCacheSettingException} and the previous one stays.
 *
 * <p>In OSGi it is the service of the cache bundle; on a plain class path the runtime creates one
 * with {@link java.util.ServiceLoader} (environment read once then). There is no process-wide
 * instance: each runtime passes its manager to the backends it creates.
 */
@ProviderType
public interface CacheManager {
    /** {@code KIND[.DEVICE]:MEGABYTES[:POLICY]} entries separated by {@code ;}, e.g. {@code cpu:10240;gpu:2048}. */
    String CONSTANT_CAPACITY_ENV = "PARTITA_CONSTANT_TENSOR_CACHE_CAPACITY";
    /** Entries of the primitive kernel cache. */
    String PRIMITIVE_CAPACITY_ENV = "PARTITA_PRIMITIVE_CACHE_CAPACITY";
    /** Entries of the compiled-partition cache. */
    String COMPILED_PARTITION_CAPACITY_ENV = "PARTITA_COMPILED_PARTITION_CACHE_CAPACITY";

    /** Directory of the persistent kernel cache (created owner-only if missing). */
    String PERSISTENT_DIR_ENV = "PARTITA_PERSISTENT_CACHE_DIR";
    /** Megabytes of the persistent kernel cache; 0 (the default) disables it. */
    String PERSISTENT_CAPACITY_ENV = "PARTITA_PERSISTENT_CACHE_CAPACITY";
    /** Engine kinds using the persistent kernel cache, e.g. {@code cpu;gpu}, or {@code none} (default {@code gpu}). */
    String PERSISTENT_ENGINES_ENV = "PARTITA_PERSISTENT_CACHE_ENGINES";

    /** Kernel cache of backend primitives and device programs (keys must include the backend id). */
    String PRIMITIVES = "primitives";
    /** Kernel cache of the runtime's compiled partitions. */
    String COMPILED_PARTITIONS = "compiled_partitions";

    /** The cache of a device, created on first use with the settings of its kind and device. */
    ConstantTensorCache constantTensorCache(Device device);

    /** The constant tensor caches created so far. */
    List<ConstantTensorCache> constantTensorCaches();

    /**
     * Capacity in megabytes for every device of a kind (devices with their own setting keep it).
     * The first setting, or a lower one, flushes a cache; a higher one does not; 0 clears and
     * disables it. {@link ConstantTensorCache#UNLIMITED} restores the default.
     */
    void setConstantTensorCacheCapacity(DeviceKind kind, long megabytes);

    void setConstantTensorCacheCapacity(Device device, long megabytes);

    void setConstantTensorCachePolicy(DeviceKind kind, CachePolicy policy);

    void setConstantTensorCachePolicy(Device device, CachePolicy policy);

    /** The old switch: true restores the default (unlimited) for all kinds, false sets 0 for all. */
    void setConstantTensorCacheEnabled(boolean enabled);

    /**
     * The capacity in megabytes set for an engine kind (API, environment, Config Admin; devices
     * with a setting of their own aside): {@link ConstantTensorCache#UNLIMITED} when none is set.
     */
    long constantTensorCacheCapacity(DeviceKind kind);

    /** The old getter: false when every engine kind's capacity is 0 (the cache is off), true otherwise. */
    boolean isConstantTensorCacheEnabled();

    /** Applies settings written as the environment variable takes them: {@code cpu:10240;gpu.1:512:lru}. */
    void applyConstantTensorCacheSettings(String spec);

    /** Applies policies written {@code KIND[.DEVICE]:POLICY;...}, e.g. {@code cpu:lru;gpu:cost}. */
    void applyConstantTensorCachePolicies(String spec);

    /** A named kernel cache ({@link #PRIMITIVES}, {@link #COMPILED_PARTITIONS}, or another name), created on first use. */
    <K, V> KernelCache<K, V> kernelCache(String name);

    /** Sets the capacity (entries) of a named kernel cache, now or when it is created. */
    void setKernelCacheCapacity(String name, int entries);

    /** The on-disk kernel store of this process (Config Admin PID {@code io.partita.cache.persistent}). */
    PersistentCache persistentCache();

    /**
     * Directory of the persistent cache. Refused when it exists and is not a directory, is writable by
     * group or others, or is owned by another user (its kernels would be someone else's code).
     */
    void setPersistentCacheDirectory(java.nio.file.Path directory);

    /** Capacity of the persistent cache in megabytes; 0 disables it. Lowering it evicts at the next store. */
    void setPersistentCacheCapacity(long megabytes);

    /** Enables or disables the persistent cache for an engine kind (default: GPU on, CPU off). */
    void setPersistentCacheEnabled(DeviceKind kind, boolean enabled);

    /** The last malformed setting refused (from any source), if any: shown by management tools. */
    java.util.Optional<String> lastSettingError();

    /** Drops everything a backend cached (its bundle went away): constant tensors on every device. */
    void removeBackend(String backendId);

    List<CacheStats> constantTensorCacheStats();

    List<KernelCacheStats> kernelCacheStats();

}
