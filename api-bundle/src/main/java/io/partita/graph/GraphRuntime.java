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

    /** The rules of every op kind this runtime accepts. */
    OpSchemaRegistry opSchemas();

    /**
     * A runtime with only the reference backend and the same op rules and caches (entries are
     * keyed by backend, so nothing is mixed up): the oracle other backends are checked against.
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

    /** A plain class path runtime with only the reference backend. */
    static GraphRuntime referenceOnly() {
        return GraphRuntimeFactory.find().referenceOnly();
    }
}
