package io.partita.backend.compiler.internal.fusion;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.partita.graph.Op;
import io.partita.graph.OpKind;

/**
 * Producers and consumers over a list of ops: the same questions asked of the whole graph while
 * claiming and of one partition while compiling.
 */
public final class OpIndex {
    /**
     * Ops that only view their input's memory differently; fused code folds them into strides.
     * The dynamic ones take their shape or order from a tensor read at execution.
     */
    public static final Set<OpKind> VIEWS = Set.of(OpKind.StaticReshape, OpKind.StaticTranspose, OpKind.Reorder,
            OpKind.DynamicReshape, OpKind.DynamicTranspose);

    private final Map<Long, Op> producer = new HashMap<>();
    private final Map<Long, List<Op>> consumers = new HashMap<>();
    private final Map<Long, Integer> position = new HashMap<>();

    /** @param ops in topological order */
    public OpIndex(List<Op> ops) {
        for (Op op : ops) {
            position.put(op.id(), position.size());
            for (var t : op.outputs()) {
                producer.put(t.id(), op);
            }
            for (var t : op.inputs()) {
                consumers.computeIfAbsent(t.id(), k -> new ArrayList<>()).add(op);
            }
        }
    }

    public Op producer(long tensorId) {
        return producer.get(tensorId);
    }

    public List<Op> consumers(long tensorId) {
        return consumers.getOrDefault(tensorId, List.of());
    }

    /** Where the op sits in the topological order. */
    public int position(Op op) {
        return position.getOrDefault(op.id(), Integer.MAX_VALUE);
    }

    /** The only consumer of a tensor, or null. */
    public Op soleConsumer(long tensorId) {
        List<Op> c = consumers(tensorId);
        return c.size() == 1 ? c.get(0) : null;
    }
}
