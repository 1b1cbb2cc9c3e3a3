package io.partita.graph;

import java.util.Set;

/**
 * What the runtime knows of a backend: id, version, rank (higher is offered the graph first),
 * engine kinds, whether it is available now, and its own description (may be empty).
 */
public record BackendInfo(String id, String version, int rank, Set<EngineKind> engineKinds, State state,
        String description) {

    /** Availability of a backend. */
    public enum State {
        /** Registered and used by new partitionings. */
        ACTIVE,
        /** Its bundle went away; partitions it compiled fail with {@link BackendUnavailableException}. */
        GONE,
        /**
         * Registered but switched off by its configuration ({@code enabled = false}): offered no
         * graphs; partitions it compiled fail with {@link BackendUnavailableException}.
         */
        DISABLED
    }

    public BackendInfo {
        engineKinds = Set.copyOf(engineKinds);
        description = description == null ? "" : description;
    }

    /** Without a description. */
    public BackendInfo(String id, String version, int rank, Set<EngineKind> engineKinds, State state) {
        this(id, version, rank, engineKinds, state, "");
    }
}
