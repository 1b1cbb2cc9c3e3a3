package io.partita.gpu.internal.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;

/**
 * Splits ops into kernel groups: a MatMul, Convolution or elementwise op with the chain of
 * elementwise ops that follows it (each the only reader of the previous result, same dims, the
 * other operand broadcast into them), evaluated by one kernel as its epilogue; every other op
 * alone. Used when claiming (on the whole graph) and when planning a claimed partition.
 */
final class Groups {
    private Groups() {
    }

    /** One kernel's ops, head first, and its name (e.g. {@code matmul_biasadd_relu}). */
    record Group(List<Op> ops, String name) {
    }

    /** What grouping needs to know of the ops around. */
    interface View {
        /** The ops in topological order. */
        List<Op> ops();

        /** Whether the op may be grouped (supported, not taken by another backend). */
        boolean available(Op op);

        /** Whether the tensor is read outside (a graph or partition output). */
        boolean leaves(long tensorId);

        /** The ops reading a tensor. */
        List<Op> consumers(long tensorId);
    }

    static List<Group> split(View view, boolean fuse) {
        List<Group> groups = new ArrayList<>();
        Set<Long> taken = new HashSet<>();
        for (Op op : view.ops()) {
            if (taken.contains(op.id()) || !view.available(op)) {
                continue;
            }
            List<Op> ops = new ArrayList<>();
            ops.add(op);
            StringBuilder name = new StringBuilder(op.kind().spelling().toLowerCase(Locale.ROOT));
            boolean head = op.kind() == OpKind.MatMul || op.kind() == OpKind.Convolution || Support.isElementwise(op.kind());
            Op cur = op;
            while (head && fuse) {
                Op next = nextPostOp(view, cur, taken);
                if (next == null) {
                    break;
                }
                ops.add(next);
                name.append('_').append(next.kind().spelling().toLowerCase(Locale.ROOT));
                cur = next;
            }
            ops.forEach(o -> taken.add(o.id()));
            groups.add(new Group(List.copyOf(ops), name.toString()));
        }
        return groups;
    }

    /** The op that can join the chain after {@code cur}, or null. */
    private static Op nextPostOp(View view, Op cur, Set<Long> taken) {
        if (cur.outputs().size() != 1) {
            return null;
        }
        LogicalTensor v = cur.output(0);
        if (view.leaves(v.id())) {
            return null;
        }
        List<Op> readers = view.consumers(v.id());
        if (readers.size() != 1) {
            return null;
        }
        Op next = readers.get(0);
        if (taken.contains(next.id()) || !view.available(next) || !Support.isElementwise(next.kind())
                || next.outputs().size() != 1 || !Arrays.equals(next.output(0).dims(), v.dims())) {
            return null;
        }
        if (next.inputs().size() == 1) {
            return next;
        }
        if (next.inputs().size() != 2) {
            return null;
        }
        boolean first = next.input(0).id() == v.id();
        boolean second = next.input(1).id() == v.id();
        if (first == second) {
            return null; // both operands are the chain's value (x * x): not an epilogue with one extra operand
        }
        if (next.kind() == OpKind.BiasAdd) {
            return first ? next : null;
        }
        LogicalTensor other = next.input(first ? 1 : 0);
        return Support.broadcastsTo(other, v.dims()) ? next : null;
    }

    /** A view of a claimed partition's ops: every op available, the partition outputs leave. */
    static View of(List<Op> ops, List<LogicalTensor> outputs) {
        Map<Long, List<Op>> readers = new HashMap<>();
        for (Op op : ops) {
            for (LogicalTensor t : op.inputs()) {
                List<Op> r = readers.computeIfAbsent(t.id(), k -> new ArrayList<>());
                if (!r.contains(op)) {
                    r.add(op);
                }
            }
        }
        Set<Long> out = new HashSet<>();
        outputs.forEach(t -> out.add(t.id()));
        return new View() {
            @Override
            public List<Op> ops() {
                return ops;
            }

            @Override
            public boolean available(Op op) {
                return true;
            }

            @Override
            public boolean leaves(long tensorId) {
                return out.contains(tensorId);
            }

            @Override
            public List<Op> consumers(long tensorId) {
                return readers.getOrDefault(tensorId, List.of());
            }
        };
    }
}
