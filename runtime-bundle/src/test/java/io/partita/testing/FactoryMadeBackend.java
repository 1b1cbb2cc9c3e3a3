package io.partita.testing;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import io.partita.cache.CacheManager;
import io.partita.graph.EngineKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.Backend;
import io.partita.spi.BackendFactory;
import io.partita.spi.Claim;
import io.partita.spi.CompileRequest;
import io.partita.spi.GraphView;
import io.partita.spi.Kernel;

/**
 * Created by its {@link Factory} (registered in test META-INF/services) with the runtime's caches;
 * claims nothing, records the caches and thread settings it was given.
 */
public final class FactoryMadeBackend implements Backend {
    /** Every instance created, in order. */
    public static final List<FactoryMadeBackend> CREATED = new CopyOnWriteArrayList<>();

    public final CacheManager caches;
    public final List<Integer> threadSettings = new CopyOnWriteArrayList<>();

    private FactoryMadeBackend(CacheManager caches) {
        this.caches = caches;
    }

    /** The registered factory. */
    public static final class Factory implements BackendFactory {
        @Override
        public Backend create(CacheManager caches) {
            FactoryMadeBackend b = new FactoryMadeBackend(caches);
            CREATED.add(b);
            return b;
        }
    }

    @Override
    public String id() {
        return "factory-made";
    }

    @Override
    public Set<EngineKind> engineKinds() {
        return Set.of(EngineKind.CPU);
    }

    @Override
    public int defaultRank() {
        return 2;
    }

    @Override
    public void setThreads(int threads) {
        threadSettings.add(threads);
    }

    @Override
    public List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        return List.of();
    }

    @Override
    public Kernel compile(CompileRequest request) {
        throw new UnsupportedFeatureException("claims nothing");
    }
}
