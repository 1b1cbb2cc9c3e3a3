package io.partita.backend.compiler.internal.fusion;

import java.util.ArrayDeque;
import java.util.ArrayList;
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
 * The (gated) MLP form: up-projection MatMuls reading the same X (one, or two for the gate and
 * the up projection), an elementwise combination of their results (activation, gating product,
 * bias), and the down-projection MatMul. Fused, the hidden activation exists one row block at a
 * time only.
 *
 * @param up      the up-projection MatMuls (X first), one or two
 * @param hidden  the elementwise ops between them and the down projection, topologically ordered
 * @param down    the down-projection MatMul
 */
public record MlpShape(List<Op> up, List<Op> hidden, Op down) {

    public boolean gated() {
        return up.size() == 2;
    }

    public List<Op> ops() {
        List<Op> all = new ArrayList<>(up);
        all.addAll(hidden);
        all.add(down);
        return all;
    }

    /**
     * The MLP ending in a MatMul, or null.
     *
     * @param requireGate only gated MLPs (a single up projection with an epilogue is the
     *                    DNNL-style backend's pattern for static shapes)
     */
    public static MlpShape ending(Op down, OpIndex index, Predicate<Op> available, LongPredicate leavesGraph,
            boolean requireGate) {
        if (!plainMatMul(down) || !available.test(down)) {
            return null;
        }
        long[] hd = down.input(0).dims();
        if (hd == null || hd.length < 2) {
            return null;
        }
        Set<Op> region = new LinkedHashSet<>();
        List<Op> up = new ArrayList<>();
        Deque<Long> todo = new ArrayDeque<>();
        todo.add(down.input(0).id());
        Set<Long> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            long t = todo.pop();
            if (!seen.add(t)) {
                continue;
            }
            Op p = index.producer(t);
            if (p == null || !available.test(p)) {
                continue;
            }
            if (plainMatMul(p) && java.util.Arrays.equals(p.output(0).dims(), hd)) {
                if (!up.contains(p)) {
                    up.add(p);
                }
                continue;
            }
            if (ExprBuilder.supports(p) && java.util.Arrays.equals(p.output(0).dims(), hd)) {
                region.add(p);
                for (LogicalTensor in : p.inputs()) {
                    todo.push(in.id());
                }
            }
        }
        if (up.isEmpty() || up.size() > 2 || (requireGate && up.size() != 2) || region.isEmpty()) {
            return null;
        }
        if (up.size() == 2 && up.get(0).input(0).id() != up.get(1).input(0).id()) {
            return null;
        }
        Set<Op> inside = new HashSet<>(region);
        inside.addAll(up);
        inside.add(down);
        for (Op op : inside) {
            if (op == down) {
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
        up.sort(java.util.Comparator.comparingInt(index::position));
        List<Op> hidden = new ArrayList<>(region);
        hidden.sort(java.util.Comparator.comparingInt(index::position));
        return new MlpShape(up, hidden, down);
    }

    /** f32 MatMul without bias or transposed A, 2-D weights. */
    private static boolean plainMatMul(Op op) {
        if (op.kind() != OpKind.MatMul || op.inputs().size() != 2 || op.boolAttr("transpose_a")) {
            return false;
        }
        for (LogicalTensor t : List.of(op.input(0), op.input(1), op.output(0))) {
            if (t.dataType() != DataType.F32) {
                return false;
            }
        }
        long[] w = op.input(1).dims();
        return w != null && w.length == 2 && op.input(0).dims() != null && op.input(0).dims().length >= 2;
    }
}
