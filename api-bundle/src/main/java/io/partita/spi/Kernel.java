package io.partita.spi;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * A compiled partition's executable code. Must be safe to execute from many threads at once.
 * Inputs and outputs arrive in the order of the partition's ports, already validated (ids,
 * dims consistent with compilation, buffer sizes).
 */
@ConsumerType
public interface Kernel {

    void execute(Stream stream, List<Tensor> inputs, List<Tensor> outputs);

    /** Frees resources held by the kernel (cache entries, device buffers). */
    default void close() {
    }
}
