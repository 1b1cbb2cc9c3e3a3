package io.partita.backend.dnnl.internal.ops;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.UnsupportedFeatureException;

/** Single-op primitives (softmax, normalization, pooling, reduction, data movement): which exist and how to make them. */
public final class SingleOps {
    private SingleOps() {
    }

    /** Kinds with a single-op primitive here. */
    public static Set<OpKind> kinds() {
        return EnumSet.of(OpKind.SoftMax, OpKind.LayerNorm, OpKind.MaxPool, OpKind.AvgPool, OpKind.ReduceSum,
                OpKind.ReduceMean, OpKind.Reorder, OpKind.TypeCast, OpKind.StaticReshape, OpKind.StaticTranspose,
                OpKind.Concat);
    }

    /**
     * The descriptor of a partition made of {@code base} and its post-op chain {@code post}
     * (SoftMax, pooling and reductions carry one; its binary operands are the partition inputs
     * {@code postInputs}). Output 0 is the partition's final value.
     */
    public static Object describe(Op base, List<LogicalTensor> inputs, List<LogicalTensor> outputs, PostOpChain post,
            int[] postInputs) {
        LogicalTensor dst = outputs.get(0);
        boolean chained = !post.isEmpty();
        return switch (base.kind()) {
            case SoftMax -> SoftMaxPrimitive.describe(base, inputs, outputs, post, postInputs);
            case MaxPool, AvgPool -> PoolPrimitive.describe(base, inputs, dst, post, postInputs);
            case ReduceSum, ReduceMean -> ReducePrimitive.describe(base, inputs, dst, post, postInputs);
            case LayerNorm -> {
                noChain(base, chained);
                yield LayerNormPrimitive.describe(base, inputs, outputs);
            }
            case Reorder, TypeCast, StaticReshape, StaticTranspose, Concat -> {
                noChain(base, chained);
                yield CopyPrimitive.describe(base, inputs, dst);
            }
            default -> throw new UnsupportedFeatureException("dnnl: no primitive for " + base.describe());
        };
    }

    private static void noChain(Op base, boolean chained) {
        if (chained) {
            throw new UnsupportedFeatureException("dnnl: " + base.describe() + " takes no post-ops");
        }
    }

    public static Primitive create(Object desc) {
        return switch (desc) {
            case SoftMaxPrimitive.Desc d -> new SoftMaxPrimitive(d);
            case LayerNormPrimitive.Desc d -> new LayerNormPrimitive(d);
            case PoolPrimitive.Desc d -> new PoolPrimitive(d);
            case ReducePrimitive.Desc d -> new ReducePrimitive(d);
            case CopyPrimitive.Desc d -> new CopyPrimitive(d);
            default -> throw new UnsupportedFeatureException("dnnl: no primitive for descriptor " + desc);
        };
    }
}
