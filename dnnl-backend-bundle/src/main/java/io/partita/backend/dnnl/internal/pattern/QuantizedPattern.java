package io.partita.backend.dnnl.internal.pattern;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.partita.backend.dnnl.internal.ops.QuantParams;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.spi.GraphView;

/**
 * oneDNN's int8 MatMul and Convolution patterns: the base op's src and weights each come from a
 * static Dequantize of an 8-bit integer tensor that nothing else reads, then the base op's post-op
 * chain (whose binary operands may be dequantized the same way: oneDNN's int8 "sum"), and a static
 * Quantize to an 8-bit integer type when that alone reads the chain's result (without it the
 * partition gives the f32 result). One partition, as oneDNN's int8 fusion makes it.
 */
final class QuantizedPattern {
    private QuantizedPattern() {
    }

    /** The ops of the pattern around {@code base}, or null when it does not match. */
    static List<Op> match(GraphView g, Op base, Set<Long> taken, Set<OpKind> implemented) {
        if (base.kind() != OpKind.MatMul && base.kind() != OpKind.Convolution) {
            return null;
        }
        Op src = dequantize(g, base.input(0), taken);
        Op weights = dequantize(g, base.input(1), taken);
        if (src == null || weights == null) {
            return null;
        }
        List<Op> ops = new ArrayList<>(List.of(src, weights, base));
        // Each integer tensor is one partition input standing for one f32 value.
        Set<Long> integerInputs = new HashSet<>(List.of(src.input(0).id()));
        if (!integerInputs.add(weights.input(0).id())) {
            return null;
        }
        List<Op> chain = PatternMatcher.chain(g, base, taken, implemented);
        for (Op c : chain) {
            for (LogicalTensor operand : c.inputs()) {
                Op d = dequantize(g, operand, taken);
                if (d != null && integerInputs.add(d.input(0).id())) {
                    ops.add(d);
                }
            }
            ops.add(c);
        }
        Op q = quantize(g, (chain.isEmpty() ? base : chain.get(chain.size() - 1)).output(0), taken);
        if (q != null) {
            ops.add(q);
        }
        return ops;
    }

    private static Op dequantize(GraphView g, LogicalTensor value, Set<Long> taken) {
        Op d = g.producer(value.id());
        if (d == null || d.kind() != OpKind.Dequantize || !free(g, d, taken) || g.isGraphOutput(value.id())
                || !QuantParams.supports(d.input(0).dataType()) || g.consumers(value.id()).size() != 1) {
            return null;
        }
        return d;
    }

    private static Op quantize(GraphView g, LogicalTensor value, Set<Long> taken) {
        if (g.isGraphOutput(value.id())) {
            return null;
        }
        List<Op> readers = g.consumers(value.id());
        if (readers.size() != 1) {
            return null;
        }
        Op q = readers.get(0);
        if (q.kind() != OpKind.Quantize || !free(g, q, taken) || !QuantParams.supports(q.output(0).dataType())) {
            return null;
        }
        return q;
    }

    private static boolean free(GraphView g, Op op, Set<Long> taken) {
        return !g.isClaimed(op.id()) && !taken.contains(op.id()) && PatternMatcher.staticShapes(op);
    }
}
