package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;
import java.util.function.DoubleUnaryOperator;

import io.partita.backend.reference.RefContext;
import io.partita.backend.reference.RefOp;
import io.partita.graph.OpKind;

/** Reference kernels of the unary elementwise ops. */
public final class EltwiseKernels {
    private EltwiseKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.ReLU, unary(x -> x > 0 ? x : 0));
    }

    /** A kernel applying f to every element of input 0. */
    static RefOp unary(DoubleUnaryOperator f) {
        return (RefContext ctx) -> {
            double[] src = ctx.in(0).data();
            double[] dst = ctx.out(0).data();
            for (int i = 0; i < src.length; i++) {
                dst[i] = f.applyAsDouble(src[i]);
            }
        };
    }
}
