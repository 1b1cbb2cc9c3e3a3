package io.partita.runtime;

import java.util.List;

/** JMX view of one registered backend ({@code io.partita:type=Backend,id=dnnl}). */
public interface BackendMXBean {
    String getId();

    String getVersion();

    int getRank();

    /** active, gone or disabled. */
    String getState();

    List<String> getEngineKinds();

    String getDescription();

    /**
     * Op kinds of the claims accepted from this backend since it registered, each with its count
     * ({@code MatMul=12}), by kind name.
     */
    List<String> getClaimedOpKinds();

    /**
     * Its compiled partitions the compiled-partition cache holds now, one line each: pattern, ops
     * (kind and id), engine, input and output shapes.
     */
    List<String> getCachedPartitions();

    /** Partitions this backend compiled since it registered (cache hits not counted). */
    long getCompiledPartitions();

    /** Partition executions it ran (or is running) since it registered. */
    long getExecutions();

    /** Compilations and executions running on it now. */
    int getRunning();
}
