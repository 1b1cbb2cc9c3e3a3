package io.partita.backend.compiler.internal.fusion;

import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * A chain of elementwise ops of one output dims, starting at one op and ending in the one op
 * whose output leaves: one generated pass over the rows.
 *
 * @param ops topologically ordered, the first the seed, the last the result's producer
 */
public record EltwiseShape(List<Op> ops) {

    public LogicalTensor result() {
        return ops.getLast().output(0);
    }

    public boolean hasDynamicDim() {
        for (Op op : ops) {
            for (LogicalTensor t : op.inputs()) {
                if (t.hasDynamicDim()) {
                    return true;
                }
            }
            if (op.output(0).hasDynamicDim()) {
                return true;
            }
        }
        return false;
    }

    /** The chain growing from {@code seed} through its consumers, or null when under two ops. */
    public static EltwiseShape from(Op seed, OpIndex index, Predicate<Op> available, LongPredicate leavesGraph) {
        if (!available.test(seed) || !Regions.elementwise(seed)) {
            return null;
        }
        long[] dims = seed.output(0).dims();
        if (dims.length < 1 || !Regions.joins(seed, dims)) {
            return null;
        }
        List<Op> rest = Regions.forward(seed.output(0).id(), dims, index, available, Set.of(), Set.of());
        List<Op> all = new java.util.ArrayList<>();
        all.add(seed);
        all.addAll(rest);
        // the seed's output is the start of the region: it may not leave unless the seed is the end
        all = cut(all, index, leavesGraph);
        while (all.size() >= 2 && !Regions.convex(all, index)) {
            all = cut(all.subList(0, all.size() - 1), index, leavesGraph);
        }
        return all.size() >= 2 ? new EltwiseShape(List.copyOf(all)) : null;
    }

    private static List<Op> cut(List<Op> ops, OpIndex index, LongPredicate leavesGraph) {
        List<Op> r = new java.util.ArrayList<>(ops);
        while (r.size() >= 2) {
            Set<Op> inside = new java.util.HashSet<>(r);
            boolean ok = true;
            for (Op op : r) {
                ok &= op == r.getLast() || !Regions.escapes(op.output(0).id(), inside, index, leavesGraph);
            }
            if (ok) {
                return r;
            }
            r.removeLast();
        }
        return r;
    }
}
