package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.dimsToString;

import java.util.Arrays;
import java.util.Set;
import java.util.function.Consumer;

import io.partita.graph.AttrType;
import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.AttrSpec;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.ShapeContext;

/**
 * Quantize, Dequantize (scales and zero points as attributes) and DynamicQuantize,
 * DynamicDequantize (as input tensors): per-tensor, per-channel ({@code axis}), per-group
 * ({@code group_shape}) and mask granularities, as oneDNN defines them.
 *
 * <p>Besides oneDNN's types, the quantized side may be Partita's s16 and u16 (ONNX's 16-bit
 * QuantizeLinear/DequantizeLinear), which only the reference backend runs.
 *
 * <p>Quantize: {@code dst = round(src / scale + zp)} saturated to the dst type; Dequantize:
 * {@code dst = (src - zp) * scale}. The scale (and zero point) of an element is found through
 * {@link #scaleDims}: the full-rank dims of the scales tensor, where each src dim d maps to scale
 * index {@code i_d / (src_d / scaleDims_d)}.
 */
public final class QuantizationSchemas {
    private static final Set<DataType> F8 = Set.of(DataType.F8_E5M2, DataType.F8_E4M3);

    private QuantizationSchemas() {
    }

    static void register(Consumer<OpSchemaImpl> r) {
        r.accept(OpSchemaImpl.builder(OpKind.Quantize)
                .typeVar("T1", DataType.F32)
                .typeVar("T2", DataType.U8, DataType.S8, DataType.F8_E5M2, DataType.F8_E4M3, DataType.S16,
                        DataType.U16)
                .input("src", "T1")
                .output("dst", "T2")
                .attr("qtype", "per_tensor", "per_tensor", "per_channel")
                .attr("axis", 1L)
                .attr(AttrSpec.required("scales", AttrType.F32_ARRAY).checked(v -> scalesOk(v, true),
                        "a non-empty list of finite, non-zero scales"))
                .optionalAttr("zps", AttrType.S64_ARRAY)
                .validator(QuantizationSchemas::checkStaticScalesZps)
                .shape(QuantizationSchemas::inferStatic)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.Dequantize)
                .typeVar("T1", DataType.U8, DataType.S8, DataType.F8_E5M2, DataType.F8_E4M3, DataType.S16,
                        DataType.U16)
                .typeVar("T2", DataType.F32)
                .input("src", "T1")
                .output("dst", "T2")
                .attr("qtype", "per_tensor", "per_tensor", "per_channel")
                .attr("axis", 1L)
                .attr(AttrSpec.required("scales", AttrType.F32_ARRAY).checked(v -> scalesOk(v, false),
                        "a non-empty list of finite scales"))
                .optionalAttr("zps", AttrType.S64_ARRAY)
                .validator(QuantizationSchemas::checkStaticScalesZps)
                .shape(QuantizationSchemas::inferStatic)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.DynamicQuantize)
                .typeVar("T1", DataType.F32)
                .typeVar("T3", DataType.U8, DataType.S8, DataType.F8_E5M2, DataType.F8_E4M3, DataType.S16,
                        DataType.U16)
                .input("src", "T1")
                .input("scales", Set.of(DataType.F32), ValueDomain.SCALE)
                .optionalInput("zps", Set.of(DataType.U8, DataType.S8, DataType.S32, DataType.S16, DataType.U16),
                        ValueDomain.ZERO_POINT)
                .output("dst", "T3")
                // per_group (beyond oneDNN's DynamicQuantize, as its DynamicDequantize): ONNX's blocked
                // QuantizeLinear.
                .attr("qtype", "per_tensor", "per_tensor", "per_channel", "per_group")
                .attr("axis", 1L)
                .optionalAttr("mask", AttrType.S64)
                .optionalAttr("group_shape", AttrType.S64_ARRAY)
                .validator(QuantizationSchemas::checkDynamicAttrs)
                .shape(QuantizationSchemas::inferDynamic)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.DynamicDequantize)
                .typeVar("T1", DataType.U8, DataType.S8, DataType.S4, DataType.U4, DataType.F8_E5M2,
                        DataType.F8_E4M3, DataType.S16, DataType.U16)
                .input("src", "T1")
                // oneDNN expects scales and dst of the same type; each may be any float type here.
                .input("scales", OpSchemaImpl.FLOATS, ValueDomain.SCALE)
                .optionalInput("zps", Set.of(DataType.U4, DataType.S4, DataType.U8, DataType.S8, DataType.S32,
                        DataType.S16, DataType.U16), ValueDomain.ZERO_POINT)
                .output("dst", OpSchemaImpl.FLOATS)
                .attr("qtype", "per_tensor", "per_tensor", "per_channel", "per_group")
                .attr("axis", 1L)
                .optionalAttr("mask", AttrType.S64)
                .optionalAttr("group_shape", AttrType.S64_ARRAY)
                .validator(QuantizationSchemas::checkDynamicAttrs)
                .shape(QuantizationSchemas::inferDynamic)
                .build());
    }

    private static boolean scalesOk(AttrValue v, boolean nonZero) {
        float[] s = v.asFloats();
        if (s.length == 0) {
            return false;
        }
        for (float f : s) {
            if (!Float.isFinite(f) || (nonZero && f == 0)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isF8(Op op) {
        return F8.contains(op.input(0).dataType()) || F8.contains(op.output(0).dataType());
    }

    private static InvalidGraphException error(Op op, String message) {
        return new InvalidGraphException(op.id(), op.describe() + ": " + message);
    }

    // ---------------------------------------------------------------- static (attributes)

    private static void checkStaticScalesZps(Op op) {
        int scales = op.floatsAttr("scales").length;
        String qtype = op.stringAttr("qtype");
        if ("per_tensor".equals(qtype) && scales != 1) {
            throw error(op, "qtype per_tensor takes exactly 1 scale, got " + scales);
        }
        if (op.hasAttr("zps")) {
            if (isF8(op)) {
                throw error(op, "f8 quantization takes no zero points ('zps'); remove the attribute");
            }
            int zps = op.longsAttr("zps").length;
            if (zps != scales) {
                throw error(op, "has " + scales + " scales but " + zps + " zps; expected as many zps as scales");
            }
        }
    }

    private static void inferStatic(ShapeContext ctx) {
        Op op = ctx.op();
        long[] src = ctx.dims(0);
        if (src != null && "per_channel".equals(op.stringAttr("qtype"))) {
            long axisAttr = op.longAttr("axis");
            int axis = Dims.normalizeAxis(axisAttr, src.length);
            if (axis < 0) {
                throw ctx.error("per_channel axis " + axisAttr + " is out of range for src " + dimsToString(src)
                        + "; expected [-" + src.length + ", " + (src.length - 1) + "]");
            }
            int scales = op.floatsAttr("scales").length;
            if (src[axis] >= 0 && src[axis] != scales) {
                throw ctx.error("per_channel along axis " + axis + " of src " + dimsToString(src) + " needs "
                        + src[axis] + " scales (and zps), got " + scales);
            }
        }
        ctx.sameAsInput(0, 0);
    }

    // ---------------------------------------------------------------- dynamic (input tensors)

    private static boolean hasGroup(Op op) {
        return op.hasAttr("group_shape") && op.longsAttr("group_shape").length > 0;
    }

    /**
     * Whether {@code group_shape} decides the scales: with qtype per_group, or with a mask (newer
     * oneDNN). With qtype per_tensor or per_channel and no mask it is ignored: oneDNN's benchdnn
     * cases switch the qtype of grouped graphs ({@code --op-attrs=...:qtype:per_tensor}) and keep
     * their group_shape.
     */
    private static boolean groupApplies(Op op) {
        return hasGroup(op) && ("per_group".equals(op.stringAttr("qtype")) || op.hasAttr("mask"));
    }

    private static void checkDynamicAttrs(Op op) {
        if (op.inputs().size() == 3 && isF8(op)) {
            throw error(op, "f8 quantization takes no zero points; remove input 2 (zps)");
        }
        String qtype = op.stringAttr("qtype");
        boolean group = hasGroup(op);
        if (group) {
            for (long g : op.longsAttr("group_shape")) {
                if (g < 1) {
                    throw error(op, "group_shape " + Arrays.toString(op.longsAttr("group_shape"))
                            + " has " + g + "; expected group sizes >= 1");
                }
            }
        }
        if (op.hasAttr("mask")) {
            long mask = op.longAttr("mask");
            if (mask < 0) {
                throw error(op, "mask " + mask + " is negative; expected a bit set of src dims");
            }
            if (!"per_tensor".equals(qtype)) {
                throw error(op, "mask is set, so qtype must be per_tensor (the default), got " + qtype);
            }
            if (op.longAttr("axis") != 1) {
                throw error(op, "mask is set, so axis must be the default 1, got " + op.longAttr("axis"));
            }
        } else if (!group && "per_group".equals(qtype)) {
            throw error(op, "qtype per_group needs attribute 'group_shape'");
        }
    }

    private static void inferDynamic(ShapeContext ctx) {
        Op op = ctx.op();
        ctx.sameAsInput(0, 0);
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        int rank = src.length;
        boolean group = groupApplies(op);
        if (group && op.longsAttr("group_shape").length != rank) {
            throw ctx.error("group_shape " + Arrays.toString(op.longsAttr("group_shape")) + " has "
                    + op.longsAttr("group_shape").length + " entries but src " + dimsToString(src) + " has rank "
                    + rank);
        }
        if (op.hasAttr("mask")) {
            long mask = op.longAttr("mask");
            if (rank < 63 && (mask >> rank) != 0) {
                throw ctx.error("mask " + mask + " selects dims beyond src " + dimsToString(src) + " of rank " + rank);
            }
            long lastTwo = rank >= 2 ? (1L << (rank - 1)) | (1L << (rank - 2)) : 0;
            if (group && (mask & lastTwo) != lastTwo) {
                throw ctx.error("mask " + mask + " with group_shape must set the bits of the last two dims ("
                        + lastTwo + ")");
            }
        } else if (!group && "per_channel".equals(op.stringAttr("qtype"))) {
            long axisAttr = op.longAttr("axis");
            if (Dims.normalizeAxis(axisAttr, rank) < 0) {
                throw ctx.error("per_channel axis " + axisAttr + " is out of range for src " + dimsToString(src)
                        + "; expected [-" + rank + ", " + (rank - 1) + "]");
            }
        }
        long[] scales = ctx.dims(1);
        if (!Dims.allKnown(src) || !Dims.allKnown(scales)) {
            return;
        }
        long[] expected = scaleDims(op, src);
        if (!scalesMatch(scales, expected)) {
            throw ctx.error("scales (input 1, tensor " + ctx.input(1).id() + ") " + dimsToString(scales)
                    + " do not fit src " + dimsToString(src) + " with " + granularity(op) + "; expected "
                    + dimsToString(expected) + (packed(expected).length != rank && packed(expected).length > 0
                            ? " or " + dimsToString(packed(expected)) : "")
                    + (packed(expected).length == 0 ? " (one element)" : ""));
        }
        if (ctx.hasInput(2)) {
            long[] zps = ctx.dims(2);
            if (zps != null && Dims.allKnown(zps) && !isScalar(zps) && !Arrays.equals(zps, scales)) {
                throw ctx.error("zps (input 2, tensor " + ctx.input(2).id() + ") " + dimsToString(zps)
                        + " must be a single value or have the scales' dims " + dimsToString(scales));
            }
        }
    }

    private static String granularity(Op op) {
        if (groupApplies(op)) {
            return "group_shape " + Arrays.toString(op.longsAttr("group_shape"));
        }
        if (op.hasAttr("mask")) {
            return "mask " + op.longAttr("mask");
        }
        String qtype = op.stringAttr("qtype");
        return "per_channel".equals(qtype) ? "per_channel axis " + op.longAttr("axis") : qtype;
    }

    private static boolean isScalar(long[] dims) {
        for (long d : dims) {
            if (d != 1) {
                return false;
            }
        }
        return true;
    }

    private static long[] packed(long[] expected) {
        return Arrays.stream(expected).filter(d -> d != 1).toArray();
    }

    /** Scales given full-rank or packed (dims of 1 dropped); a single value for per-tensor. */
    private static boolean scalesMatch(long[] scales, long[] expected) {
        long[] packed = packed(expected);
        if (packed.length == 0) {
            return isScalar(scales);
        }
        return Arrays.equals(scales, expected) || Arrays.equals(scales, packed);
    }

    /**
     * The full-rank dims of the scales for a src of known dims: 1 on dims sharing one scale, the
     * number of scales along the others (src dim for per-channel/mask dims, src dim / group size
     * for grouped dims). Scales given packed (dims of 1 dropped) have the same row-major order.
     *
     * @throws InvalidGraphException naming the op when a group size does not divide its src dim
     */
    public static long[] scaleDims(Op op, long[] src) {
        int rank = src.length;
        long[] exp = new long[rank];
        Arrays.fill(exp, 1);
        if (groupApplies(op)) {
            long[] g = op.longsAttr("group_shape");
            for (int d = 0; d < rank; d++) {
                if (g[d] > src[d] || src[d] % g[d] != 0) {
                    throw error(op, "group_shape " + Arrays.toString(g) + " does not divide src " + dimsToString(src)
                            + " at dim " + d + " (" + src[d] + " is not a multiple of " + g[d] + ")");
                }
                exp[d] = src[d] / g[d];
            }
        } else if (op.hasAttr("mask")) {
            long mask = op.longAttr("mask");
            for (int d = 0; d < rank; d++) {
                if ((mask >> d & 1) != 0) {
                    exp[d] = src[d];
                }
            }
        } else if ("per_channel".equals(op.stringAttr("qtype"))) {
            int axis = Dims.normalizeAxis(op.longAttr("axis"), rank);
            exp[axis] = src[axis];
        }
        return exp;
    }
}
