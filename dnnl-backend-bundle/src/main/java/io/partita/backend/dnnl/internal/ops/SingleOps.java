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
        return EnumSet.noneOf(OpKind.class);
    }

    public static Object describe(Op base, List<LogicalTensor> inputs, List<LogicalTensor> outputs, PostOpChain post,
            int[] postInputs) {
        throw new UnsupportedFeatureException("dnnl: no primitive for " + base.describe());
    }

    public static Primitive create(Object desc) {
        throw new UnsupportedFeatureException("dnnl: no primitive for descriptor " + desc);
    }
}
