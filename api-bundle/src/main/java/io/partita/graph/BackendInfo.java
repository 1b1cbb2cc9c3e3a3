package io.partita.graph;

import java.util.Set;

/**
 * What the runtime knows of a backend: id, version, rank (higher is offered the graph first),
 * engine kinds, and whether it is available now.
 */
public record BackendInfo(String id, String version, int rank, Set<EngineKind> engineKinds, State state) {

    /** Availability of a backend. */
    public enum State {
        /** Registered and used by new partitionings. */
        ACTIVE,
        /** Its bundle went away; partitions it compiled fail with {@link BackendUnavailableException}. */
        GONE
    }

    public BackendInfo {
        engineKinds = Set.copyOf(engineKinds);
    }
}
