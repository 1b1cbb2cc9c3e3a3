package io.partita.gpu.internal.plan;

import io.partita.graph.DataType;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.gpu.internal.codegen.Eltwise;

/** The ops, data types and shapes the kernels of this increment handle. */
final class Support {
    private Support() {
    }

    /** Copies: one strided elementwise kernel moves the elements. */
    static boolean isCopy(OpKind k) {
        return k == OpKind.StaticReshape || k == OpKind.StaticTranspose || k == OpKind.Reorder;
    }

    /** Heads of an elementwise kernel (with or without an epilogue). */
    static boolean isElementwise(OpKind k) {
        return Eltwise.isUnary(k) || Eltwise.isBinary(k) || k == OpKind.BiasAdd;
    }

    static boolean isReduction(OpKind k) {
        return switch (k) {
            case ReduceL1, ReduceL2, ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceSum -> true;
            default -> false;
        };
    }

    static boolean supports(Op op) {
        OpKind k = op.kind();
        boolean kind = isElementwise(k) || isCopy(k) || k == OpKind.MatMul || k == OpKind.LayerNorm || k == OpKind.Concat
                || (isReduction(k) && op.inputs().size() == 1 && op.hasAttr("axes"))
                || (k == OpKind.SoftMax && op.outputs().size() == 1)
                || ((k == OpKind.Convolution || k == OpKind.MaxPool || k == OpKind.AvgPool) && spatial(op));
        if (!kind) {
            return false;
        }
        for (LogicalTensor t : op.inputs()) {
            if (!usable(t)) {
                return false;
            }
        }
        for (LogicalTensor t : op.outputs()) {
            if (!usable(t)) {
                return false;
            }
        }
        return true;
    }

    /** One to three spatial dims: the kernels index 3-D geometry. */
    private static boolean spatial(Op op) {
        int r = op.input(0).ndims();
        return r >= 3 && r <= 5;
    }

    /** f32 with static dims; strided (or a layout left to the backend), never opaque. */
    private static boolean usable(LogicalTensor t) {
        return t.dataType() == DataType.F32 && t.isConcrete() && !t.hasDynamicDim()
                && t.layoutType() != LayoutType.OPAQUE;
    }

    /** True when {@code t} broadcasts (numpy, right-aligned) to {@code dims} without growing it. */
    static boolean broadcastsTo(LogicalTensor t, long[] dims) {
        long[] d = t.dims();
        if (d.length > dims.length) {
            return false;
        }
        for (int i = 0; i < d.length; i++) {
            long target = dims[dims.length - d.length + i];
            if (d[i] != 1 && d[i] != target) {
                return false;
            }
        }
        return true;
    }
}
