package io.partita.gpu.internal.plan;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.spi.Claim;
import io.partita.spi.GraphView;

/**
 * Claims, in topological order: a MatMul or elementwise op together with the chain of
 * elementwise ops that follows it (each the only reader of the previous result, same dims, other
 * operand broadcast into them) as one partition whose epilogue the kernel evaluates in registers;
 * every other supported op alone. The DEBUG policy claims single ops only.
 */
public final class Claims {
    private Claims() {
    }

    public static List<Claim> claim(GraphView graph, PartitionPolicy policy) {
        List<Claim> claims = new ArrayList<>();
        Set<Long> taken = new HashSet<>();
        for (Op op : graph.ops()) {
            if (graph.isClaimed(op.id()) || taken.contains(op.id()) || !Support.supports(op)) {
                continue;
            }
            Set<Long> ids = new LinkedHashSet<>();
            ids.add(op.id());
            StringBuilder name = new StringBuilder(op.kind().spelling().toLowerCase(java.util.Locale.ROOT));
            boolean fusable = op.kind() == OpKind.MatMul || op.kind() == OpKind.Convolution
                    || Support.isElementwise(op.kind());
            Op cur = op;
            while (fusable && policy != PartitionPolicy.DEBUG) {
                Op next = nextPostOp(graph, cur, taken);
                if (next == null) {
                    break;
                }
                ids.add(next.id());
                name.append('_').append(next.kind().spelling().toLowerCase(java.util.Locale.ROOT));
                cur = next;
            }
            taken.addAll(ids);
            claims.add(new Claim(ids, name.toString()));
        }
        return claims;
    }

    /** The op that can join the chain after {@code cur}, or null. */
    private static Op nextPostOp(GraphView graph, Op cur, Set<Long> taken) {
        if (cur.outputs().size() != 1) {
            return null;
        }
        LogicalTensor v = cur.output(0);
        if (graph.isGraphOutput(v.id())) {
            return null;
        }
        List<Op> readers = graph.consumers(v.id());
        if (readers.size() != 1) {
            return null;
        }
        Op next = readers.get(0);
        if (graph.isClaimed(next.id()) || taken.contains(next.id()) || !Support.supports(next)
                || !Support.isElementwise(next.kind()) || next.outputs().size() != 1
                || !java.util.Arrays.equals(next.output(0).dims(), v.dims())) {
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
}
