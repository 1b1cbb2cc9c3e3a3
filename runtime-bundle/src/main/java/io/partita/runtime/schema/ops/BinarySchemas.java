package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.dimsToString;

import java.util.function.Consumer;

import io.partita.graph.AttrType;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.ShapeContext;
import io.partita.runtime.schema.ShapeRules;

/**
 * Binary elementwise ops with broadcasting, and their relatives: comparison (GreaterEqual),
 * selection (Select), power with a constant exponent (Pow), per-channel bias (BiasAdd and its
 * backward) and parametric ReLU (PReLU and its backward).
 *
 * <p>Data types: oneDNN ties some ports together (e.g. Maximum's two sources and destination);
 * here every port has its own type set, since mixed precision graphs (f32 x bf16 -> f32 and so on)
 * appear in practice and the math is the same in any precision. Backward ops tie a gradient to the
 * tensor it is the gradient of.
 */
public final class BinarySchemas {
    private BinarySchemas() {
    }

    private static final DataType[] FLOATS = {DataType.F32, DataType.BF16, DataType.F16};
    private static final DataType[] FLOATS_AND_S32 = {DataType.F32, DataType.BF16, DataType.F16, DataType.S32};
    /**
     * Add, Subtract and Multiply also take Partita's extension types (for ONNX models): the reference
     * backend computes them in double and rounds to the destination type (an integer result out of
     * range saturates where ONNX would wrap); the optimised backends claim oneDNN's types only. Divide
     * takes f64 but no integer type, since rounding a double quotient is not ONNX's truncating integer
     * division.
     */
    private static final DataType[] ADD_TYPES = {DataType.F32, DataType.BF16, DataType.F16, DataType.S32,
        DataType.F64, DataType.S64, DataType.S16, DataType.U16, DataType.U64};
    private static final DataType[] MUL_TYPES = {DataType.F32, DataType.BF16, DataType.F16, DataType.F64,
        DataType.S64, DataType.S16, DataType.U16, DataType.U64};
    private static final DataType[] DIV_TYPES = {DataType.F32, DataType.BF16, DataType.F16, DataType.F64};

    public static void register(Consumer<OpSchemaImpl> r) {
        r.accept(arithmetic(OpKind.Add, ADD_TYPES, ValueDomain.ANY));
        r.accept(arithmetic(OpKind.Subtract, ADD_TYPES, ValueDomain.ANY));
        r.accept(arithmetic(OpKind.Multiply, MUL_TYPES, ValueDomain.ANY));
        r.accept(arithmetic(OpKind.Divide, DIV_TYPES, ValueDomain.NON_ZERO));
        r.accept(arithmetic(OpKind.Maximum, FLOATS, ValueDomain.ANY));
        r.accept(arithmetic(OpKind.Minimum, FLOATS, ValueDomain.ANY));
        r.accept(arithmetic(OpKind.SquaredDifference, FLOATS, ValueDomain.ANY));

        r.accept(OpSchemaImpl.builder(OpKind.GreaterEqual)
                .typeVar("T1", FLOATS_AND_S32)
                .typeVar("T2", FLOATS_AND_S32)
                .typeVar("T3", DataType.BOOLEAN)
                .input("src_0", "T1")
                .input("src_1", "T2")
                .output("dst", "T3")
                .attr("auto_broadcast", "numpy", "none", "numpy")
                .shape(ctx -> ctx.setOutput(0, ShapeRules.autoBroadcast(ctx, 0, 1)))
                .build());

        // oneDNN's Pow is unary: dst = src ^ beta with a required f32 exponent attribute.
        r.accept(OpSchemaImpl.builder(OpKind.Pow)
                .typeVar("T1", FLOATS)
                .typeVar("T2", FLOATS)
                .input("src", "T1", ValueDomain.POSITIVE)
                .output("dst", "T2")
                .requiredAttr("beta", AttrType.F32)
                .shape(ShapeRules::sameAsFirstInput)
                .build());

        // Partita extension (ONNX Pow with a tensor exponent): the base's type is the result's; the
        // exponent may be an integer tensor (ONNX allows any numeric exponent type).
        r.accept(OpSchemaImpl.builder(OpKind.PartitaPow)
                .typeVar("T1", DataType.F32, DataType.BF16, DataType.F16, DataType.F64)
                .typeVar("T2", DataType.F32, DataType.BF16, DataType.F16, DataType.S32, DataType.S64, DataType.F64,
                        DataType.S16, DataType.U16, DataType.U64)
                .input("src_0", "T1", ValueDomain.POSITIVE)
                .input("src_1", "T2")
                .output("dst", "T1")
                .attr("auto_broadcast", "numpy", "none", "numpy")
                .shape(ctx -> ctx.setOutput(0, ShapeRules.autoBroadcast(ctx, 0, 1)))
                .build());

        r.accept(OpSchemaImpl.builder(OpKind.Select)
                .typeVar("T1", DataType.BOOLEAN)
                .typeVar("T2", FLOATS)
                .typeVar("T3", FLOATS)
                .typeVar("T4", FLOATS)
                .input("cond", "T1", ValueDomain.BOOLEAN)
                .input("src_0", "T2")
                .input("src_1", "T3")
                .output("dst", "T4")
                .attr("auto_broadcast", "numpy", "none", "numpy")
                .shape(BinarySchemas::inferSelect)
                .build());

        r.accept(OpSchemaImpl.builder(OpKind.BiasAdd)
                .typeVar("T1", FLOATS)
                .typeVar("T2", FLOATS)
                .typeVar("T3", FLOATS)
                .input("src", "T1")
                .input("bias", "T2")
                .output("dst", "T3")
                .attr("data_format", "NXC", "NCX", "NXC")
                .shape(BinarySchemas::inferBiasAdd)
                .build());

        r.accept(OpSchemaImpl.builder(OpKind.BiasAddBackward)
                .typeVar("T1", FLOATS)
                .typeVar("T2", FLOATS)
                .input("diff_dst", "T1")
                .output("diff_bias", "T2")
                .attr("data_format", "NXC", "NCX", "NXC")
                .shape(BinarySchemas::inferBiasAddBackward)
                .build());

        r.accept(OpSchemaImpl.builder(OpKind.PReLU)
                .typeVar("T1", FLOATS)
                .typeVar("T2", FLOATS)
                .typeVar("T3", FLOATS)
                .input("src", "T1")
                .input("slope", "T2")
                .output("dst", "T3")
                .attr("data_format", "NXC", "NCX", "NXC")
                .attr("per_channel_broadcast", true)
                .shape(ctx -> {
                    checkSlope(ctx, ctx.op().boolAttr("per_channel_broadcast"));
                    ctx.sameAsInput(0, 0);
                })
                .build());

        r.accept(OpSchemaImpl.builder(OpKind.PReLUBackward)
                .typeVar("T1", FLOATS)
                .typeVar("T2", FLOATS)
                .input("src", "T1")
                .input("slope", "T2")
                .input("diff_dst", "T1")
                .output("diff_src", "T1")
                .output("diff_slope", "T2")
                .attr("data_format", "NXC", "NCX", "NXC")
                .shape(BinarySchemas::inferPReLUBackward)
                .build());
    }

    /** src_0 (op) src_1 -> dst with numpy or no broadcasting; every port has its own type. */
    private static OpSchemaImpl arithmetic(OpKind kind, DataType[] types, ValueDomain src1Domain) {
        return OpSchemaImpl.builder(kind)
                .typeVar("T1", types)
                .typeVar("T2", types)
                .typeVar("T3", types)
                .input("src_0", "T1")
                .input("src_1", "T2", src1Domain)
                .output("dst", "T3")
                .attr("auto_broadcast", "numpy", "none", "numpy")
                .shape(ctx -> ctx.setOutput(0, ShapeRules.autoBroadcast(ctx, 0, 1)))
                .build();
    }

    /**
     * Select: src_0 and src_1 broadcast to each other (numpy), then cond broadcasts one way to that
     * shape; with {@code auto_broadcast = none} all three shapes must be equal.
     */
    static void inferSelect(ShapeContext ctx) {
        long[] cond = ctx.dims(0);
        boolean none = "none".equals(ctx.op().stringAttr("auto_broadcast"));
        long[] out;
        if (none) {
            out = ShapeRules.autoBroadcast(ctx, 1, 2);
            if (out != null && cond != null) {
                if (cond.length != out.length) {
                    throw ctx.error("auto_broadcast is none but cond " + dimsToString(cond) + " and sources "
                            + dimsToString(out) + " have different ranks");
                }
                long[] merged = new long[out.length];
                for (int i = 0; i < out.length; i++) {
                    Long m = Dims.merge(cond[i], out[i]);
                    if (m == null) {
                        throw ctx.error("auto_broadcast is none but cond " + dimsToString(cond) + " and sources "
                                + dimsToString(out) + " differ at dim " + i);
                    }
                    merged[i] = m;
                }
                out = merged;
            } else if (out == null) {
                // Sources of unknown rank: with no broadcasting the cond shape is the result.
                out = ctx.dims(1) == null && ctx.dims(2) == null ? cond : null;
            }
        } else {
            out = ShapeRules.broadcast(ctx, 1, 2);
            if (out != null && cond != null && !MatMulSchemas.broadcastable(cond, out)) {
                throw ctx.error("cond " + dimsToString(cond) + " cannot be broadcast to the shape "
                        + dimsToString(out) + " of src_0 " + dimsToString(ctx.dims(1)) + " and src_1 "
                        + dimsToString(ctx.dims(2)) + " (cond dims must equal the result's or be 1, aligned right)");
            }
            if (out != null && cond != null) {
                // A cond dim other than 1 is the result's dim: it fills in unknown ones.
                out = out.clone();
                for (int i = 1; i <= cond.length; i++) {
                    long c = cond[cond.length - i];
                    if (c >= 0 && c != 1 && out[out.length - i] == LogicalTensor.UNKNOWN_DIM) {
                        out[out.length - i] = c;
                    }
                }
            }
        }
        ctx.setOutput(0, out);
    }

    /** The channel axis of a tensor of the given rank: 1 for NCX, the last for NXC. */
    public static int channelAxis(String dataFormat, int rank) {
        return "NCX".equals(dataFormat) ? Math.min(1, rank - 1) : rank - 1;
    }

    static void inferBiasAdd(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        long[] bias = ctx.dims(1);
        String fmt = ctx.op().stringAttr("data_format");
        ctx.requireMinRank(0, 2);
        ctx.requireRank(1, 1);
        if (src == null) {
            return;
        }
        int c = channelAxis(fmt, src.length);
        long[] dst = src.clone();
        if (bias != null) {
            Long channels = Dims.merge(bias[0], src[c]);
            if (channels == null) {
                throw ctx.error("bias " + dimsToString(bias) + " must have as many elements as the channels of src "
                        + dimsToString(src) + " (" + src[c] + " along axis " + c + " for data_format " + fmt + ")");
            }
            dst[c] = channels;
        }
        ctx.setOutput(0, dst);
    }

    static void inferBiasAddBackward(ShapeContext ctx) {
        long[] dd = ctx.dims(0);
        ctx.requireMinRank(0, 2);
        if (dd == null) {
            return;
        }
        ctx.setOutput(0, dd[channelAxis(ctx.op().stringAttr("data_format"), dd.length)]);
    }

    static void inferPReLUBackward(ShapeContext ctx) {
        // In backward a 1-D slope of more than one element is per channel, as in oneDNN.
        long[] slope = ctx.dims(1);
        checkSlope(ctx, slope != null && slope.length == 1 && slope[0] != 1);
        long[] src = ctx.dims(0);
        long[] dd = ctx.dims(2);
        long[] diffSrc = src;
        if (src != null && dd != null) {
            if (src.length != dd.length) {
                throw ctx.error("diff_dst " + dimsToString(dd) + " must have the shape of src " + dimsToString(src));
            }
            diffSrc = new long[src.length];
            for (int i = 0; i < src.length; i++) {
                Long m = Dims.merge(src[i], dd[i]);
                if (m == null) {
                    throw ctx.error("diff_dst " + dimsToString(dd) + " must have the shape of src "
                            + dimsToString(src) + " (dim " + i + " differs)");
                }
                diffSrc[i] = m;
            }
        } else if (src == null) {
            diffSrc = dd;
        }
        ctx.setOutput(0, diffSrc);
        ctx.setOutput(1, slope);
    }

    /** Checks the PReLU slope against src (inputs 0 and 1) when both ranks are known. */
    private static void checkSlope(ShapeContext ctx, boolean perChannel) {
        long[] src = ctx.dims(0);
        long[] slope = ctx.dims(1);
        if (src == null || slope == null) {
            return;
        }
        String fmt = ctx.op().stringAttr("data_format");
        if (expandSlope(src, slope, fmt, perChannel) == null) {
            String rule;
            if (slope.length > src.length) {
                rule = "slope must not have more dims than src";
            } else if (slope.length == 1 && perChannel && src.length > 1) {
                int c = channelAxis(fmt, src.length);
                rule = "a 1-D slope broadcast per channel must have the channel count " + src[c] + " (axis " + c
                        + " for data_format " + fmt + ") or 1 element";
            } else if (slope.length == 1) {
                rule = "a 1-D slope not broadcast per channel must have the last dim " + src[src.length - 1]
                        + " of src or 1 element";
            } else {
                rule = "each slope dim, aligned right, must equal the src dim or be 1";
            }
            throw ctx.error("slope " + dimsToString(slope) + " cannot be broadcast to src " + dimsToString(src)
                    + ": " + rule);
        }
    }

    /**
     * The slope's dims as seen by src: of src's rank, each equal to src's or 1, in an order that
     * keeps the slope's row-major element order (only size-1 dims are inserted).
     *
     * <ul>
     * <li>1-D slope, per channel and src of rank &gt; 1: along the channel axis of data_format;</li>
     * <li>1-D slope otherwise: along the last axis;</li>
     * <li>other slopes: numpy broadcasting aligned right (leading 1s added).</li>
     * </ul>
     * A 1-element slope always applies to the whole tensor. Unknown/dynamic dims match anything.
     *
     * @return the expanded dims, or null when the slope does not broadcast to src
     */
    public static long[] expandSlope(long[] src, long[] slope, String dataFormat, boolean perChannel) {
        int rank = src.length;
        if (slope.length > rank) {
            return null;
        }
        long[] e = new long[rank];
        java.util.Arrays.fill(e, 1);
        if (slope.length == 1 && rank > 1) {
            int axis = perChannel ? channelAxis(dataFormat, rank) : rank - 1;
            if (slope[0] != 1 && Dims.merge(slope[0], src[axis]) == null) {
                return null;
            }
            e[axis] = slope[0];
            return e;
        }
        for (int i = 1; i <= slope.length; i++) {
            long s = slope[slope.length - i];
            long d = src[rank - i];
            if (s != 1 && Dims.merge(s, d) == null) {
                return null;
            }
            e[rank - i] = s;
        }
        return e;
    }
}
