package io.partita.graph;

/** How the partitioner cuts a graph. */
public enum PartitionPolicy {
    /** Backends claim their largest fusion patterns. */
    FUSION,
    /** One op per partition, for debugging and as an oracle layout. */
    DEBUG
}
