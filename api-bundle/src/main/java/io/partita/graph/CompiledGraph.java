package io.partita.graph;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/**
 * All partitions of a graph compiled for one engine, executed in topological order with the
 * intermediate tensors allocated and reused by this object. Not safe for concurrent
 * {@code execute} calls (the intermediates are shared); compile one per thread instead.
 */
@ProviderType
public interface CompiledGraph extends AutoCloseable {

    /** The compiled partitions in execution order, each with its partition. */
    List<Step> steps();

    /** Graph inputs (as compiled). */
    List<LogicalTensor> inputs();

    /** Graph outputs (as compiled; dims may be dynamic). */
    List<LogicalTensor> outputs();

    /**
     * Runs the graph: every graph input must be given; outputs are returned by tensor id,
     * allocated in memory owned by this compiled graph (valid until the next execute or close).
     */
    Map<Long, Tensor> execute(Stream stream, Map<Long, Tensor> inputs);

    /**
     * {@link #execute(Stream, Map)}, telling {@code observer} the time of each step as it returns
     * (steps run in the order of {@link #steps()}).
     */
    Map<Long, Tensor> execute(Stream stream, Map<Long, Tensor> inputs, StepObserver observer);

    /** Frees the intermediate and output memory. */
    @Override
    void close();

    /** One partition and its compiled form. */
    record Step(Partition partition, CompiledPartition compiled) {
    }
}
