package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.AbstractList;
import java.util.List;

import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Tensor;

/**
 * oneDNN's int8 patterns as one primitive: Dequantize of src (and of binary post-op operands) and of
 * the weights → MatMul or Convolution with its post-ops → Quantize (or an f32 result without the
 * Quantize). The integer operands are dequantized into f32 and the f32 primitive runs on them;
 * constant weights are dequantized once, when the f32 primitive packs them into the unified
 * constant cache (keyed by the integer weights), so later executions touch only the packed panels.
 *
 * <p>Compute is f32, not integer arithmetic. With scales of 1 (or powers of two) the dequantized
 * values and their products are exact in f32 and the sums are exact while |sum| < 2^24 (s8 · s8:
 * at most 2^14 per product, so always for K ≤ 1024); beyond that, and with other scales (each
 * dequantized value rounded once to f32), the result is within f32 rounding of the exact one, as
 * for any f32 MatMul or Convolution. The final Quantize rounds half to even and saturates as the
 * reference backend does, so outputs agree with the reference up to one step of the quantized type
 * where the f32 sum lands on the other side of a rounding boundary.
 */
public final class QuantizedPrimitive implements Primitive {

    /** An integer partition input and the dense f32 stand-in the inner primitive reads instead. */
    public record Dequantized(int input, QuantParams params, LogicalTensor f32) {
    }

    /**
     * @param inner the f32 primitive's descriptor, over the partition's inputs with each dequantized
     *        one replaced by its f32 stand-in
     * @param operands dequantized before every execution (src, post-op operands)
     * @param weights dequantized when the inner primitive first reads them
     * @param dst the output quantization, or null when the partition's output is the f32 result
     * @param dstF32 the f32 result the inner primitive writes before {@code dst} quantizes it
     */
    public record Desc(Object inner, List<Dequantized> operands, Dequantized weights, QuantParams dst,
            LogicalTensor dstF32) {
    }

    private final Desc d;
    private final Primitive inner;

    public QuantizedPrimitive(Desc d, Primitive inner) {
        this.d = d;
        this.inner = inner;
    }

    @Override
    public void execute(Invocation inv) {
        try (Arena arena = Arena.ofShared()) {
            Operands operands = new Operands(inv, arena);
            if (d.dst == null) {
                inner.execute(inv.with(operands, List.of(inv.output(0))));
                return;
            }
            Tensor out = inv.output(0);
            Tensor f = Tensor.of(d.dstF32, out.engine(), arena.allocate(d.dstF32.memSize(), 64));
            inner.execute(inv.with(operands, List.of(f)));
            d.dst.quantize(f.data(), out.data(), out.logicalTensor(), inv.pool());
        }
    }

    private static Tensor dequantize(Invocation inv, Dequantized q, Arena arena, boolean parallel) {
        Tensor t = inv.input(q.input());
        MemorySegment seg = arena.allocate(q.f32().memSize(), 64);
        q.params().dequantize(t.data(), t.logicalTensor(), seg, parallel ? inv.pool() : null);
        return Tensor.of(q.f32(), t.engine(), seg);
    }

    /**
     * The inner primitive's inputs: the operands dequantized up front, the weights on first use —
     * which, for constant weights already in the cache, never comes.
     */
    private final class Operands extends AbstractList<Tensor> {
        private final Invocation inv;
        private final Arena arena;
        private final Tensor[] converted;
        private Tensor weights;

        Operands(Invocation inv, Arena arena) {
            this.inv = inv;
            this.arena = arena;
            this.converted = new Tensor[inv.inputCount()];
            for (Dequantized q : d.operands) {
                converted[q.input()] = dequantize(inv, q, arena, true);
            }
        }

        @Override
        public Tensor get(int i) {
            if (i == d.weights.input()) {
                return weights();
            }
            return converted[i] != null ? converted[i] : inv.input(i);
        }

        // Packing may read the weights from pool threads: no nested parallel loop, one conversion.
        private synchronized Tensor weights() {
            if (weights == null) {
                weights = dequantize(inv, d.weights, arena, false);
            }
            return weights;
        }

        @Override
        public int size() {
            return inv.inputCount();
        }
    }

    @Override
    public String toString() {
        return "int8 " + inner + " (weights " + d.weights.params() + (d.dst == null ? ", f32 out"
                : ", dst " + d.dst) + ")";
    }
}
