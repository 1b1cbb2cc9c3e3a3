package io.partita.backend.compiler.internal.fusion;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;

/**
 * A LayerNorm or RMSNorm over the last axis with the elementwise ops computing its src (a
 * residual Add, say) and those applied to its result (scale, shift, activation), all of the
 * src's dims. Fused, every row is produced, reduced, normalised and finished while in cache.
 *
 * @param pre       ops computing src, topologically ordered (empty when src is a partition input)
 * @param norm      the LayerNorm or RMSNorm
 * @param post      ops after it, topologically ordered; the last one's output is the result
 * @param srcLeaves whether src is also needed outside (an extra output, as a residual stream is)
 */
public record NormShape(List<Op> pre, Op norm, List<Op> post, boolean srcLeaves) {

    public List<Op> ops() {
        List<Op> all = new ArrayList<>(pre);
        all.add(norm);
        all.addAll(post);
        return all;
    }

    public boolean layerNorm() {
        return norm.kind() == OpKind.LayerNorm;
    }

    public LogicalTensor src() {
        return norm.input(0);
    }

    /** The tensor the fused code writes last: the post chain's result, else the norm's dst. */
    public LogicalTensor result() {
        return post.isEmpty() ? norm.output(0) : post.getLast().output(0);
    }

    /** LayerNorm's use_affine (ignoring gamma and beta when false, as the reference does). */
    public boolean affine() {
        if (layerNorm()) {
            return norm.attr("use_affine").map(AttrValue::asBool).orElse(true) && norm.inputs().size() == 3;
        }
        return norm.inputs().size() == 2;
    }

    public float epsilon() {
        return norm.attr("epsilon").map(AttrValue::asFloat).orElse(1e-5f);
    }

    /** The fused form around a normalisation op, or null (not f32, not over the last axis, ...). */
    public static NormShape around(Op norm, OpIndex index, Predicate<Op> available, LongPredicate leavesGraph) {
        if (!normalizes(norm) || !available.test(norm)) {
            return null;
        }
        long[] dims = norm.input(0).dims();
        long src = norm.input(0).id();
        List<Op> pre = pre(src, dims, norm, index, available, leavesGraph);
        for (int i = 1; i < norm.inputs().size(); i++) {
            if (pre.contains(index.producer(norm.input(i).id()))) {
                return null; // gamma/beta computed by the chain itself: read as partition inputs only
            }
        }
        Set<Op> excluded = new HashSet<>(pre);
        excluded.add(norm);
        List<Op> post = Regions.forward(norm.output(0).id(), dims, index, available, excluded,
                Set.of(src, norm.output(0).id()));
        post = Regions.singleExit(post, norm.output(0).id(), index, leavesGraph);
        for (int attempt = 0; attempt < 2; attempt++) {
            Set<Op> inside = new HashSet<>(excluded);
            inside.addAll(post);
            NormShape s = new NormShape(pre, norm, post, Regions.escapes(src, inside, index, leavesGraph));
            if (Regions.convex(s.ops(), index)) {
                return s;
            }
            post = List.of(); // a path through the post chain's operands leaves and comes back
        }
        return null;
    }

    /** The ops computing src: back from it while they join, less those whose results are needed elsewhere. */
    private static List<Op> pre(long src, long[] dims, Op norm, OpIndex index, Predicate<Op> available,
            LongPredicate leavesGraph) {
        // only src can be an extra output (a pre-LN residual stream)
        return Regions.backward(src, dims, norm, index, available, leavesGraph, t -> t == src);
    }

    /**
     * f32 LayerNorm (dst, or dst/mean/variance) or RMSNorm (dst, or dst/rrms) over the last axis,
     * gamma and beta per channel (all leading dims 1).
     */
    static boolean normalizes(Op op) {
        if (op.kind() != OpKind.LayerNorm && op.kind() != OpKind.RMSNorm) {
            return false;
        }
        for (LogicalTensor t : op.inputs()) {
            if (t.dataType() != DataType.F32 || t.dims() == null) {
                return false;
            }
        }
        for (LogicalTensor t : op.outputs()) {
            if (t.dataType() != DataType.F32) {
                return false;
            }
        }
        long[] d = op.input(0).dims();
        if (d.length < 1) {
            return false;
        }
        long axis = op.attr("begin_norm_axis").map(AttrValue::asLong).orElse(-1L);
        if ((axis < 0 ? axis + d.length : axis) != d.length - 1) {
            return false; // a multi-axis normalisation is left to the other backends
        }
        int outs = op.outputs().size();
        if (op.kind() == OpKind.LayerNorm ? outs != 1 && outs != 3 : outs > 2) {
            return false;
        }
        for (int i = 1; i < op.inputs().size(); i++) {
            if (!perChannel(op.input(i).dims(), d)) {
                return false;
            }
        }
        return true;
    }

    /** Dims [C] or [1, ..., C]: one value per position in the row. */
    private static boolean perChannel(long[] p, long[] src) {
        if (p.length == 0 || p.length > src.length) {
            return false;
        }
        for (int i = 0; i < p.length - 1; i++) {
            if (p[i] != 1) {
                return false;
            }
        }
        long c = p[p.length - 1];
        long s = src[src.length - 1];
        return c == s || c == 1 || c < 0 || s < 0;
    }
}
