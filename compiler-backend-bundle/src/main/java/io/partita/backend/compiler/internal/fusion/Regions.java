package io.partita.backend.compiler.internal.fusion;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
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
 * Elementwise regions of one fused dims: which ops may join, how a region is cut back to one
 * tensor leaving it, and whether a set of ops can be one partition at all.
 */
final class Regions {
    private Regions() {
    }

    /**
     * An op the row kernels compute: supported by the expression builder, f32 in and out with known
     * ranks. GenIndex is left out: fused row code here addresses flattened rows, not its axes.
     */
    static boolean elementwise(Op op) {
        if (!ExprBuilder.supports(op) || op.kind() == OpKind.GenIndex) {
            return false;
        }
        for (LogicalTensor t : op.inputs()) {
            if (t.dataType() != DataType.F32 || t.dims() == null) {
                return false;
            }
        }
        LogicalTensor o = op.output(0);
        return o.dataType() == DataType.F32 && o.dims() != null;
    }

    /**
     * Whether {@code d} broadcasts to {@code target} (numpy rules, aligned right). A dynamic dim
     * on either side passes: execution checks the real dims.
     */
    static boolean broadcastsTo(long[] d, long[] target) {
        if (d == null || d.length > target.length) {
            return false;
        }
        int shift = target.length - d.length;
        for (int i = 0; i < d.length; i++) {
            long a = d[i];
            long t = target[i + shift];
            if (a != 1 && a != t && a >= 0 && t >= 0) {
                return false;
            }
        }
        return true;
    }

    /** An elementwise op computing a tensor of exactly the fused dims from operands broadcasting to them. */
    static boolean joins(Op op, long[] dims) {
        if (!elementwise(op) || !java.util.Arrays.equals(op.output(0).dims(), dims)) {
            return false;
        }
        for (LogicalTensor t : op.inputs()) {
            if (!broadcastsTo(t.dims(), dims)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Grows forward from {@code start}: every op reading a tensor of the region that joins it.
     *
     * @param excluded ops of the partition's other parts, whose outputs the region reads only if
     *                 {@code allowed} (what fused code holds in its row buffer)
     */
    static List<Op> forward(long start, long[] dims, OpIndex index, Predicate<Op> available, Set<Op> excluded,
            Set<Long> allowed) {
        Set<Op> region = new java.util.LinkedHashSet<>();
        Deque<Long> todo = new ArrayDeque<>();
        todo.add(start);
        while (!todo.isEmpty()) {
            long t = todo.pop();
            for (Op c : index.consumers(t)) {
                if (region.contains(c) || excluded.contains(c) || !available.test(c) || !joins(c, dims)) {
                    continue;
                }
                boolean fromExcluded = false;
                for (LogicalTensor in : c.inputs()) {
                    Op p = index.producer(in.id());
                    fromExcluded |= p != null && excluded.contains(p) && !allowed.contains(in.id());
                }
                if (fromExcluded) {
                    continue; // reads the middle of another part of the partition
                }
                region.add(c);
                todo.add(c.output(0).id());
            }
        }
        List<Op> r = new java.util.ArrayList<>(region);
        r.sort(java.util.Comparator.comparingInt(index::position));
        return r;
    }

    /**
     * Cuts the region (topologically ordered) from its end until only its last op's output leaves
     * it (and {@code start}, the tensor it grew from, stays inside): fused code writes one result.
     */
    static List<Op> singleExit(List<Op> region, long start, OpIndex index, LongPredicate leavesGraph) {
        List<Op> r = new java.util.ArrayList<>(region);
        while (!r.isEmpty()) {
            Set<Op> inside = new HashSet<>(r);
            Op last = r.getLast();
            boolean ok = !escapes(start, inside, index, leavesGraph);
            for (Op op : r) {
                ok &= op == last || !escapes(op.output(0).id(), inside, index, leavesGraph);
            }
            if (ok) {
                return r;
            }
            r.removeLast();
        }
        return r;
    }

    /**
     * The ops computing {@code start} for {@code sink}: back from it while they join {@code dims}
     * and {@code takes} accepts them, less those whose results are read outside the region and the
     * sink (the fused code writes none of them; those {@code mayLeave} accepts may leave as well),
     * in graph order.
     */
    static List<Op> backward(long start, long[] dims, Op sink, OpIndex index, Predicate<Op> takes,
            LongPredicate leavesGraph, LongPredicate mayLeave) {
        Set<Op> region = new java.util.LinkedHashSet<>();
        Deque<Long> todo = new ArrayDeque<>();
        todo.add(start);
        Set<Long> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            long t = todo.pop();
            Op p = index.producer(t);
            if (!seen.add(t) || p == null || !takes.test(p) || !joins(p, dims)) {
                continue;
            }
            region.add(p);
            for (LogicalTensor in : p.inputs()) {
                todo.push(in.id());
            }
        }
        // an intermediate read outside stays outside, and with it everything it needs: repeat until stable
        boolean changed = true;
        while (changed) {
            changed = false;
            Set<Op> inside = new HashSet<>(region);
            inside.add(sink);
            for (Op op : List.copyOf(region)) {
                long out = op.output(0).id();
                if (!mayLeave.test(out) && escapes(out, inside, index, leavesGraph)) {
                    region.remove(op);
                    changed = true;
                }
            }
        }
        List<Op> r = new java.util.ArrayList<>(region);
        r.sort(java.util.Comparator.comparingInt(index::position));
        return r;
    }

    static boolean escapes(long tensor, Set<Op> inside, OpIndex index, LongPredicate leavesGraph) {
        if (leavesGraph.test(tensor)) {
            return true;
        }
        for (Op c : index.consumers(tensor)) {
            if (!inside.contains(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether no path leaves the ops and comes back: otherwise the partition and the ops on that
     * path would need each other's outputs first.
     */
    static boolean convex(Collection<Op> ops, OpIndex index) {
        Set<Op> inside = new HashSet<>(ops);
        Deque<Op> todo = new ArrayDeque<>();
        for (Op op : ops) {
            for (LogicalTensor t : op.outputs()) {
                for (Op c : index.consumers(t.id())) {
                    if (!inside.contains(c)) {
                        todo.add(c);
                    }
                }
            }
        }
        Set<Op> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            Op op = todo.pop();
            if (inside.contains(op)) {
                return false;
            }
            if (!seen.add(op)) {
                continue;
            }
            for (LogicalTensor t : op.outputs()) {
                todo.addAll(index.consumers(t.id()));
            }
        }
        return true;
    }
}
