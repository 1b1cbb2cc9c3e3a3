package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.RefOp;
import io.partita.graph.OpKind;

/**
 * Reference kernels of normalizations, softmax variants and reductions, in three files, one per
 * concern: {@link NormalizationKernels}, {@link SoftmaxKernels} and {@link ReductionKernels}.
 */
public final class NormReduceKernels {
    private NormReduceKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        NormalizationKernels.register(r);
        SoftmaxKernels.register(r);
        ReductionKernels.register(r);
    }
}
