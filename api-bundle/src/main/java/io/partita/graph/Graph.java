package io.partita.graph;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A graph of ops under construction, then finalized and cut into partitions.
 * Created by {@link GraphRuntime#createGraph}; not thread-safe while being built, immutable once
 * finalized.
 */
@ProviderType
public interface Graph {

    EngineKind engineKind();

    FpMathMode fpMathMode();

    /** Whether the fpmath mode also applies to integral ops (oneDNN's {@code apply_to_int}). */
    boolean fpMathApplyToInt();

    /**
     * Adds an op, checking it against its schema (kind, attribute names and types, arity, data
     * types). The graph is unchanged when the op is refused.
     *
     * @throws InvalidGraphException naming the op and what was expected
     */
    Graph add(Op op);

    /**
     * Checks the whole graph (connections, cycles, shapes) and fills in attribute defaults and
     * inferable dims. Named {@code finalizeGraph} because {@code Object.finalize} is taken.
     *
     * @throws InvalidGraphException naming the op at fault; the graph stays unfinalized
     */
    Graph finalizeGraph();

    boolean isFinalized();

    /** The ops; after finalization with defaults and inferred dims, in topological order. */
    List<Op> ops();

    /** Tensors consumed by ops but produced by none (finalized graphs only). */
    List<LogicalTensor> inputs();

    /** Tensors produced by ops and consumed by none, or consumed by an End op (finalized graphs only). */
    List<LogicalTensor> outputs();

    /** Cuts the finalized graph into partitions, in topological order. */
    List<Partition> partitions(PartitionPolicy policy);
}
