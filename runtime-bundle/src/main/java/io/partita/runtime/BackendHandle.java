package io.partita.runtime;

import io.partita.graph.BackendInfo;
import io.partita.spi.Backend;

/**
 * The runtime's record of one registered backend. When the backend goes away the handle is
 * marked gone: kernels already executing finish, new executions of its partitions fail with
 * {@link io.partita.graph.BackendUnavailableException}.
 */
public final class BackendHandle {
    private final Backend backend;
    private final int rank;
    private volatile boolean gone;

    public BackendHandle(Backend backend, int rank) {
        this.backend = backend;
        this.rank = rank;
    }

    public Backend backend() {
        return backend;
    }

    public String id() {
        return backend.id();
    }

    public int rank() {
        return rank;
    }

    public boolean isGone() {
        return gone;
    }

    void markGone() {
        gone = true;
    }

    public BackendInfo info() {
        return new BackendInfo(backend.id(), backend.version(), rank, backend.engineKinds(),
                gone ? BackendInfo.State.GONE : BackendInfo.State.ACTIVE, backend.description());
    }

    @Override
    public String toString() {
        return backend.id() + "@" + rank + (gone ? " (gone)" : "");
    }
}
