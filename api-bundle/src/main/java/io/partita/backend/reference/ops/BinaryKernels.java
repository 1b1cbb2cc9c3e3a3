package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;
import java.util.function.DoubleBinaryOperator;

import io.partita.backend.reference.Broadcasting;
import io.partita.backend.reference.RefContext;
import io.partita.backend.reference.RefOp;
import io.partita.backend.reference.RefTensor;
import io.partita.graph.OpKind;

/** Reference kernels of the binary elementwise ops and their relatives. */
public final class BinaryKernels {
    private BinaryKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.Add, binary(Double::sum));
    }

    /** A kernel applying f to broadcast pairs of inputs 0 and 1. */
    static RefOp binary(DoubleBinaryOperator f) {
        return (RefContext ctx) -> {
            RefTensor out = ctx.out(0);
            double[] a = ctx.in(0).data();
            double[] b = ctx.in(1).data();
            int[] ia = Broadcasting.offsets(out.dims(), ctx.in(0).dims());
            int[] ib = Broadcasting.offsets(out.dims(), ctx.in(1).dims());
            double[] dst = out.data();
            for (int i = 0; i < dst.length; i++) {
                dst[i] = f.applyAsDouble(a[ia[i]], b[ib[i]]);
            }
        };
    }
}
