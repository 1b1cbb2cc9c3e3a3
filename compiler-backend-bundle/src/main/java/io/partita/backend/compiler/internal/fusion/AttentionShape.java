package io.partita.backend.compiler.internal.fusion;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
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
 * The attention form {@code MatMul(Q, K) -> elementwise score ops -> SoftMax(last axis) ->
 * MatMul(., V)}, with view ops before the inputs and after the output: what the graph compiler
 * fuses into one flash-attention loop. Found from the SoftMax outwards, over a whole graph while
 * claiming and over one partition while compiling.
 *
 * @param qk       the first MatMul
 * @param scoreOps elementwise ops between it and the SoftMax, topologically ordered
 * @param softmax  the SoftMax
 * @param pv       the second MatMul
 * @param prefix   view ops feeding Q, K, V and score operands
 * @param suffix   view ops after the second MatMul, in order
 */
public record AttentionShape(Op qk, List<Op> scoreOps, Op softmax, Op pv, List<Op> prefix, List<Op> suffix) {

    /** All ops, topologically ordered within each group. */
    public List<Op> ops() {
        List<Op> all = new ArrayList<>(prefix);
        all.add(qk);
        all.addAll(scoreOps);
        all.add(softmax);
        all.add(pv);
        all.addAll(suffix);
        return all;
    }

    /**
     * The attention around a SoftMax, or null.
     *
     * @param available   whether an op may join (not claimed by another backend)
     * @param leavesGraph whether a tensor is needed outside (a graph output or read by other ops)
     */
    public static AttentionShape around(Op softmax, OpIndex index, Predicate<Op> available, LongPredicate leavesGraph) {
        if (softmax.kind() != OpKind.SoftMax || !f32(softmax.input(0)) || !available.test(softmax)) {
            return null;
        }
        long[] sd = softmax.input(0).dims();
        if (sd == null || sd.length < 2) {
            return null;
        }
        long axis = softmax.hasAttr("axis") ? softmax.longAttr("axis") : 1;
        if ((axis < 0 ? axis + sd.length : axis) != sd.length - 1) {
            return null;
        }
        long probs = softmax.output(0).id();
        Op pv = index.soleConsumer(probs);
        if (pv == null || pv.kind() != OpKind.MatMul || pv.input(0).id() != probs || pv.inputs().size() != 2
                || pv.boolAttr("transpose_a") || !available.test(pv) || leavesGraph.test(probs)
                || !f32(pv.input(1)) || !f32(pv.output(0))) {
            return null;
        }
        // Backwards from the SoftMax through elementwise ops to exactly one MatMul.
        Set<Op> region = new LinkedHashSet<>();
        Op qk = null;
        Deque<Long> todo = new ArrayDeque<>();
        todo.add(softmax.input(0).id());
        Set<Long> seen = new java.util.HashSet<>();
        while (!todo.isEmpty()) {
            long t = todo.pop();
            if (!seen.add(t)) {
                continue;
            }
            Op p = index.producer(t);
            if (p == null || !available.test(p)) {
                continue; // an operand from outside
            }
            if (p.kind() == OpKind.MatMul && p.inputs().size() == 2 && !p.boolAttr("transpose_a")
                    && java.util.Arrays.equals(p.output(0).dims(), sd)) {
                if (qk != null && qk != p) {
                    return null;
                }
                qk = p;
                continue;
            }
            if (ExprBuilder.supports(p) && scoreShaped(p, sd)) {
                region.add(p);
                for (LogicalTensor in : p.inputs()) {
                    todo.push(in.id());
                }
            }
        }
        if (qk == null || !f32(qk.input(0)) || !f32(qk.input(1)) || !exact(qk.output(0))
                || !exact(softmax.input(0))) {
            return null;
        }
        for (Op op : region) {
            if (!exact(op.output(0))) {
                return null; // a bf16/f16 score would be rounded between ops; the fused loop keeps f32
            }
        }
        // Every value inside stays inside (nothing materialised is read elsewhere).
        Set<Op> inside = new java.util.HashSet<>(region);
        inside.add(softmax);
        inside.add(qk);
        for (Op op : inside) {
            if (op == softmax) {
                continue;
            }
            long out = op.output(0).id();
            if (leavesGraph.test(out)) {
                return null;
            }
            for (Op c : index.consumers(out)) {
                if (!inside.contains(c)) {
                    return null;
                }
            }
        }
        List<Op> scoreOps = new ArrayList<>(region);
        scoreOps.sort(java.util.Comparator.comparingInt(index::position));
        List<Op> prefix = new ArrayList<>();
        Set<Op> core = new java.util.HashSet<>(inside);
        core.add(pv);
        for (Op op : List.copyOf(core)) {
            for (LogicalTensor in : op.inputs()) {
                collectViews(in.id(), OpIndex.VIEWS, index, available, leavesGraph, core, prefix);
            }
        }
        List<Op> suffix = new ArrayList<>();
        long t = pv.output(0).id();
        while (!leavesGraph.test(t)) {
            Op c = index.soleConsumer(t);
            if (c == null || !OpIndex.VIEWS.contains(c.kind()) || !available.test(c) || !f32(c.output(0))) {
                break;
            }
            suffix.add(c);
            t = c.output(0).id();
        }
        return new AttentionShape(qk, scoreOps, softmax, pv, prefix, suffix);
    }

    /** Adds the view ops of the given kinds producing a tensor (and theirs) when nothing else reads their outputs. */
    static void collectViews(long tensor, Set<OpKind> views, OpIndex index, Predicate<Op> available,
            LongPredicate leavesGraph, Set<Op> core, List<Op> prefix) {
        Op p = index.producer(tensor);
        if (p == null || !views.contains(p.kind()) || !available.test(p) || core.contains(p)
                || leavesGraph.test(tensor) || !f32(p.output(0))) {
            return;
        }
        for (Op c : index.consumers(tensor)) {
            if (!core.contains(c)) {
                return;
            }
        }
        core.add(p);
        collectViews(p.input(0).id(), views, index, available, leavesGraph, core, prefix);
        prefix.add(p); // after its own producers
    }

    private static boolean scoreShaped(Op op, long[] scoreDims) {
        return java.util.Arrays.equals(op.output(0).dims(), scoreDims);
    }

    /** Values the fused loop holds without rounding: f32 scores, integer indices, boolean conditions. */
    private static boolean exact(LogicalTensor t) {
        return t.dataType() == DataType.F32 || t.dataType() == DataType.S32 || t.dataType() == DataType.BOOLEAN;
    }

    /** f32, or bf16/f16 widened on load and rounded on store (the loop itself computes in f32). */
    static boolean f32(LogicalTensor t) {
        return t.dataType() == DataType.F32 || t.dataType() == DataType.BF16 || t.dataType() == DataType.F16;
    }
}
