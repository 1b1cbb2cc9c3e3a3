package io.partita.backend.compiler.internal.fusion;

import static io.partita.backend.compiler.internal.fusion.AttentionShape.f32;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

import io.partita.backend.compiler.internal.expr.ExprBuilder;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;

/**
 * Attention written the other way round, as JAX exports multi-query attention:
 * {@code MatMul(X, Y) -> reshape/transpose -> score ops -> SoftMax(last axis) -> transpose/reshape
 * -> MatMul(V, .)}. The first MatMul's rows become the SoftMax's rows, and the second contracts
 * over them (it reads the probabilities as its right operand), so each output column is a sum
 * over whole probability rows: the fused loop needs every row's softmax complete before it is
 * used, unlike the flash form, and accumulates the transposed output. Found structurally here;
 * whether the views line up (the score tensor's rows are the MatMul's rows, the probabilities
 * are the score tensor viewed back) is decided from the dims by the program.
 *
 * @param qk       the first MatMul
 * @param qkViews  the view ops from its output to the score tensor, in order
 * @param scoreOps elementwise ops between the views and the SoftMax, topologically ordered
 * @param softmax  the SoftMax
 * @param pvViews  the view ops from the probabilities to the second MatMul's right operand, in order
 * @param pv       the second MatMul
 * @param prefix   view ops feeding the MatMul operands and the score operands
 * @param suffix   view ops after the second MatMul, in order
 */
public record TransposedAttentionShape(Op qk, List<Op> qkViews, List<Op> scoreOps, Op softmax, List<Op> pvViews, Op pv,
        List<Op> prefix, List<Op> suffix) {
    private static final Set<OpKind> STATIC_VIEWS = Set.of(OpKind.StaticReshape, OpKind.StaticTranspose);

    /** All ops, topologically ordered within each group. */
    public List<Op> ops() {
        List<Op> all = new ArrayList<>(prefix);
        all.add(qk);
        all.addAll(qkViews);
        all.addAll(scoreOps);
        all.add(softmax);
        all.addAll(pvViews);
        all.add(pv);
        all.addAll(suffix);
        return all;
    }

    /** The tensor the score ops start from (the last view's output). */
    public LogicalTensor scoreSource() {
        return qkViews.isEmpty() ? qk.output(0) : qkViews.getLast().output(0);
    }

    /**
     * The transposed attention around a SoftMax, or null. Static dims only: the layout check
     * needs them at claim time.
     *
     * @param available   whether an op may join (not claimed by another backend)
     * @param leavesGraph whether a tensor is needed outside (a graph output or read by other ops)
     */
    public static TransposedAttentionShape around(Op softmax, OpIndex index, Predicate<Op> available,
            LongPredicate leavesGraph) {
        if (softmax.kind() != OpKind.SoftMax || softmax.outputs().size() != 1 || !f32(softmax.input(0))
                || !available.test(softmax)) {
            return null;
        }
        long[] sd = softmax.input(0).dims();
        if (sd == null || sd.length < 2 || softmax.input(0).hasDynamicDim()) {
            return null;
        }
        long axis = softmax.hasAttr("axis") ? softmax.longAttr("axis") : 1;
        if ((axis < 0 ? axis + sd.length : axis) != sd.length - 1) {
            return null;
        }
        // Forwards from the probabilities through static views to the right operand of a MatMul.
        List<Op> pvViews = new ArrayList<>();
        long t = softmax.output(0).id();
        Op pv;
        for (;;) {
            if (leavesGraph.test(t)) {
                return null;
            }
            Op c = index.soleConsumer(t);
            if (c == null || !available.test(c)) {
                return null;
            }
            if (c.kind() == OpKind.MatMul) {
                pv = c;
                break;
            }
            if (!STATIC_VIEWS.contains(c.kind())) {
                return null;
            }
            pvViews.add(c);
            t = c.output(0).id();
        }
        if (pv.inputs().size() != 2 || pv.input(1).id() != t || pv.input(0).id() == t || pv.boolAttr("transpose_b")
                || !f32(pv.input(0)) || !f32(pv.output(0)) || pv.output(0).hasDynamicDim()) {
            return null;
        }
        // Backwards from the SoftMax through elementwise ops to a chain of views ending at a MatMul.
        Set<Op> region = new LinkedHashSet<>();
        Op qk = null;
        List<Op> qkViews = null;
        Deque<Long> todo = new ArrayDeque<>();
        todo.add(softmax.input(0).id());
        Set<Long> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            long x = todo.pop();
            if (!seen.add(x)) {
                continue;
            }
            Op p = index.producer(x);
            if (p == null || !available.test(p)) {
                continue; // an operand from outside
            }
            if (ExprBuilder.supports(p) && java.util.Arrays.equals(p.output(0).dims(), sd)) {
                region.add(p);
                for (LogicalTensor in : p.inputs()) {
                    todo.push(in.id());
                }
                continue;
            }
            List<Op> views = new ArrayList<>();
            Op q = p;
            while (q != null && STATIC_VIEWS.contains(q.kind()) && available.test(q)) {
                views.addFirst(q);
                q = index.producer(q.input(0).id());
            }
            if (q == null || q.kind() != OpKind.MatMul || !available.test(q)
                    || !java.util.Arrays.equals((views.isEmpty() ? q : views.getLast()).output(0).dims(), sd)) {
                continue; // a view of an input: an operand, its views are collected with the prefix
            }
            if (qk != null) {
                return null; // two products feeding the scores
            }
            qk = q;
            qkViews = views;
        }
        if (qk == null || qk.inputs().size() != 2 || qk.boolAttr("transpose_a") || !f32(qk.input(0))
                || !f32(qk.input(1)) || qk.output(0).dataType() != DataType.F32 || qk.output(0).hasDynamicDim()) {
            return null;
        }
        // Everything computed inside stays inside.
        Set<Op> inside = new HashSet<>(region);
        inside.add(qk);
        inside.addAll(qkViews);
        inside.add(softmax);
        inside.addAll(pvViews);
        for (Op op : inside) {
            if (op != softmax && !pvViews.contains(op) && !staysInside(op, inside, index, leavesGraph)) {
                return null;
            }
            if (op != qk && op.output(0).dataType() != DataType.F32 && region.contains(op)) {
                return null; // a rounded score between ops: the fused loop keeps f32
            }
        }
        List<Op> scoreOps = new ArrayList<>(region);
        scoreOps.sort(Comparator.comparingInt(index::position));
        Set<Op> core = new HashSet<>(inside);
        core.add(pv);
        List<Op> prefix = new ArrayList<>();
        for (Op op : List.copyOf(core)) {
            for (LogicalTensor in : op.inputs()) {
                AttentionShape.collectViews(in.id(), STATIC_VIEWS, index, available, leavesGraph, core, prefix);
            }
        }
        List<Op> suffix = new ArrayList<>();
        long out = pv.output(0).id();
        while (!leavesGraph.test(out)) {
            Op c = index.soleConsumer(out);
            if (c == null || !STATIC_VIEWS.contains(c.kind()) || !available.test(c) || !f32(c.output(0))) {
                break;
            }
            suffix.add(c);
            out = c.output(0).id();
        }
        return new TransposedAttentionShape(qk, List.copyOf(qkViews), scoreOps, softmax, List.copyOf(pvViews), pv,
                prefix, suffix);
    }

    private static boolean staysInside(Op op, Set<Op> inside, OpIndex index, LongPredicate leavesGraph) {
        long out = op.output(0).id();
        if (leavesGraph.test(out)) {
            return false;
        }
        for (Op c : index.consumers(out)) {
            if (!inside.contains(c)) {
                return false;
            }
        }
        return true;
    }
}
