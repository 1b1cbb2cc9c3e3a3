package io.partita.formats.onnx.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;

/**
 * Rewrites the erf form of GELU that exporters emit before ONNX had a Gelu op (PyTorch, Hugging Face:
 * {@code Div(x, √2) → Erf → Add(1) → Mul(x, ·) → Mul(·, 0.5)}, also with {@code Mul(x, 1/√2)} and with
 * the factors in either order) into one GELU op ({@code mode = gelu_erf}). Exact: it is the definition
 * of GELU. The erf alone has no fast kernel and stands between a MatMul and its post-ops; as GELU it
 * fuses into the MatMul's epilogue. Only chains whose intermediates feed nothing else are rewritten.
 */
final class GeluFusion {
    private static final double SQRT2 = Math.sqrt(2);
    /** Exporters write √2 and 1/√2 as f32; allow for that rounding and a little more. */
    private static final double TOLERANCE = 1e-6;

    private GeluFusion() {
    }

    /**
     * The ops with every erf-form GELU replaced by a GELU op; constants no op reads any more are removed
     * from {@code constants}.
     */
    static List<Op> rewrite(List<Op> ops, Map<Long, OnnxTensor> constants, Set<Long> graphOutputs) {
        Map<Long, Op> producer = new HashMap<>();
        Map<Long, List<Op>> consumers = new HashMap<>();
        for (Op op : ops) {
            op.outputs().forEach(t -> producer.put(t.id(), op));
            for (LogicalTensor t : op.inputs()) {
                consumers.computeIfAbsent(t.id(), k -> new ArrayList<>()).add(op);
            }
        }
        Map<Op, Op> replaced = new HashMap<>(); // last op of a chain -> the GELU taking its place
        Set<Op> removed = new HashSet<>();
        for (Op erf : ops) {
            if (erf.kind() != OpKind.PartitaErf) {
                continue;
            }
            Chain c = match(erf, producer, consumers, constants, graphOutputs);
            if (c == null || removed.contains(c.scale()) || removed.contains(c.last())) {
                continue;
            }
            Op gelu = Op.builder(c.last().id(), OpKind.GELU).name(c.last().name()).input(c.x())
                    .output(c.last().output(0)).attr("mode", "gelu_erf").build();
            removed.addAll(c.ops());
            removed.remove(c.last());
            replaced.put(c.last(), gelu);
        }
        if (replaced.isEmpty()) {
            return ops;
        }
        List<Op> out = new ArrayList<>(ops.size());
        for (Op op : ops) {
            if (replaced.containsKey(op)) {
                out.add(replaced.get(op));
            } else if (!removed.contains(op)) {
                out.add(op);
            }
        }
        Set<Long> read = new HashSet<>();
        for (Op op : out) {
            op.inputs().forEach(t -> read.add(t.id()));
        }
        constants.keySet().removeIf(id -> !read.contains(id) && !graphOutputs.contains(id));
        return out;
    }

    /** The ops of one erf-form GELU: x, the scaling before erf, erf, +1, the two multiplications. */
    private record Chain(LogicalTensor x, Op scale, List<Op> ops, Op last) {
    }

    private static Chain match(Op erf, Map<Long, Op> producer, Map<Long, List<Op>> consumers,
            Map<Long, OnnxTensor> constants, Set<Long> outputs) {
        Op scale = producer.get(erf.input(0).id());
        if (scale == null || !onlyFeeds(scale, erf, consumers, outputs)) {
            return null;
        }
        LogicalTensor x = scaled(scale, constants);
        if (x == null) {
            return null;
        }
        Op plusOne = single(erf, consumers, outputs);
        if (plusOne == null || plusOne.kind() != OpKind.Add || other(plusOne, erf.output(0), constants, 1.0) == null) {
            return null;
        }
        Op m1 = single(plusOne, consumers, outputs);
        if (m1 == null || m1.kind() != OpKind.Multiply) {
            return null;
        }
        LogicalTensor m1Other = otherInput(m1, plusOne.output(0));
        if (m1Other == null) {
            return null;
        }
        if (m1Other.id() == x.id()) {
            // x * (1 + erf), then * 0.5
            Op m2 = single(m1, consumers, outputs);
            if (m2 == null || m2.kind() != OpKind.Multiply || other(m2, m1.output(0), constants, 0.5) == null) {
                return null;
            }
            return sameShape(x, m2) ? new Chain(x, scale, List.of(scale, erf, plusOne, m1, m2), m2) : null;
        }
        // (x * 0.5) * (1 + erf)
        Op half = producer.get(m1Other.id());
        if (half == null || half.kind() != OpKind.Multiply || !onlyFeeds(half, m1, consumers, outputs)
                || otherInput(half, x) == null || other(half, x, constants, 0.5) == null) {
            return null;
        }
        return sameShape(x, m1) ? new Chain(x, scale, List.of(scale, erf, plusOne, half, m1), m1) : null;
    }

    /** x when the op is x / √2 or x · (1/√2) with a one-value constant, else null. */
    private static LogicalTensor scaled(Op scale, Map<Long, OnnxTensor> constants) {
        if (scale.kind() == OpKind.Divide && scalar(constants, scale.input(1), SQRT2)) {
            return scale.input(0);
        }
        if (scale.kind() == OpKind.Multiply) {
            for (int i = 0; i < 2; i++) {
                if (scalar(constants, scale.input(1 - i), 1 / SQRT2)) {
                    return scale.input(i);
                }
            }
        }
        return null;
    }

    /** The op's input other than {@code t}, when it is a one-value constant equal to {@code value}. */
    private static LogicalTensor other(Op op, LogicalTensor t, Map<Long, OnnxTensor> constants, double value) {
        LogicalTensor o = otherInput(op, t);
        return o != null && scalar(constants, o, value) ? o : null;
    }

    private static LogicalTensor otherInput(Op op, LogicalTensor t) {
        if (op.inputs().size() != 2) {
            return null;
        }
        if (op.input(0).id() == t.id()) {
            return op.input(1);
        }
        return op.input(1).id() == t.id() ? op.input(0) : null;
    }

    private static boolean scalar(Map<Long, OnnxTensor> constants, LogicalTensor t, double value) {
        OnnxTensor c = constants.get(t.id());
        if (c == null || c.elementCount() != 1) {
            return false;
        }
        double v = c.toDoubleArray()[0];
        return Math.abs(v - value) <= TOLERANCE * Math.abs(value);
    }

    /** The one consumer of the op's output, when it is not a graph output. */
    private static Op single(Op op, Map<Long, List<Op>> consumers, Set<Long> outputs) {
        long id = op.output(0).id();
        List<Op> c = consumers.getOrDefault(id, List.of());
        return c.size() == 1 && !outputs.contains(id) && op.outputs().size() == 1 ? c.get(0) : null;
    }

    private static boolean onlyFeeds(Op op, Op next, Map<Long, List<Op>> consumers, Set<Long> outputs) {
        return single(op, consumers, outputs) == next;
    }

    /** The GELU keeps the result's shape: a constant that broadcast x to a larger shape is not this pattern. */
    private static boolean sameShape(LogicalTensor x, Op last) {
        return x.dataType() == last.output(0).dataType() && java.util.Arrays.equals(x.dims(), last.output(0).dims());
    }
}
