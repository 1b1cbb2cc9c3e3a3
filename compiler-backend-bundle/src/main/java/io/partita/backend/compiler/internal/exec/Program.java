package io.partita.backend.compiler.internal.exec;

import java.util.List;

import io.partita.graph.Tensor;

/** A partition compiled by the graph compiler, run for whatever shapes its tensors have. */
public interface Program {

    /** Inputs and outputs in the partition's port order, already checked by the runtime. */
    void execute(List<Tensor> in, List<Tensor> out, Parallel pool);

    /** Releases what the program put into shared caches. */
    default void close() {
    }
}
