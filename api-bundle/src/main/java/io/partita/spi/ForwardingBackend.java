package io.partita.spi;

import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.osgi.annotation.versioning.ConsumerType;

import io.partita.graph.EngineKind;
import io.partita.graph.PartitionPolicy;

/**
 * A backend that hands every call to another: the base of a backend's OSGi component, which adds
 * the container's concerns (configuration, activation) around a backend that also runs on a plain
 * class path without them.
 */
@ConsumerType
public abstract class ForwardingBackend implements Backend {
    private final Backend delegate;

    protected ForwardingBackend(Backend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public String id() {
        return delegate.id();
    }

    @Override
    public String version() {
        return delegate.version();
    }

    @Override
    public Set<EngineKind> engineKinds() {
        return delegate.engineKinds();
    }

    @Override
    public String description() {
        return delegate.description();
    }

    @Override
    public int defaultRank() {
        return delegate.defaultRank();
    }

    @Override
    public List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        return delegate.claim(graph, policy);
    }

    @Override
    public Kernel compile(CompileRequest request) {
        return delegate.compile(request);
    }

    @Override
    public String cacheIdentity(io.partita.graph.Engine engine) {
        return delegate.cacheIdentity(engine);
    }

    @Override
    public boolean givesCacheBlobs() {
        return delegate.givesCacheBlobs();
    }

    @Override
    public Kernel compileFromBlobs(CompileRequest request, List<byte[]> blobs) {
        return delegate.compileFromBlobs(request, blobs);
    }

    @Override
    public void setThreads(int threads) {
        delegate.setThreads(threads);
    }

    @Override
    public void setCpuTeams(CpuTeams teams) {
        delegate.setCpuTeams(teams);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
