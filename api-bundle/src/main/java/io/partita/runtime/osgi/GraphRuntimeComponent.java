package io.partita.runtime.osgi;

import java.util.List;
import java.util.Map;

import org.osgi.framework.Constants;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import io.partita.cache.CacheManager;
import io.partita.graph.BackendInfo;
import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.FpMathMode;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.PartitionPolicy;
import io.partita.runtime.RuntimeCore;
import io.partita.spi.Backend;

/**
 * The runtime as an OSGi service: tracks every {@link Backend} service, ranked by its
 * {@code service.ranking}. Backends bind and unbind while graphs run (hot swap).
 */
@Component(service = GraphRuntime.class, immediate = true)
public class GraphRuntimeComponent implements GraphRuntime {
    private final RuntimeCore core;

    /** The runtime shares the process's caches (compiled partitions, backends' constant tensors). */
    @Activate
    public GraphRuntimeComponent(@Reference CacheManager caches) {
        this.core = new RuntimeCore(caches);
    }

    @Reference(service = Backend.class, cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindBackend(Backend backend, Map<String, Object> props) {
        core.addBackend(backend, rank(backend, props));
    }

    void updatedBackend(Backend backend, Map<String, Object> props) {
        core.rerank(backend, rank(backend, props));
    }

    void unbindBackend(Backend backend) {
        core.removeBackend(backend);
    }

    private static int rank(Backend backend, Map<String, Object> props) {
        Object r = props.get(Constants.SERVICE_RANKING);
        return r instanceof Integer i ? i : backend.defaultRank();
    }

    @Override
    public Graph createGraph(EngineKind engineKind) {
        return core.createGraph(engineKind);
    }

    @Override
    public Graph createGraph(EngineKind engineKind, FpMathMode fpMathMode, boolean applyToInt) {
        return core.createGraph(engineKind, fpMathMode, applyToInt);
    }

    @Override
    public List<BackendInfo> backends() {
        return core.backends();
    }

    @Override
    public CompiledGraph compile(Graph graph, PartitionPolicy policy, Engine engine) {
        return core.compile(graph, policy, engine);
    }
}
