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
 * oneDNN's int8 MatMul pattern as one primitive: Dequantize(src) and Dequantize(weights) → MatMul
 * with its post-ops → Quantize (or an f32 result without the Quantize). The integer operands are
 * dequantized into f32 and the f32 MatMul primitive runs on them; constant weights are dequantized
 * once, when the f32 primitive packs them into the unified constant cache (keyed by the integer
 * weights), so later executions touch only the packed f32 panels.
 *
 * <p>Compute is f32, not integer arithmetic. With scales of 1 (or powers of two) the dequantized
 * values and their products are exact in f32 and the sums are exact while |sum| < 2^24 (s8 · s8:
 * at most 2^14 per product, so always for K ≤ 1024); beyond that, and with other scales (each
 * dequantized value rounded once to f32), the result is within f32 rounding of the exact one, as
 * for any f32 MatMul. The final Quantize rounds half to even and saturates as the reference backend
 * does, so outputs agree with the reference up to one step of the quantized type where the f32 sum
 * lands on the other side of a rounding boundary.
 */
public final class QuantizedMatMulPrimitive implements Primitive {

    /**
     * @param inner the f32 MatMul primitive's descriptor, over the partition's inputs with the
     *        integer src and weights replaced by {@code srcF32} and {@code weightsF32}
     * @param dst the output quantization, or null when the partition's output is the f32 result
     * @param dstF32 the f32 result the inner primitive writes before {@code dst} quantizes it
     */
    public record Desc(Object inner, int srcInput, QuantParams src, LogicalTensor srcF32, int weightsInput,
            QuantParams weights, LogicalTensor weightsF32, QuantParams dst, LogicalTensor dstF32) {
    }

    private final Desc d;
    private final Primitive inner;

    public QuantizedMatMulPrimitive(Desc d, Primitive inner) {
        this.d = d;
        this.inner = inner;
    }

    @Override
    public void execute(Invocation inv) {
        try (Arena arena = Arena.ofShared()) {
            Tensor srcIn = inv.input(d.srcInput);
            Tensor srcF = Tensor.of(d.srcF32, srcIn.engine(), arena.allocate(d.srcF32.memSize(), 64));
            d.src.dequantize(srcIn.data(), srcIn.logicalTensor(), srcF.data(), inv.pool());
            Operands operands = new Operands(inv, srcF, arena);
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

    /**
     * The inner primitive's inputs: the dequantized src, and the weights dequantized on first use —
     * which, for constant weights already in the cache, never comes.
     */
    private final class Operands extends AbstractList<Tensor> {
        private final Invocation inv;
        private final Tensor srcF;
        private final Arena arena;
        private Tensor weightsF;

        Operands(Invocation inv, Tensor srcF, Arena arena) {
            this.inv = inv;
            this.srcF = srcF;
            this.arena = arena;
        }

        @Override
        public Tensor get(int i) {
            if (i == d.srcInput) {
                return srcF;
            }
            if (i == d.weightsInput) {
                return weights();
            }
            return inv.input(i);
        }

        // Packing may read the weights from pool threads.
        private synchronized Tensor weights() {
            if (weightsF == null) {
                Tensor w = inv.input(d.weightsInput);
                MemorySegment seg = arena.allocate(d.weightsF32.memSize(), 64);
                d.weights.dequantize(w.data(), w.logicalTensor(), seg, null);
                weightsF = Tensor.of(d.weightsF32, w.engine(), seg);
            }
            return weightsF;
        }

        @Override
        public int size() {
            return inv.inputCount();
        }
    }

    @Override
    public String toString() {
        return "int8 " + inner + " (src " + d.src + ", weights " + d.weights + (d.dst == null ? ", f32 out"
                : ", dst " + d.dst) + ")";
    }
}
