package io.partita.testing;

import java.util.List;
import java.util.Set;

import io.partita.graph.EngineKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.Backend;
import io.partita.spi.Claim;
import io.partita.spi.CompileRequest;
import io.partita.spi.GraphView;
import io.partita.spi.Kernel;

/** Registered in test META-INF/services to check ServiceLoader discovery; claims nothing. */
public final class DiscoveredBackend implements Backend {
    @Override
    public String id() {
        return "discovered";
    }

    @Override
    public Set<EngineKind> engineKinds() {
        return Set.of(EngineKind.CPU);
    }

    @Override
    public int defaultRank() {
        return 3;
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
