package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.RefOp;
import io.partita.graph.OpKind;

/** Reference kernels of reshapes, transposes, concatenation, casts, quantization and markers. */
public final class DataMovementKernels {
    private DataMovementKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.End, ctx -> {
            // End only marks a graph output: nothing to compute.
        });
    }
}
