package io.partita.cache.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Config Admin settings of PID {@code io.partita.cache.persistent}. Each has the same form as its
 * environment variable; an empty value leaves the current setting as it is.
 */
@ObjectClassDefinition(name = "Partita persistent kernel cache",
        description = "Compiled kernels on disk (OpenCL program binaries, generated classes), reused across runs.")
@interface PersistentCacheConfig {

    @AttributeDefinition(name = "Directory",
            description = "Directory of the cache, created owner-only if missing; refused when another user owns "
                    + "it or group/others can write it. Same as PARTITA_PERSISTENT_CACHE_DIR.")
    String directory() default "";

    @AttributeDefinition(name = "Capacity (MB)",
            description = "Megabytes on disk; the oldest entries are evicted first; 0 (the default) disables the "
                    + "cache. Same as PARTITA_PERSISTENT_CACHE_CAPACITY.")
    long capacity() default 0;

    @AttributeDefinition(name = "Engine kinds",
            description = "Engine kinds using the cache, separated by ';' (cpu, gpu), or none; default gpu. "
                    + "Same as PARTITA_PERSISTENT_CACHE_ENGINES.")
    String engines() default "";
}
