package io.partita.backend.dnnl.internal.pattern;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.partita.backend.dnnl.internal.ops.QuantParams;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.spi.GraphView;

/**
 * oneDNN's int8 MatMul pattern: a MatMul whose src and weights each come from a static Dequantize
 * of an 8-bit integer tensor that nothing else reads, the MatMul's post-op chain, and a static
 * Quantize to an 8-bit integer type when that alone reads the chain's result (without it the
 * partition gives the f32 result). One partition, as oneDNN's int8 fusion makes it.
 */
final class QuantizedPattern {
    private QuantizedPattern() {
    }

    /** The ops of the pattern around {@code mm}, or null when it does not match. */
    static List<Op> match(GraphView g, Op mm, Set<Long> taken, Set<OpKind> implemented) {
        if (mm.kind() != OpKind.MatMul || !PatternMatcher.staticShapes(mm) || !PatternMatcher.allF32(mm)) {
            return null;
        }
        Op src = dequantize(g, mm.input(0), taken);
        Op weights = dequantize(g, mm.input(1), taken);
        // One integer tensor as both operands would be one partition input standing for two f32 ones.
        if (src == null || weights == null || src.id() == weights.id() || src.input(0).id() == weights.input(0).id()) {
            return null;
        }
        List<Op> ops = new ArrayList<>(List.of(src, weights, mm));
        List<Op> chain = PatternMatcher.chain(g, mm, taken, implemented);
        ops.addAll(chain);
        Op q = quantize(g, (chain.isEmpty() ? mm : chain.get(chain.size() - 1)).output(0), taken);
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
