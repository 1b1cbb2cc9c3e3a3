package io.partita.graph;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import io.partita.runtime.StandaloneRuntime;

/**
 * Entry point: creates graphs and holds the backends that partition them. In an OSGi framework
 * it is a service that tracks backend services; on a plain classpath, {@link #standalone()}
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

    /** A runtime over the backends found on the class path (plus the reference backend). */
    static GraphRuntime standalone() {
        return StandaloneRuntime.discover();
    }

    /** A runtime with only the reference backend: the oracle other backends are checked against. */
    static GraphRuntime referenceOnly() {
        return StandaloneRuntime.referenceOnly();
    }
}
