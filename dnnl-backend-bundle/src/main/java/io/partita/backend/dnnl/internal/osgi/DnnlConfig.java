package io.partita.backend.dnnl.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import io.partita.backend.dnnl.internal.DnnlBackend;

/** Config Admin settings of PID {@code io.partita.backend.dnnl}. */
@ObjectClassDefinition(name = "Partita DNNL-style backend", description = "Thread pool and rank of the DNNL-style backend.")
@interface DnnlConfig {

    @AttributeDefinition(name = "Threads", min = "0", max = "1024", description = "Threads of each CPU engine's pool"
            + " (1 to 1024); 0, or removing it, restores PARTITA_DNNL_THREADS or all cores."
            + " A later GraphRuntime.setThreads (partita run --threads) overrides it.")
    int threads() default 0;

    @AttributeDefinition(name = "Rank", description = "Service ranking: backends with a higher rank claim ops first.")
    int service_ranking() default DnnlBackend.DEFAULT_RANK;

    @AttributeDefinition(name = "Enabled", description = "When false the runtime offers the backend no graphs; its"
            + " compiled partitions re-partition onto the other backends.")
    boolean enabled() default true;
}
