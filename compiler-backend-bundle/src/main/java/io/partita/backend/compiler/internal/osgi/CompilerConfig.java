package io.partita.backend.compiler.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import io.partita.backend.compiler.internal.CompilerBackend;

/** Config Admin settings of PID {@code io.partita.backend.compiler}. */
@ObjectClassDefinition(name = "Partita graph-compiler backend", description = "Rank of the graph-compiler backend.")
@interface CompilerConfig {

    @AttributeDefinition(name = "Rank", description = "Service ranking: backends with a higher rank claim ops first"
            + " (the DNNL-style backend has 100; the graph compiler's fused partitions should come first).")
    int service_ranking() default CompilerBackend.DEFAULT_RANK;

    @AttributeDefinition(name = "Enabled", description = "When false the runtime offers the backend no graphs; its"
            + " compiled partitions re-partition onto the other backends.")
    boolean enabled() default true;
}
