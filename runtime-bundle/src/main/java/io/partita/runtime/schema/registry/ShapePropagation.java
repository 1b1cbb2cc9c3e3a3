package io.partita.runtime.schema.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.runtime.schema.Dims;

/**
 * Runs shape inference over ops in topological order: each op sees its inputs as the earlier ops
 * (or the given inputs) describe them, and its inferred outputs feed the later ops.
 */
public final class ShapePropagation {
    private ShapePropagation() {
    }

    /** The ops rewritten with propagated tensors, and every tensor by id. */
    public record Result(List<Op> ops, Map<Long, LogicalTensor> tensors) {
    }

    /**
     * @param ops ops in topological order (attribute defaults filled in)
     * @param known descriptions that override the ops' own for these tensor ids (e.g. compile inputs)
     * @param values contents of small integer tensors, by id (may be empty)
     */
    public static Result run(List<Op> ops, Map<Long, LogicalTensor> known, Map<Long, long[]> values) {
        Map<Long, LogicalTensor> tensors = new HashMap<>(known);
        List<Op> out = new ArrayList<>(ops.size());
        for (Op op : ops) {
            Op.Builder b = op.toBuilder();
            List<LogicalTensor> ins = new ArrayList<>(op.inputs().size());
            for (int i = 0; i < op.inputs().size(); i++) {
                LogicalTensor declared = op.input(i);
                LogicalTensor current = tensors.get(declared.id());
                LogicalTensor t = current == null ? declared : reconcile(op, i, declared, current);
                ins.add(t);
                b.setInput(i, t);
                tensors.putIfAbsent(t.id(), t);
            }
            Op withInputs = b.build();
            List<LogicalTensor> outs;
            try {
                outs = OpSchemas.of(op).inferOutputs(withInputs, ins, values);
            } catch (InvalidGraphException e) {
                if (e.opId().isPresent()) {
                    throw e;
                }
                // e.g. inferred dims whose size overflows: the tensor alone cannot say which op made it
                throw new InvalidGraphException(op.id(), op.describe() + ": " + e.getMessage());
            }
            for (int i = 0; i < outs.size(); i++) {
                LogicalTensor o = outs.get(i);
                LogicalTensor prev = tensors.get(o.id());
                if (prev != null && !known.containsKey(o.id())) {
                    o = reconcileOutput(op, i, o, prev);
                }
                if (!known.containsKey(o.id())) {
                    tensors.put(o.id(), o);
                }
                b.setOutput(i, tensors.get(o.id()));
            }
            out.add(b.build());
        }
        return new Result(out, tensors);
    }

    /**
     * Uses the producer's (or given) description of an input, checking it does not contradict
     * what the consuming op declared.
     */
    private static LogicalTensor reconcile(Op op, int i, LogicalTensor declared, LogicalTensor current) {
        if (declared.dataType() != current.dataType()) {
            throw new InvalidGraphException(op.id(), op.describe() + ": input " + i + " (tensor " + declared.id()
                    + ") is declared " + declared.dataType() + " but is " + current.dataType() + " where it is produced");
        }
        long[] dd = declared.dims();
        long[] cd = current.dims();
        if (dd == null || cd == null) {
            return cd == null ? declared : current;
        }
        if (dd.length != cd.length) {
            throw new InvalidGraphException(op.id(), op.describe() + ": input " + i + " (tensor " + declared.id()
                    + ") is declared " + LogicalTensor.dimsToString(dd) + " but is " + LogicalTensor.dimsToString(cd)
                    + " where it is produced");
        }
        for (int k = 0; k < dd.length; k++) {
            // Dynamic and concrete values of the same dim are consistent (concrete at execution).
            if (Dims.merge(dd[k], cd[k]) == null) {
                throw new InvalidGraphException(op.id(), op.describe() + ": input " + i + " (tensor " + declared.id()
                        + ") is declared " + LogicalTensor.dimsToString(dd) + " but is "
                        + LogicalTensor.dimsToString(cd) + " where it is produced");
            }
        }
        return current;
    }

    private static LogicalTensor reconcileOutput(Op op, int i, LogicalTensor inferred, LogicalTensor prev) {
        long[] a = inferred.dims();
        long[] p = prev.dims();
        if (a != null && p != null) {
            if (a.length != p.length) {
                throw new InvalidGraphException(op.id(), op.describe() + ": output " + i + " (tensor " + inferred.id()
                        + ") is " + LogicalTensor.dimsToString(a) + " but consumers declare it "
                        + LogicalTensor.dimsToString(p));
            }
            for (int k = 0; k < a.length; k++) {
                if (Dims.merge(a[k], p[k]) == null) {
                    throw new InvalidGraphException(op.id(), op.describe() + ": output " + i + " (tensor "
                            + inferred.id() + ") is " + LogicalTensor.dimsToString(a) + " but consumers declare it "
                            + LogicalTensor.dimsToString(p));
                }
            }
        }
        return inferred;
    }
}
