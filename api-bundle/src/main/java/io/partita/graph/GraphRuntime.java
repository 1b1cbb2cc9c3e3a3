package io.partita.graph;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import io.partita.graph.OpSchemaRegistry;

/**
 * Entry point: creates graphs and holds the backends that partition them. In an OSGi framework
 * it is a service that tracks backend services; on a plain class path, {@link #standalone()}
 * discovers backends with {@link java.util.ServiceLoader}.
 */
@ProviderType
public interface GraphRuntime {

    Graph createGraph(EngineKind engineKind);

    Graph createGraph(EngineKind engineKind, FpMathMode fpMathMode, boolean applyToInt);

    /** The backends in the order they are offered a graph (highest rank first). */
    List<BackendInfo> backends();

    /**
     * Compiles every partition of a finalized graph for the dims in the graph and returns an
     * executable whole graph (intermediate tensors managed by it).
     */
    CompiledGraph compile(Graph graph, PartitionPolicy policy, Engine engine);

    /**
     * Sets how many threads each CPU engine's pool runs, in every backend that keeps such a pool,
     * now and for backends that arrive later. A backend's own configuration set afterwards wins
     * for that backend (the latest setting wins).
     *
     * @throws InvalidArgumentException when {@code threads} is not from 1 to {@value #MAX_THREADS}
     */
    void setThreads(int threads);

    /** The largest thread count {@link #setThreads} accepts. */
    int MAX_THREADS = 1024;

    /**
     * The system or framework property holding the memory limit a runtime starts with: a byte
     * count, optionally with a binary suffix {@code k}, {@code m}, {@code g} or {@code t} (as
     * {@code -Xmx}), e.g. {@code 8g}. Read once, when the runtime is created; a malformed value is
     * logged naming the property and the expected form, and the default stays.
     */
    String MEMORY_LIMIT_PROPERTY = "partita.memory.limit";

    /**
     * The memory limit in bytes. Compiling a graph refuses, with a {@link MemoryLimitException}
     * naming the largest tensor, when its inputs, intermediates and outputs would not fit in it
     * beside the buffers of the graphs compiled before and not yet closed; executing refuses a
     * buffer that would exceed it (dims known only then). The reference backend also holds every
     * tensor of a partition as doubles (8 bytes per element) while it runs the partition, and
     * refuses a partition whose doubles exceed the limit.
     *
     * <p>The default comes from the JVM: 80% of the largest heap memory pool (the most a Java
     * array can take; with the parallel collector the old generation), and no more than
     * {@code -XX:MaxDirectMemorySize} when that is given. Then {@link #MEMORY_LIMIT_PROPERTY},
     * the Config Admin property {@code memory.limit} of PID {@code io.partita.runtime} and
     * {@link #setMemoryLimit} change it, the latest winning. {@link #reference()} shares it.
     */
    long memoryLimit();

    /**
     * Sets the memory limit (see {@link #memoryLimit()}) for compilations and executions from now on.
     *
     * @throws InvalidArgumentException when {@code bytes} is less than 1
     */
    void setMemoryLimit(long bytes);

    /** The rules of every op kind this runtime accepts. */
    OpSchemaRegistry opSchemas();

    /**
     * A runtime with only the reference backend and the same op rules, caches and memory limit
     * (cache entries are keyed by backend, so nothing is mixed up; the buffers of graphs compiled
     * on either count against the one limit): the oracle other backends are checked against.
     */
    GraphRuntime reference();

    /**
     * A runtime over the backends found on the class path (plus the reference backend).
     *
     * @throws PartitaException when no runtime implementation is on the class path
     */
    static GraphRuntime standalone() {
        return GraphRuntimeFactory.find().discover();
    }

    /**
     * A plain class path runtime over the named backends found on the class path (all when
     * {@code backendIds} is empty) whose cache manager {@code cacheSetup} configures first; see
     * {@link GraphRuntimeFactory#discover(java.util.Set, java.util.function.Consumer)}.
     */
    static GraphRuntime standalone(java.util.Set<String> backendIds,
            java.util.function.Consumer<io.partita.cache.CacheManager> cacheSetup) {
        return GraphRuntimeFactory.find().discover(backendIds, cacheSetup);
    }

    /** A plain class path runtime with only the reference backend. */
    static GraphRuntime referenceOnly() {
        return GraphRuntimeFactory.find().referenceOnly();
    }
}
