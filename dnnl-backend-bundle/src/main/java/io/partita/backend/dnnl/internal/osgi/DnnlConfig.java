package io.partita.backend.dnnl.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import io.partita.backend.dnnl.internal.DnnlBackend;

/** Config Admin settings of PID {@code io.partita.backend.dnnl}. */
@ObjectClassDefinition(name = "Partita DNNL-style backend", description = "Thread pool and rank of the DNNL-style backend.")
@interface DnnlConfig {

    @AttributeDefinition(name = "Threads", description = "Threads of each CPU engine's pool (1 to 1024); empty keeps "
            + "the current value (PARTITA_DNNL_THREADS or all cores)."
            + " A later GraphRuntime.setThreads (partita run --threads) overrides it.")
    String threads() default "";

    @AttributeDefinition(name = "Rank", description = "Service ranking: backends with a higher rank claim ops first.")
    int service_ranking() default DnnlBackend.DEFAULT_RANK;
}
