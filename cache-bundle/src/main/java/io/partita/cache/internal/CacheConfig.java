package io.partita.cache.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Config Admin settings of PID {@code io.partita.cache} (the metatype consoles render; the manager
 * reads the raw properties, see {@link io.partita.cache.config.ConfigProperties}). Each has the same
 * form as its environment variable; a removed or empty value restores the environment's setting, or
 * the built-in default.
 */
@ObjectClassDefinition(name = "Partita caches",
        description = "Capacities and policies of the constant tensor caches and the kernel caches.")
@interface CacheConfig {

    @AttributeDefinition(name = "Constant tensor cache capacity",
            description = "KIND[.DEVICE]:MEGABYTES[:POLICY] entries separated by ';' (e.g. cpu:10240;gpu:2048, "
                    + "gpu.1:512:lru); MEGABYTES may be 'unlimited'; 0 disables. Same as "
                    + "PARTITA_CONSTANT_TENSOR_CACHE_CAPACITY.")
    String constant_tensor_cache_capacity() default "";

    @AttributeDefinition(name = "Constant tensor cache policy",
            description = "KIND[.DEVICE]:POLICY entries separated by ';' with POLICY no_evict, lru or cost "
                    + "(e.g. cpu:lru;gpu:cost).")
    String constant_tensor_cache_policy() default "";

    @AttributeDefinition(name = "Primitive cache capacity",
            description = "Entries of the primitive kernel cache (default 1024). Same as PARTITA_PRIMITIVE_CACHE_CAPACITY.")
    int primitive_cache_capacity() default io.partita.cache.KernelCache.DEFAULT_CAPACITY;

    @AttributeDefinition(name = "Compiled partition cache capacity",
            description = "Entries of the compiled-partition cache (default 1024). Same as "
                    + "PARTITA_COMPILED_PARTITION_CACHE_CAPACITY.")
    int compiled_partition_cache_capacity() default io.partita.cache.KernelCache.DEFAULT_CAPACITY;
}
