package io.partita.runtime;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.backend.reference.ReferenceBackend;
import io.partita.graph.BackendInfo;
import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.FpMathMode;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.PartitionPolicy;
import io.partita.spi.Backend;

/**
 * The runtime: the ranked set of backends (always ending with the reference backend) and the
 * factory of graphs. Backends come and go at any time; a partitioning uses the set present when
 * it starts.
 */
public final class RuntimeCore implements GraphRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeCore.class);

    private final BackendHandle reference = new BackendHandle(new ReferenceBackend(), Integer.MIN_VALUE);
    private volatile List<BackendHandle> backends = List.of();

    /** Registers a backend at a rank (higher ranks are offered graphs first). */
    public synchronized void addBackend(Backend backend, int rank) {
        for (BackendHandle h : backends) {
            if (h.backend() == backend) {
                return;
            }
        }
        List<BackendHandle> next = new ArrayList<>(backends);
        next.add(new BackendHandle(backend, rank));
        next.sort(Comparator.comparingInt(BackendHandle::rank).reversed());
        backends = List.copyOf(next);
        LOG.info("backend {} (version {}) registered at rank {} for {}", backend.id(), backend.version(), rank,
                backend.engineKinds());
    }

    /**
     * Drops a backend: later partitionings no longer see it and its compiled partitions fail with
     * {@link io.partita.graph.BackendUnavailableException}; executions already running finish.
     */
    public synchronized void removeBackend(Backend backend) {
        List<BackendHandle> next = new ArrayList<>(backends);
        for (BackendHandle h : backends) {
            if (h.backend() == backend) {
                h.markGone();
                next.remove(h);
                LOG.info("backend {} removed", backend.id());
            }
        }
        backends = List.copyOf(next);
    }

    /** Changes the rank of a registered backend (e.g. its service.ranking was reconfigured). */
    public synchronized void rerank(Backend backend, int rank) {
        List<BackendHandle> next = new ArrayList<>();
        for (BackendHandle h : backends) {
            next.add(h.backend() == backend ? new BackendHandle(backend, rank) : h);
        }
        next.sort(Comparator.comparingInt(BackendHandle::rank).reversed());
        backends = List.copyOf(next);
    }

    /** Active backends, highest rank first, the reference backend last. */
    List<BackendHandle> activeBackends() {
        List<BackendHandle> all = new ArrayList<>(backends);
        all.add(reference);
        return all;
    }

    BackendHandle reference() {
        return reference;
    }

    /** Where unclaimed ops go: the reference backend (which runs on CPU engines only). */
    BackendHandle fallbackFor(EngineKind kind) {
        return reference;
    }

    @Override
    public Graph createGraph(EngineKind engineKind) {
        return createGraph(engineKind, FpMathMode.STRICT, false);
    }

    @Override
    public Graph createGraph(EngineKind engineKind, FpMathMode fpMathMode, boolean applyToInt) {
        if (engineKind == null || fpMathMode == null) {
            throw new InvalidArgumentException("engine kind and fpmath mode must not be null");
        }
        return new GraphImpl(this, engineKind, fpMathMode, applyToInt);
    }

    @Override
    public List<BackendInfo> backends() {
        return activeBackends().stream().map(BackendHandle::info).toList();
    }

    @Override
    public CompiledGraph compile(Graph graph, PartitionPolicy policy, Engine engine) {
        if (!(graph instanceof GraphImpl g) || g.runtime() != this) {
            throw new InvalidArgumentException("the graph was created by another runtime; create it with this one");
        }
        return new CompiledGraphImpl(g, g.partitions(policy), engine);
    }

    @Override
    public String toString() {
        return "GraphRuntime" + activeBackends();
    }
}
