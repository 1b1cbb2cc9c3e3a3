package io.partita.spi;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

import io.partita.graph.Engine;
import io.partita.graph.FpMathMode;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * What a backend compiles: the partition's ops with dims inferred from the compile-time inputs
 * (dynamic where they depend on a dynamic input), its ports, the engine, and shape inference for
 * execution-time shapes.
 */
@ProviderType
public interface CompileRequest {

    long partitionId();

    /** The pattern named in the claim. */
    String pattern();

    /** Ops in topological order with compile-time dims. */
    List<Op> ops();

    /** Partition inputs (concrete or dynamic dims, strided layouts resolved). */
    List<LogicalTensor> inputs();

    /** Partition outputs (inferred dims). */
    List<LogicalTensor> outputs();

    Engine engine();

    FpMathMode fpMathMode();

    /**
     * Infers every tensor of the partition for concrete input descriptions (dynamic shapes).
     * {@code values} may supply the contents of small integer input tensors whose values decide
     * a shape (DynamicReshape's target shape); it may be empty.
     *
     * @return descriptions of all tensors of the partition by id
     */
    Map<Long, LogicalTensor> inferShapes(List<LogicalTensor> inputs, Map<Long, long[]> values);
}
