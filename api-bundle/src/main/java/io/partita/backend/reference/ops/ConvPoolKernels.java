package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.RefOp;
import io.partita.graph.OpKind;

/** Reference kernels of convolutions, pooling and interpolation. */
public final class ConvPoolKernels {
    private ConvPoolKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        // filled in per op
    }
}
