package io.partita.runtime.schema.ops;

import static io.partita.runtime.schema.ops.ConvPoolGeometry.PAD_NONE;
import static io.partita.runtime.schema.ops.ConvPoolGeometry.PAD_SAME_LOWER;
import static io.partita.runtime.schema.ops.ConvPoolGeometry.PAD_SAME_UPPER;
import static io.partita.runtime.schema.ops.ConvPoolGeometry.PAD_VALID;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
import io.partita.runtime.schema.OpSchemaImpl;

/**
 * Convolution, transposed convolution, pooling and interpolation (forward and backward).
 *
 * <p>Attribute names, types, defaults and accepted values follow oneDNN's op schemas: data_format
 * defaults to {@code NXC}, weights_format to {@code XIO} ({@code XOI} for transposed
 * convolutions), auto_pad is one of {@code None}, {@code SAME_UPPER}, {@code SAME_LOWER},
 * {@code VALID} (the spellings oneDNN's schemas accept and its JSON dumps use), dilations are
 * 1-based (1 = none). Pads may be negative (the corpus crops with a negative {@code pads_end});
 * the output sizes must stay positive. The shape attributes of backward ops ({@code dst_shape},
 * {@code weights_shape}, {@code src_shape}) are "not given" when absent or all zeros (oneDNN's
 * default), and a shape input takes precedence over them.
 */
public final class ConvPoolSchemas {
    private static final String[] AUTO_PADS = {PAD_NONE, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID};
    private static final DataType[] FLOAT_TYPES = {DataType.F32, DataType.BF16, DataType.F16};
    private static final DataType[] FLOAT_AND_S32 = {DataType.F32, DataType.BF16, DataType.F16, DataType.S32};
    private static final Set<DataType> SHAPE_TYPES = Set.of(DataType.S32);

    private ConvPoolSchemas() {
    }

    public static void register(Consumer<OpSchemaImpl> r) {
        r.accept(forwardConv(OpKind.Convolution, false).shape(ConvPoolShapes::convolution).build());
        r.accept(convCommon(OpSchemaImpl.builder(OpKind.ConvolutionBackwardData), false)
                .typeVar("T", FLOAT_TYPES)
                .input("diff_dst", "T")
                .input("weights", "T")
                .optionalInput("dst_shape", SHAPE_TYPES, ValueDomain.SHAPE)
                .output("diff_src", "T")
                .attr(outputPadding())
                .attr(shapeAttr("dst_shape"))
                .shape(ConvPoolShapes::convolutionBackwardData)
                .build());
        r.accept(convCommon(OpSchemaImpl.builder(OpKind.ConvolutionBackwardWeights), false)
                .typeVar("T", FLOAT_TYPES)
                .input("src", "T")
                .input("diff_dst", "T")
                .optionalInput("weights_shape", SHAPE_TYPES, ValueDomain.SHAPE)
                .output("diff_weights", "T")
                .attr(shapeAttr("weights_shape"))
                .shape(ConvPoolShapes::convolutionBackwardWeights)
                .build());
        r.accept(forwardConv(OpKind.ConvTranspose, true)
                .attr(outputPadding())
                .shape(ConvPoolShapes::convTranspose)
                .build());
        r.accept(convCommon(OpSchemaImpl.builder(OpKind.ConvTransposeBackwardData), true)
                .typeVar("T", FLOAT_TYPES)
                .input("diff_dst", "T")
                .input("weights", "T")
                .output("diff_src", "T")
                .attr(outputPadding())
                .shape(ConvPoolShapes::convTransposeBackwardData)
                .build());
        r.accept(convCommon(OpSchemaImpl.builder(OpKind.ConvTransposeBackwardWeights), true)
                .typeVar("T", FLOAT_TYPES)
                .input("src", "T")
                .input("diff_dst", "T")
                .optionalInput("weights_shape", SHAPE_TYPES, ValueDomain.SHAPE)
                .output("diff_weights", "T")
                .attr(outputPadding())
                .attr(shapeAttr("weights_shape"))
                .shape(ConvPoolShapes::convTransposeBackwardWeights)
                .build());

        r.accept(poolCommon(OpSchemaImpl.builder(OpKind.AvgPool))
                .typeVar("T1", FLOAT_TYPES)
                .typeVar("T2", FLOAT_TYPES)
                .input("src", "T1")
                .output("dst", "T2")
                .requiredAttr("exclude_pad", AttrType.BOOL)
                .attr("rounding_type", "floor", "floor", "ceil")
                .shape(ConvPoolShapes::pool)
                .build());
        r.accept(poolCommon(OpSchemaImpl.builder(OpKind.AvgPoolBackward))
                .typeVar("T", FLOAT_TYPES)
                .input("diff_dst", "T")
                .optionalInput("src_shape", SHAPE_TYPES, ValueDomain.SHAPE)
                .output("diff_src", "T")
                .requiredAttr("exclude_pad", AttrType.BOOL)
                .attr(shapeAttr("src_shape"))
                .shape(ConvPoolShapes::avgPoolBackward)
                .build());
        r.accept(poolCommon(OpSchemaImpl.builder(OpKind.MaxPool))
                .typeVar("T1", FLOAT_TYPES)
                .typeVar("T2", FLOAT_TYPES)
                .input("src", "T1")
                .output("dst", "T2")
                .attr(positiveList("dilations", false))
                .attr("rounding_type", "floor", "floor", "ceil")
                .validator(ConvPoolSchemas::checkPoolDilations)
                .shape(ConvPoolShapes::pool)
                .build());
        r.accept(poolCommon(OpSchemaImpl.builder(OpKind.MaxPoolBackward))
                .typeVar("T", FLOAT_TYPES)
                .input("src", "T")
                .input("diff_dst", "T")
                .output("diff_src", "T")
                .attr(positiveList("dilations", false))
                .validator(ConvPoolSchemas::checkPoolDilations)
                .shape(ConvPoolShapes::maxPoolBackward)
                .build());

        r.accept(interpolateCommon(OpSchemaImpl.builder(OpKind.Interpolate))
                .typeVar("T1", FLOAT_TYPES)
                .typeVar("T2", FLOAT_TYPES)
                .input("src", "T1")
                .optionalInput("sizes", SHAPE_TYPES, ValueDomain.SHAPE)
                .output("dst", "T2")
                .validator(op -> checkSizesOrScales(op, 1))
                .shape(ConvPoolShapes::interpolate)
                .build());
        r.accept(interpolateCommon(OpSchemaImpl.builder(OpKind.InterpolateBackward))
                .typeVar("T", FLOAT_TYPES)
                .input("src", "T")
                .input("diff_dst", "T")
                .optionalInput("sizes", SHAPE_TYPES, ValueDomain.SHAPE)
                .output("diff_src", "T")
                .validator(op -> checkSizesOrScales(op, 2))
                .shape(ConvPoolShapes::interpolateBackward)
                .build());
    }

    /**
     * Convolution / ConvTranspose: src and weights of one type, bias and dst of their own. A
     * Convolution's dst may also be s32 (beyond oneDNN): the exact integer sums of ONNX ConvInteger,
     * whose operands are dequantized integers; the reference accumulates in double, so they are exact.
     */
    private static OpSchemaImpl.Builder forwardConv(OpKind kind, boolean transposed) {
        return convCommon(OpSchemaImpl.builder(kind), transposed)
                .typeVar("T1", FLOAT_TYPES)
                .typeVar("T2", FLOAT_TYPES)
                .typeVar("T3", transposed ? FLOAT_TYPES : FLOAT_AND_S32)
                .input("src", "T1")
                .input("weights", "T1")
                .optionalInput("bias", "T2")
                .output("dst", "T3");
    }

    private static OpSchemaImpl.Builder convCommon(OpSchemaImpl.Builder b, boolean transposed) {
        return b.attr(positiveList("strides", true))
                .attr(AttrSpec.required("pads_begin", AttrType.S64_ARRAY))
                .attr(AttrSpec.required("pads_end", AttrType.S64_ARRAY))
                .attr(positiveList("dilations", true))
                .attr("auto_pad", PAD_NONE, AUTO_PADS)
                .attr(AttrSpec.withDefault("groups", AttrValue.of(1L)).checked(v -> v.asLong() >= 1, "a positive s64"))
                .attr("data_format", "NXC", "NCX", "NXC")
                .attr(transposed ? AttrSpec.withDefault("weights_format", AttrValue.of("XOI")).oneOf("XOI", "IOX")
                        : AttrSpec.withDefault("weights_format", AttrValue.of("XIO")).oneOf("XIO", "OIX"))
                .validator(op -> checkSpatialAttrs(op, "strides", "dilations"));
    }

    private static OpSchemaImpl.Builder poolCommon(OpSchemaImpl.Builder b) {
        return b.attr(positiveList("strides", true))
                .attr(AttrSpec.required("pads_begin", AttrType.S64_ARRAY))
                .attr(AttrSpec.required("pads_end", AttrType.S64_ARRAY))
                .attr(positiveList("kernel", true))
                .attr("auto_pad", PAD_NONE, AUTO_PADS)
                .attr("data_format", "NXC", "NCX", "NXC")
                .validator(op -> checkSpatialAttrs(op, "strides", "kernel"));
    }

    private static OpSchemaImpl.Builder interpolateCommon(OpSchemaImpl.Builder b) {
        return b.attr(AttrSpec.required("mode", AttrType.STRING).oneOf("nearest", "linear", "bilinear", "trilinear"))
                .attr(AttrSpec.optional("sizes", AttrType.S64_ARRAY).checked(
                        v -> v.asLongs().length > 0 && Arrays.stream(v.asLongs()).allMatch(x -> x > 0),
                        "a non-empty list of positive sizes"))
                .attr(AttrSpec.optional("scales", AttrType.F32_ARRAY).checked(ConvPoolSchemas::positiveScales,
                        "a non-empty list of positive finite scales"))
                .attr("coordinate_transformation_mode", "half_pixel", "half_pixel", "align_corners")
                .attr("data_format", "NXC", "NCX", "NXC");
    }

    private static boolean positiveScales(AttrValue v) {
        float[] s = v.asFloats();
        if (s.length == 0) {
            return false;
        }
        for (float x : s) {
            if (!(x > 0) || Float.isInfinite(x)) {
                return false;
            }
        }
        return true;
    }

    private static AttrSpec positiveList(String name, boolean required) {
        AttrSpec s = required ? AttrSpec.required(name, AttrType.S64_ARRAY) : AttrSpec.optional(name, AttrType.S64_ARRAY);
        return s.checked(v -> v.asLongs().length > 0 && Arrays.stream(v.asLongs()).allMatch(x -> x > 0),
                "a non-empty list of positive values");
    }

    private static AttrSpec outputPadding() {
        return AttrSpec.optional("output_padding", AttrType.S64_ARRAY).checked(
                v -> Arrays.stream(v.asLongs()).allMatch(x -> x >= 0), "a list of non-negative values");
    }

    /** A shape attribute: positive sizes, or all zeros for "not given" (oneDNN's default). */
    private static AttrSpec shapeAttr(String name) {
        return AttrSpec.optional(name, AttrType.S64_ARRAY).checked(v -> {
            long[] d = v.asLongs();
            return Arrays.stream(d).allMatch(x -> x > 0) || Arrays.stream(d).allMatch(x -> x == 0);
        }, "a list of positive sizes (or all zeros for not given)");
    }

    /**
     * The per-spatial-dim attributes agree on the spatial rank (1 to 3); pads may also be empty
     * (zeros).
     */
    private static void checkSpatialAttrs(Op op, String... names) {
        List<String> seen = new ArrayList<>();
        int ns = -1;
        for (String n : names) {
            if (!op.hasAttr(n)) {
                continue;
            }
            int len = op.longsAttr(n).length;
            if (ns == -1) {
                ns = len;
            }
            seen.add(n + " " + Arrays.toString(op.longsAttr(n)));
            if (len != ns) {
                throw new InvalidGraphException(op.id(), op.describe() + ": attributes " + String.join(", ", seen)
                        + " must have the same number of values (one per spatial dim)");
            }
        }
        if (ns < 1 || ns > 3) {
            throw new InvalidGraphException(op.id(), op.describe() + ": attribute " + seen.get(0)
                    + " must have 1 to 3 values (one per spatial dim)");
        }
        for (String p : new String[] {"pads_begin", "pads_end"}) {
            int len = op.longsAttr(p).length;
            if (len != ns && len != 0) {
                throw new InvalidGraphException(op.id(), op.describe() + ": attribute " + p + " "
                        + Arrays.toString(op.longsAttr(p)) + " has " + len + " values but " + seen.get(0) + " has " + ns
                        + " (one per spatial dim)");
            }
        }
    }

    /** Pooling dilations: one per kernel dim, or oneDNN's 12-long all-ones default. */
    private static void checkPoolDilations(Op op) {
        if (!op.hasAttr("dilations")) {
            return;
        }
        long[] d = op.longsAttr("dilations");
        long[] k = op.longsAttr("kernel");
        boolean defaultOnes = d.length > k.length && Arrays.stream(d).allMatch(x -> x == 1);
        if (d.length != k.length && !defaultOnes) {
            throw new InvalidGraphException(op.id(), op.describe() + ": attribute dilations " + Arrays.toString(d)
                    + " must have one value per kernel dim, as kernel " + Arrays.toString(k));
        }
    }

    /** Interpolate: exactly one of the sizes and scales attributes, unless a sizes input gives them. */
    private static void checkSizesOrScales(Op op, int sizesInput) {
        boolean sizes = op.hasAttr("sizes");
        boolean scales = op.hasAttr("scales");
        if (sizes && scales) {
            throw new InvalidGraphException(op.id(), op.describe()
                    + ": attributes sizes and scales are both given; expected exactly one of them");
        }
        if (!sizes && !scales && op.inputs().size() <= sizesInput) {
            throw new InvalidGraphException(op.id(), op.describe()
                    + ": neither attribute sizes nor scales nor the sizes input (input " + sizesInput
                    + ") is given; expected one of them");
        }
    }
}
