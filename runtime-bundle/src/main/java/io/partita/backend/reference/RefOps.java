package io.partita.backend.reference;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.ops.BinaryKernels;
import io.partita.backend.reference.ops.ConvPoolKernels;
import io.partita.backend.reference.ops.DataMovementKernels;
import io.partita.backend.reference.ops.EltwiseKernels;
import io.partita.backend.reference.ops.EinsumUnpoolKernels;
import io.partita.backend.reference.ops.ExtensionKernels;
import io.partita.backend.reference.ops.MatMulKernels;
import io.partita.backend.reference.ops.NormReduceKernels;
import io.partita.graph.OpKind;

/** The reference kernel of every op kind. */
public final class RefOps {
    private static final Map<OpKind, RefOp> OPS = build();

    private RefOps() {
    }

    private static Map<OpKind, RefOp> build() {
        Map<OpKind, RefOp> m = new EnumMap<>(OpKind.class);
        BiConsumer<OpKind, RefOp> add = (k, op) -> {
            if (m.put(k, op) != null) {
                throw new IllegalStateException("two reference kernels for " + k);
            }
        };
        EltwiseKernels.register(add);
        BinaryKernels.register(add);
        ConvPoolKernels.register(add);
        NormReduceKernels.register(add);
        DataMovementKernels.register(add);
        MatMulKernels.register(add);
        ExtensionKernels.register(add);
        EinsumUnpoolKernels.register(add);
        return m;
    }

    /** The kernel of a kind, or null. */
    public static RefOp find(OpKind kind) {
        return OPS.get(kind);
    }

    public static Map<OpKind, RefOp> all() {
        return Map.copyOf(OPS);
    }
}
