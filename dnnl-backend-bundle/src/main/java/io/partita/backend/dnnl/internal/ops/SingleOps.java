package io.partita.backend.dnnl.internal.ops;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.UnsupportedFeatureException;

/**
 * Single-op primitives (softmax, normalization, pooling, reduction, data movement, and the Partita
 * extension ops on real networks' hot paths: LRN, Gather, Slice and Pad): which exist and how to make them.
 */
public final class SingleOps {
    private SingleOps() {
    }

    /** Kinds with a single-op primitive here. */
    public static Set<OpKind> kinds() {
        return EnumSet.of(OpKind.BiasAdd, OpKind.SoftMax, OpKind.LayerNorm, OpKind.MaxPool, OpKind.AvgPool,
                OpKind.ReduceSum, OpKind.ReduceMean, OpKind.Reorder, OpKind.TypeCast, OpKind.StaticReshape,
                OpKind.StaticTranspose, OpKind.Concat, OpKind.PartitaLRN, OpKind.PartitaGather,
                OpKind.PartitaSlice, OpKind.PartitaPad);
    }

    /**
     * The descriptor of a partition made of {@code base} and its post-op chain {@code post}
     * (SoftMax, pooling, reductions and BiasAdd carry one; its binary operands are the partition inputs
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
            case BiasAdd -> biasAdd(base, inputs, dst, post, postInputs);
            case PartitaLRN -> {
                noChain(base, chained);
                yield LrnPrimitive.describe(base, inputs, dst);
            }
            case PartitaGather -> {
                noChain(base, chained);
                yield GatherPrimitive.describe(base, inputs, dst);
            }
            case PartitaSlice, PartitaPad -> {
                noChain(base, chained);
                yield IndexMapPrimitive.describe(base, inputs, dst);
            }
            case Reorder, TypeCast, StaticReshape, StaticTranspose, Concat -> {
                noChain(base, chained);
                yield CopyPrimitive.describe(base, inputs, dst);
            }
            default -> throw new UnsupportedFeatureException("dnnl: no primitive for " + base.describe());
        };
    }

    /**
     * A BiasAdd on its own (not after a MatMul or Convolution): an element-wise add whose bias
     * operand steps along the channel dim only, then its post-op chain.
     */
    private static ElementwisePrimitive.Desc biasAdd(Op op, List<LogicalTensor> inputs, LogicalTensor dst,
            PostOpChain post, int[] postInputs) {
        LogicalTensor src = Views.port(inputs, op.input(0));
        LogicalTensor bias = Views.port(inputs, op.input(1));
        long[] dims = dst.dims();
        long[] biasStrides = new long[dims.length];
        biasStrides[ncx(op) ? 1 : dims.length - 1] = bias.strides()[0];
        List<PostOpChain.Step> steps = new ArrayList<>();
        steps.add(new PostOpChain.Load(0, src.strides()));
        steps.add(new PostOpChain.Bin(OpKind.Add, 1, biasStrides, false));
        for (PostOpChain.Step st : post.steps()) {
            steps.add(st instanceof PostOpChain.Bin b
                    ? new PostOpChain.Bin(b.kind(), b.operand() + 2, b.strides(), b.chainIsRight()) : st);
        }
        int[] operands = new int[2 + postInputs.length];
        operands[0] = Views.indexOf(inputs, src.id());
        operands[1] = Views.indexOf(inputs, bias.id());
        System.arraycopy(postInputs, 0, operands, 2, postInputs.length);
        return new ElementwisePrimitive.Desc(dims, new PostOpChain(dims, steps), operands);
    }

    private static boolean ncx(Op op) {
        return op.hasAttr("data_format") && "NCX".equals(op.stringAttr("data_format"));
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
            case LrnPrimitive.Desc d -> new LrnPrimitive(d);
            case GatherPrimitive.Desc d -> new GatherPrimitive(d);
            case IndexMapPrimitive.Desc d -> new IndexMapPrimitive(d);
            default -> throw new UnsupportedFeatureException("dnnl: no primitive for descriptor " + desc);
        };
    }
}
