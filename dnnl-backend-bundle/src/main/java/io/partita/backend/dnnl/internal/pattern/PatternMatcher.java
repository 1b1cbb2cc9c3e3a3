package io.partita.backend.dnnl.internal.pattern;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.partita.backend.dnnl.internal.postops.Activation;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.spi.Claim;
import io.partita.spi.GraphView;

/**
 * Claims what this backend runs, as oneDNN's DNNL backend does for f32: a base op (MatMul,
 * Convolution, binary, eltwise, SoftMax, pooling, reduction) followed by a chain of post-ops
 * (BiasAdd after MatMul/Convolution, activations, binary ops whose other operand comes from outside
 * the chain and broadcasts to the output), plus single-op primitives for LayerNorm, data
 * movement, LRN, Gather, Slice and Pad; and oneDNN's int8 MatMul and Convolution patterns
 * ({@link QuantizedPattern}). Only static shapes: an op with a dynamic dim is never claimed (Slice
 * and Pad excepted: their output dims follow from values read at execution). DEBUG claims single ops.
 */
public final class PatternMatcher {
    static final Set<OpKind> BINARY = Set.of(OpKind.Add, OpKind.Subtract, OpKind.Multiply, OpKind.Divide,
            OpKind.Maximum, OpKind.Minimum);
    static final Set<OpKind> CHAIN_BASES = Set.of(OpKind.MatMul, OpKind.Convolution, OpKind.SoftMax, OpKind.MaxPool,
            OpKind.AvgPool, OpKind.ReduceSum, OpKind.ReduceMean, OpKind.BiasAdd, OpKind.Add, OpKind.Subtract,
            OpKind.Multiply, OpKind.Divide, OpKind.Maximum, OpKind.Minimum, OpKind.BatchNormInference);

    private PatternMatcher() {
    }

    public static boolean isBinary(OpKind k) {
        return BINARY.contains(k);
    }

    public static List<Claim> claim(GraphView g, PartitionPolicy policy, Set<OpKind> implemented) {
        List<Claim> claims = new ArrayList<>();
        Set<Long> taken = new HashSet<>();
        for (Op op : g.ops()) {
            if (g.isClaimed(op.id()) || taken.contains(op.id()) || !implemented.contains(op.kind()) || !supports(op)) {
                continue;
            }
            List<Op> int8 = policy == PartitionPolicy.FUSION ? QuantizedPattern.match(g, op, taken, implemented) : null;
            if (int8 != null) {
                LinkedHashSet<Long> ids = new LinkedHashSet<>();
                StringBuilder pattern = new StringBuilder("int8");
                for (Op o : int8) {
                    ids.add(o.id());
                    pattern.append('_').append(name(o.kind()));
                }
                taken.addAll(ids);
                claims.add(new Claim(ids, pattern.toString()));
                continue;
            }
            LinkedHashSet<Long> ids = new LinkedHashSet<>();
            ids.add(op.id());
            // A builder: a chain can be tens of thousands of ops long, and += would copy the name each time.
            StringBuilder pattern = new StringBuilder(name(op.kind()));
            if (policy == PartitionPolicy.FUSION && (CHAIN_BASES.contains(op.kind()) || Activation.SUPPORTED.contains(op.kind()))) {
                List<Op> chain = chain(g, op, taken, implemented);
                for (Op c : chain) {
                    ids.add(c.id());
                    pattern.append('_').append(name(c.kind()));
                }
            }
            taken.addAll(ids);
            claims.add(new Claim(ids, pattern.toString()));
        }
        return claims;
    }

    /** The post-ops that follow a base op. */
    static List<Op> chain(GraphView g, Op base, Set<Long> taken, Set<OpKind> implemented) {
        List<Op> chain = new ArrayList<>();
        Set<Long> inside = new HashSet<>(List.of(base.id()));
        Set<Long> produced = new HashSet<>();
        base.outputs().forEach(t -> produced.add(t.id()));
        LogicalTensor out = base.output(0);
        if (base.outputs().size() != 1) {
            return chain;
        }
        boolean biasAllowed = base.kind() == OpKind.MatMul || base.kind() == OpKind.Convolution;
        // BatchNormInference after a convolution is folded into it or applied per channel in its store
        int channelAxis = base.kind() == OpKind.Convolution ? channelAxis(base, out.ndims()) : -1;
        while (true) {
            if (g.isGraphOutput(out.id())) {
                break;
            }
            List<Op> consumers = g.consumers(out.id());
            if (consumers.size() == 2) {
                // x * sigmoid(x) (swish, SiLU): the one place a chain value is read twice, fused as one activation
                Op[] sw = swish(g, out, consumers);
                if (sw == null || !joinable(g, sw[0], taken, implemented) || !joinable(g, sw[1], taken, implemented)) {
                    break;
                }
                for (Op o : sw) {
                    chain.add(o);
                    inside.add(o.id());
                    o.outputs().forEach(t -> produced.add(t.id()));
                }
                biasAllowed = false;
                out = sw[1].output(0);
                continue;
            }
            if (consumers.size() != 1) {
                break;
            }
            Op next = consumers.get(0);
            if (g.isClaimed(next.id()) || taken.contains(next.id()) || !implemented.contains(next.kind())
                    || !allF32(next) || !staticShapes(next)) {
                break;
            }
            boolean ok;
            if (next.kind() == OpKind.BiasAdd) {
                ok = biasAllowed && next.input(0).id() == out.id();
            } else if (Activation.SUPPORTED.contains(next.kind())) {
                ok = next.input(0).id() == out.id();
            } else if (BINARY.contains(next.kind())) {
                ok = binaryPostOp(next, out, produced);
            } else if (next.kind() == OpKind.BatchNormInference) {
                ok = channelAxis >= 0 && next.input(0).id() == out.id() && batchNormParams(next, produced)
                        && channelAxis(next, out.ndims()) == channelAxis;
            } else {
                ok = false;
            }
            if (!ok || !sameDims(next.output(0), out)) {
                break;
            }
            chain.add(next);
            inside.add(next.id());
            next.outputs().forEach(t -> produced.add(t.id()));
            biasAllowed = false;
            out = next.output(0);
        }
        return chain;
    }

    /** The other operand comes from outside the chain and broadcasts (numpy) to the chain value's dims. */
    private static boolean binaryPostOp(Op op, LogicalTensor value, Set<Long> produced) {
        LogicalTensor a = op.input(0);
        LogicalTensor b = op.input(1);
        if (a.id() == b.id()) {
            return false;
        }
        LogicalTensor other = a.id() == value.id() ? b : b.id() == value.id() ? a : null;
        if (other == null || produced.contains(other.id())) {
            return false;
        }
        return broadcastsTo(other.dims(), value.dims());
    }

    /**
     * {Sigmoid, Multiply} when the two consumers of {@code value} are {@code s = Sigmoid(value)} and
     * {@code Multiply(value, s)} (either order) and s is read by nothing else; else null.
     */
    static Op[] swish(GraphView g, LogicalTensor value, List<Op> consumers) {
        Op sig = null;
        Op mul = null;
        for (Op c : consumers) {
            if (c.kind() == OpKind.Sigmoid && c.input(0).id() == value.id()) {
                sig = c;
            } else if (c.kind() == OpKind.Multiply) {
                mul = c;
            }
        }
        if (sig == null || mul == null || g.isGraphOutput(sig.output(0).id())) {
            return null;
        }
        long s = sig.output(0).id();
        boolean operands = mul.input(0).id() == value.id() && mul.input(1).id() == s
                || mul.input(1).id() == value.id() && mul.input(0).id() == s;
        List<Op> readers = g.consumers(s);
        if (!operands || readers.size() != 1 || readers.get(0).id() != mul.id() || !sameDims(mul.output(0), value)) {
            return null;
        }
        return new Op[] {sig, mul};
    }

    private static boolean joinable(GraphView g, Op op, Set<Long> taken, Set<OpKind> implemented) {
        return !g.isClaimed(op.id()) && !taken.contains(op.id()) && implemented.contains(op.kind()) && allF32(op)
                && staticShapes(op);
    }

    /** The channel axis a Convolution or BatchNormInference reads by its data_format (NXC: last). */
    static int channelAxis(Op op, int rank) {
        return "NCX".equals(op.stringAttr("data_format")) ? 1 : rank - 1;
    }

    /** gamma, beta, mean, variance: 1-D, one value per channel of src, none made inside the chain. */
    private static boolean batchNormParams(Op bn, Set<Long> produced) {
        LogicalTensor src = bn.input(0);
        if (bn.inputs().size() != 5 || src.ndims() < 2) {
            return false;
        }
        long channels = src.dims()[channelAxis(bn, src.ndims())];
        for (int i = 1; i < 5; i++) {
            LogicalTensor p = bn.input(i);
            if (p.ndims() != 1 || p.dims()[0] != channels || produced.contains(p.id()) || p.id() == src.id()) {
                return false;
            }
        }
        return true;
    }

    static boolean broadcastsTo(long[] from, long[] to) {
        if (from == null || to == null || from.length > to.length) {
            return false;
        }
        for (int i = 0; i < from.length; i++) {
            long f = from[from.length - 1 - i];
            long t = to[to.length - 1 - i];
            if (f != 1 && f != t) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameDims(LogicalTensor a, LogicalTensor b) {
        return java.util.Arrays.equals(a.dims(), b.dims());
    }

    /** Whether the base op itself is something this backend runs. */
    static boolean supports(Op op) {
        if (valueShaped(op)) {
            return staticInputs(op) && op.output(0).ndims() >= 0 && indexOperands(op);
        }
        if (!staticShapes(op)) {
            return false;
        }
        if (op.kind() == OpKind.TypeCast || op.kind() == OpKind.Reorder) {
            return floatTypes(op);
        }
        if (op.kind() == OpKind.PartitaGather) {
            return indexOperands(op);
        }
        if (!allF32(op)) {
            return false;
        }
        return switch (op.kind()) {
            case Convolution -> op.input(0).ndims() == 4;
            case MaxPool, AvgPool -> op.input(0).ndims() >= 3 && op.input(0).ndims() <= 5;
            // dst, and optionally the stats output
            case SoftMax -> op.outputs().size() <= 2;
            // across channels, axis 1 (NCX)
            case PartitaLRN -> op.input(0).ndims() >= 2;
            case BatchNormInference -> batchNormParams(op, Set.of());
            // the axes attribute only (an axes input would be s32 and is refused above anyway)
            case ReduceSum, ReduceMean -> op.inputs().size() == 1;
            default -> true;
        };
    }

    /**
     * Slice and Pad: their output dims follow from parameter values read at execution, so the output
     * may be dynamic while every input is static (the runtime gives the kernel concrete outputs).
     */
    public static boolean valueShaped(Op op) {
        return op.kind() == OpKind.PartitaSlice || op.kind() == OpKind.PartitaPad;
    }

    /** f32 data in and out (and Pad's f32 value, input 2); s32/s64 indices or parameters read at execution. */
    private static boolean indexOperands(Op op) {
        for (int i = 1; i < op.inputs().size(); i++) {
            DataType t = op.input(i).dataType();
            boolean padValue = op.kind() == OpKind.PartitaPad && i == 2;
            if (padValue ? t != DataType.F32 : t != DataType.S32 && t != DataType.S64) {
                return false;
            }
        }
        return op.input(0).dataType() == DataType.F32 && op.output(0).dataType() == DataType.F32
                && op.input(0).ndims() >= 1;
    }

    private static boolean staticInputs(Op op) {
        for (LogicalTensor t : op.inputs()) {
            if (t.ndims() < 0 || t.hasDynamicDim()) {
                return false;
            }
        }
        return true;
    }

    /** The copies convert f32, bf16 and f16 only: f8 and Partita's f64 fall to the reference. */
    private static boolean floatTypes(Op op) {
        for (LogicalTensor t : op.inputs()) {
            if (!COPY_TYPES.contains(t.dataType())) {
                return false;
            }
        }
        for (LogicalTensor t : op.outputs()) {
            if (!COPY_TYPES.contains(t.dataType())) {
                return false;
            }
        }
        return true;
    }

    private static final Set<DataType> COPY_TYPES = Set.of(DataType.F32, DataType.BF16, DataType.F16);

    static boolean allF32(Op op) {
        for (LogicalTensor t : op.inputs()) {
            if (t.dataType() != DataType.F32) {
                return false;
            }
        }
        for (LogicalTensor t : op.outputs()) {
            if (t.dataType() != DataType.F32) {
                return false;
            }
        }
        return true;
    }

    /** Known rank and no dynamic dim (unknown dims are resolved by compilation). */
    static boolean staticShapes(Op op) {
        for (LogicalTensor t : op.inputs()) {
            if (t.ndims() < 0 || t.hasDynamicDim()) {
                return false;
            }
        }
        for (LogicalTensor t : op.outputs()) {
            if (t.ndims() < 0 || t.hasDynamicDim()) {
                return false;
            }
        }
        return true;
    }

    private static String name(OpKind k) {
        return switch (k) {
            case MatMul -> "matmul";
            case Convolution -> "conv";
            case BiasAdd -> "bias";
            case BatchNormInference -> "bn";
            case Dequantize -> "dq";
            case Quantize -> "q";
            default -> k.spelling().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
