package io.partita.backend.acl.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import io.partita.backend.acl.internal.AclBackend;

/** Config Admin settings of PID {@code io.partita.backend.acl}. */
@ObjectClassDefinition(name = "Partita ARM-Compute-style backend", description = "Rank and pooled memory cap of the ACL-style backend.")
@interface AclConfig {

    @AttributeDefinition(name = "Rank", description = "Service ranking: backends with a higher rank claim ops first"
            + " (the DNNL-style backend has 100).")
    int service_ranking() default AclBackend.DEFAULT_RANK;

    @AttributeDefinition(name = "Pool cap (MB)", description = "Megabytes of operator working memory kept in pools"
            + " across runs (0 to " + AclSettings.MAX_POOL_CAP_MB + "); pools beyond it are freed after their run.")
    long pool_cap_mb() default AclBackend.DEFAULT_POOL_CAP_MB;

    @AttributeDefinition(name = "Memory manager", description = "'cached' keeps each primitive's pools between runs;"
            + " 'on-demand' allocates them every run (the baseline). Applies to primitives created afterwards.")
    String memory_manager() default "cached";

    @AttributeDefinition(name = "Enabled", description = "When false the runtime offers the backend no graphs; its"
            + " compiled partitions re-partition onto the other backends.")
    boolean enabled() default true;
}
