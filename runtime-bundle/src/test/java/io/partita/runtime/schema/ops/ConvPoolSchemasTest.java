package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.registry.OpSchemas;

/**
 * Schemas of the convolution, pooling and interpolation ops: attribute checks, output shapes
 * (auto_pad, rounding, groups, layouts, shape inputs and attributes, placeholders) and the errors
 * for bad graphs, which name the op and what was expected.
 */
class ConvPoolSchemasTest {
    private static final long U = UNKNOWN_DIM;
    private static final long D = DYNAMIC_DIM;

    private static long[] l(long... v) {
        return v;
    }

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    private static LogicalTensor any(long id) {
        return LogicalTensor.unknownRank(id, DataType.F32);
    }

    private static Op.Builder conv(OpKind kind, long[] s, long[] pb, long[] pe) {
        long[] d = new long[s.length];
        java.util.Arrays.fill(d, 1);
        boolean t = kind.name().startsWith("ConvTranspose");
        return Op.builder(0, kind).attr("strides", s).attr("dilations", d).attr("pads_begin", pb).attr("pads_end", pe)
                .attr("data_format", "NCX").attr("weights_format", t ? "IOX" : "OIX");
    }

    private static Op.Builder pool(OpKind kind, long[] k, long[] s, long[] pb, long[] pe) {
        Op.Builder b = Op.builder(0, kind).attr("kernel", k).attr("strides", s).attr("pads_begin", pb)
                .attr("pads_end", pe).attr("data_format", "NCX");
        return kind == OpKind.AvgPool || kind == OpKind.AvgPoolBackward ? b.attr("exclude_pad", false) : b;
    }

    private static Op.Builder interp(OpKind kind) {
        return Op.builder(0, kind).attr("mode", "linear").attr("data_format", "NCX");
    }

    private static long[] infer(Op op) {
        return infer(op, Map.of());
    }

    private static long[] infer(Op op, Map<Long, long[]> values) {
        OpSchemaImpl s = OpSchemas.of(op);
        Op v = s.validate(op);
        return s.inferOutputs(v, v.inputs(), values).get(0).dims();
    }

    /** The op is refused with a message naming it and containing each expected part. */
    private static void refused(Op op, String... parts) {
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> infer(op));
        String m = e.getMessage();
        assertTrue(m.contains("op 0 (" + op.kind().spelling()), "names the op: " + m);
        for (String p : parts) {
            assertTrue(m.contains(p), "message contains '" + p + "': " + m);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Defaults

    @Test
    void defaultsFollowOneDnn() {
        Op op = Op.builder(0, OpKind.Convolution).attr("strides", l(1)).attr("dilations", l(1))
                .attr("pads_begin", l(0)).attr("pads_end", l(0)).inputs(f32(0, 1, 4, 3), f32(1, 3, 3, 2))
                .output(any(2)).build();
        Op v = OpSchemas.of(op).validate(op);
        assertTrue(v.stringAttr("data_format").equals("NXC") && v.stringAttr("weights_format").equals("XIO")
                && v.stringAttr("auto_pad").equals("None") && v.longAttr("groups") == 1, v.toString());
        // NXC src [1, 4, 3] (3 channels, 4 positions) with XIO weights [3, 3, 2]: 2 positions, 2 channels.
        assertArrayEquals(l(1, 2, 2), infer(op));
        Op t = Op.builder(0, OpKind.ConvTranspose).attr("strides", l(1)).attr("dilations", l(1))
                .attr("pads_begin", l(0)).attr("pads_end", l(0)).inputs(f32(0, 1, 4, 3), f32(1, 2, 5, 3))
                .output(any(2)).build();
        assertTrue(OpSchemas.of(t).validate(t).stringAttr("weights_format").equals("XOI"));
        // XOI [K=2, OC/g=5, IC=3]: 1 * (4 - 1) + 2 = 5 positions, 5 channels.
        assertArrayEquals(l(1, 5, 5), infer(t));
    }

    // ---------------------------------------------------------------------------------------------
    // Convolution shapes

    @Test
    void convolutionShapes() {
        // corpus conv_2d: stride 2, 2x2 kernel.
        assertArrayEquals(l(2, 128, 14, 14), infer(conv(OpKind.Convolution, l(2, 2), l(0, 0), l(0, 0))
                .inputs(f32(0, 2, 32, 28, 28), f32(1, 128, 32, 2, 2)).output(any(2)).build()));
        // Channels last with XIO weights.
        assertArrayEquals(l(2, 14, 14, 128), infer(conv(OpKind.Convolution, l(2, 2), l(0, 0), l(0, 0))
                .attr("data_format", "NXC").attr("weights_format", "XIO")
                .inputs(f32(0, 2, 28, 28, 32), f32(1, 2, 2, 32, 128)).output(any(2)).build()));
        // 3-D with bias (corpus conv_3d).
        assertArrayEquals(l(1, 32, 114, 130, 130), infer(conv(OpKind.Convolution, l(1, 1, 1), l(0, 0, 0), l(0, 0, 0))
                .inputs(f32(0, 1, 3, 116, 132, 132), f32(1, 32, 3, 3, 3, 3), f32(3, 32)).output(any(2)).build()));
        // groups 2 (weights I = 4 / 2), dilation 2, pads 1/0: floor((10 + 1 - 5) / 1) + 1 = 7.
        assertArrayEquals(l(1, 6, 7), infer(conv(OpKind.Convolution, l(1), l(1), l(0)).attr("groups", 2L)
                .attr("dilations", l(2)).inputs(f32(0, 1, 4, 10), f32(1, 6, 2, 3)).output(any(2)).build()));
        // Empty pads mean zeros (as oneDNN).
        assertArrayEquals(l(1, 1, 3), infer(conv(OpKind.Convolution, l(1), l(), l())
                .inputs(f32(0, 1, 1, 5), f32(1, 1, 1, 3)).output(any(2)).build()));
    }

    @Test
    void convolutionAutoPad() {
        // 5 positions, kernel 3, stride 2: SAME keeps ceil(5/2) = 3; VALID ignores the pads.
        for (String mode : new String[] {"SAME_UPPER", "SAME_LOWER"}) {
            assertArrayEquals(l(1, 8, 3, 3), infer(conv(OpKind.Convolution, l(2, 2), l(0, 0), l(0, 0))
                    .attr("auto_pad", mode).inputs(f32(0, 1, 3, 5, 5), f32(1, 8, 3, 3, 3)).output(any(2)).build()));
        }
        assertArrayEquals(l(1, 8, 2, 2), infer(conv(OpKind.Convolution, l(2, 2), l(5, 5), l(5, 5))
                .attr("auto_pad", "VALID").inputs(f32(0, 1, 3, 5, 5), f32(1, 8, 3, 3, 3)).output(any(2)).build()));
        // The pads SAME_* resolve to: total 2 at stride 2 over 5 -> 1/1; total 1 over 4 at stride 1 -> 0/1 or 1/0.
        long[][] p = ConvPoolGeometry.resolvePads("SAME_UPPER", l(4), l(2), l(1), l(1), l(0), l(0), false);
        assertArrayEquals(l(0), p[0]);
        assertArrayEquals(l(1), p[1]);
        p = ConvPoolGeometry.resolvePads("SAME_LOWER", l(4), l(2), l(1), l(1), l(0), l(0), false);
        assertArrayEquals(l(1), p[0]);
        assertArrayEquals(l(0), p[1]);
        // Transposed: total = dilated kernel - stride, whatever the input size.
        p = ConvPoolGeometry.resolvePads("SAME_UPPER", l(7), l(3), l(2), l(1), l(0), l(0), true);
        assertArrayEquals(l(0), p[0]);
        assertArrayEquals(l(1), p[1]);
    }

    @Test
    void convolutionPlaceholders() {
        // Unknown batch stays unknown, a dynamic spatial dim stays dynamic.
        assertArrayEquals(l(U, 4, D, 6), infer(conv(OpKind.Convolution, l(1, 1), l(0, 0), l(0, 0))
                .inputs(f32(0, U, 3, D, 8), f32(1, 4, 3, 3, 3)).output(any(2)).build()));
        // Weights of unknown rank: the channels and kernel, so the spatial sizes, are unknown.
        assertArrayEquals(l(2, U, U), infer(conv(OpKind.Convolution, l(1), l(0), l(0))
                .inputs(f32(0, 2, 3, 8), any(1)).output(any(2)).build()));
        // src of unknown rank: nothing inferred, the declaration stays.
        assertNull(infer(conv(OpKind.Convolution, l(1), l(0), l(0)).inputs(any(0), f32(1, 4, 3, 3)).output(any(2))
                .build()));
        // SAME_* with an unknown size: unknown output size.
        assertArrayEquals(l(1, 4, U), infer(conv(OpKind.Convolution, l(2), l(0), l(0)).attr("auto_pad", "SAME_UPPER")
                .inputs(f32(0, 1, 3, U), f32(1, 4, 3, 3)).output(any(2)).build()));
    }

    @Test
    void convTransposeShapes() {
        // corpus deconv: 2 * (28 - 1) + 3 - 0 - 41 = 16; oneDNN's 12-long output_padding default accepted.
        assertArrayEquals(l(1, 128, 16, 16), infer(conv(OpKind.ConvTranspose, l(2, 2), l(0, 0), l(41, 41))
                .attr("output_padding", new long[12]).inputs(f32(0, 1, 32, 28, 28), f32(1, 32, 128, 3, 3))
                .output(any(2)).build()));
        // groups 16 with IOX [IC, OC/g, K] (corpus int8_convtranspose_post_ops_sum_fusion_2).
        assertArrayEquals(l(2, 16, 5, 5), infer(conv(OpKind.ConvTranspose, l(1, 1), l(1, 1), l(1, 1))
                .attr("groups", 16L).inputs(f32(0, 2, 16, 5, 5), f32(1, 16, 1, 3, 3), f32(3, 16)).output(any(2))
                .build()));
        // groups 4: IC 16, weights [16, 5, K] -> OC 20.
        assertArrayEquals(l(2, 20, 5, 5), infer(conv(OpKind.ConvTranspose, l(1, 1), l(1, 1), l(1, 1))
                .attr("groups", 4L).inputs(f32(0, 2, 16, 5, 5), f32(1, 16, 5, 3, 3)).output(any(2)).build()));
        // SAME_UPPER: stride * in; output_padding adds at the end; NXC with XOI.
        assertArrayEquals(l(1, 56, 56, 128), infer(conv(OpKind.ConvTranspose, l(2, 2), l(0, 0), l(0, 0))
                .attr("auto_pad", "SAME_UPPER").attr("data_format", "NXC").attr("weights_format", "XOI")
                .inputs(f32(0, 1, 28, 28, 32), f32(1, 3, 3, 128, 32)).output(any(2)).build()));
        // 2 * (3 - 1) + 2 + 1 = 7.
        assertArrayEquals(l(1, 4, 7), infer(conv(OpKind.ConvTranspose, l(2), l(0), l(0)).attr("output_padding", l(1))
                .inputs(f32(0, 1, 2, 3), f32(1, 2, 4, 2)).output(any(2)).build()));
    }

    @Test
    void convBackwardDataShapes() {
        Op.Builder base = conv(OpKind.ConvolutionBackwardData, l(2, 2), l(0, 0), l(0, 0));
        // dst_shape attribute (corpus conv_bwd_d_2d).
        assertArrayEquals(l(1, 32, 28, 28), infer(conv(OpKind.ConvolutionBackwardData, l(2, 2), l(0, 0), l(0, 0))
                .attr("dst_shape", l(1, 32, 28, 28)).attr("output_padding", new long[12])
                .inputs(f32(0, 1, 128, 14, 14), f32(1, 128, 32, 1, 1)).output(any(2)).build()));
        // dst_shape input with known values (precedes a contradicting attribute).
        Op withInput = base.attr("dst_shape", l(1, 32, 29, 29))
                .inputs(f32(0, 1, 128, 14, 14), f32(1, 128, 32, 1, 1), LogicalTensor.of(5, DataType.S32, 4))
                .output(any(2)).build();
        assertArrayEquals(l(1, 32, 28, 28), infer(withInput, Map.of(5L, l(1, 32, 28, 28))));
        // Values not known: batch and channels from the inputs, sizes dynamic (given at execution) ...
        assertArrayEquals(l(1, 32, D, D), infer(withInput));
        // ... unless the graph declares them (the declared output wins, as oneDNN).
        Op declared = conv(OpKind.ConvolutionBackwardData, l(2, 2), l(0, 0), l(0, 0))
                .inputs(f32(0, 1, 128, 14, 14), f32(1, 128, 32, 1, 1), LogicalTensor.of(5, DataType.S32, 4))
                .output(f32(2, 1, 32, 28, 28)).build();
        assertArrayEquals(l(1, 32, 28, 28), infer(declared));
        // No shape at all: the sizes are unknown; all-zero dst_shape (oneDNN's default) means not given.
        assertArrayEquals(l(1, 32, U, U), infer(conv(OpKind.ConvolutionBackwardData, l(2, 2), l(0, 0), l(0, 0))
                .attr("dst_shape", new long[12]).inputs(f32(0, 1, 128, 14, 14), f32(1, 128, 32, 1, 1))
                .output(any(2)).build()));
        // NXC dst_shape / XIO weights (harness override of conv_bwd_d_2d).
        assertArrayEquals(l(1, 28, 28, 32), infer(conv(OpKind.ConvolutionBackwardData, l(2, 2), l(0, 0), l(0, 0))
                .attr("data_format", "NXC").attr("weights_format", "XIO").attr("dst_shape", l(1, 28, 28, 32))
                .inputs(f32(0, 1, 14, 14, 128), f32(1, 1, 1, 32, 128)).output(any(2)).build()));
    }

    @Test
    void convBackwardWeightsShapes() {
        assertArrayEquals(l(128, 32, 1, 1), infer(conv(OpKind.ConvolutionBackwardWeights, l(2, 2), l(0, 0), l(0, 0))
                .attr("weights_shape", l(128, 32, 1, 1)).inputs(f32(0, 1, 32, 28, 28), f32(1, 1, 128, 14, 14))
                .output(any(2)).build()));
        // XIO and groups without a shape: [K..., I/g, O] with the kernel unknown.
        assertArrayEquals(l(U, U, 16, 128), infer(conv(OpKind.ConvolutionBackwardWeights, l(2, 2), l(0, 0), l(0, 0))
                .attr("weights_format", "XIO").attr("groups", 2L).inputs(f32(0, 1, 32, 28, 28), f32(1, 1, 128, 14, 14))
                .output(any(2)).build()));
        // Transposed: IOX [IC, OC/g, K] (corpus deconv_bwd_w).
        assertArrayEquals(l(32, 128, 3, 3), infer(conv(OpKind.ConvTransposeBackwardWeights, l(2, 2), l(0, 0),
                l(41, 41)).attr("weights_shape", l(32, 128, 3, 3)).inputs(f32(0, 1, 32, 28, 28), f32(1, 1, 128, 16, 16))
                .output(any(2)).build()));
        assertArrayEquals(l(32, 64, U, U), infer(conv(OpKind.ConvTransposeBackwardWeights, l(2, 2), l(0, 0),
                l(41, 41)).attr("groups", 2L).inputs(f32(0, 1, 32, 28, 28), f32(1, 1, 128, 16, 16)).output(any(2))
                .build()));
    }

    @Test
    void convTransposeBackwardDataShapes() {
        // corpus deconv_bwd_d: the convolution of diff_dst: (16 + 41 - 3) / 2 + 1 = 28.
        assertArrayEquals(l(1, 32, 28, 28), infer(conv(OpKind.ConvTransposeBackwardData, l(2, 2), l(0, 0), l(41, 41))
                .inputs(f32(0, 1, 128, 16, 16), f32(1, 32, 128, 3, 3)).output(any(2)).build()));
    }

    // ---------------------------------------------------------------------------------------------
    // Pooling and interpolation shapes

    @Test
    void poolingShapes() {
        assertArrayEquals(l(1, 64, 300, 300), infer(pool(OpKind.AvgPool, l(3, 3), l(2, 2), l(1, 1), l(0, 0))
                .input(f32(0, 1, 64, 600, 600)).output(any(1)).build()));
        // floor vs ceil: (5 - 2) / 2 = 1.5.
        assertArrayEquals(l(1, 1, 2, 2), infer(pool(OpKind.MaxPool, l(2, 2), l(2, 2), l(0, 0), l(0, 0))
                .input(f32(0, 1, 1, 5, 5)).output(any(1)).build()));
        assertArrayEquals(l(1, 1, 3, 3), infer(pool(OpKind.MaxPool, l(2, 2), l(2, 2), l(0, 0), l(0, 0))
                .attr("rounding_type", "ceil").input(f32(0, 1, 1, 5, 5)).output(any(1)).build()));
        // Negative pads_end (corpus avgpool_3d_chain_fusion).
        assertArrayEquals(l(2, 9, 11, 31, 21), infer(pool(OpKind.AvgPool, l(2, 4, 3), l(2, 2, 2), l(1, 1, 1),
                l(-1, 1, 0)).attr("exclude_pad", true).input(f32(0, 2, 9, 22, 62, 42)).output(any(1)).build()));
        // NXC, SAME_LOWER, dilations (oneDNN's 12-long all-ones default accepted), placeholders.
        long[] ones = new long[12];
        java.util.Arrays.fill(ones, 1);
        assertArrayEquals(l(D, 4, 3, 3), infer(pool(OpKind.MaxPool, l(3, 3), l(2, 1), l(0, 0), l(0, 0))
                .attr("data_format", "NXC").attr("auto_pad", "SAME_LOWER").attr("dilations", ones)
                .input(f32(0, D, 7, 3, 3)).output(any(1)).build()));
        // Dilated kernel: 3 dilated by 2 spans 5.
        assertArrayEquals(l(1, 1, 6), infer(pool(OpKind.MaxPool, l(3), l(1), l(0), l(0)).attr("dilations", l(2))
                .input(f32(0, 1, 1, 10)).output(any(1)).build()));
    }

    @Test
    void poolingBackwardShapes() {
        // src_shape attribute, or input (values known, else the declaration, else dynamic).
        Op attr = pool(OpKind.AvgPoolBackward, l(3, 3), l(2, 2), l(1, 1), l(0, 0)).attr("src_shape", l(1, 64, 600, 600))
                .input(f32(0, 1, 64, 300, 300)).output(any(1)).build();
        assertArrayEquals(l(1, 64, 600, 600), infer(attr));
        Op input = pool(OpKind.AvgPoolBackward, l(3, 3), l(2, 2), l(1, 1), l(0, 0))
                .inputs(f32(0, 1, 64, 300, 300), LogicalTensor.of(4, DataType.S32, 4)).output(any(1)).build();
        assertArrayEquals(l(1, 64, 600, 600), infer(input, Map.of(4L, l(1, 64, 600, 600))));
        assertArrayEquals(l(1, 64, D, D), infer(input));
        // MaxPoolBackward: src's dims.
        assertArrayEquals(l(1, 64, 600, 600), infer(pool(OpKind.MaxPoolBackward, l(3, 3), l(2, 2), l(1, 1), l(0, 0))
                .inputs(f32(0, 1, 64, 600, 600), f32(1, 1, 64, 300, 300)).output(any(2)).build()));
        // Ceil-rounded diff_dst sizes are accepted too (the backward ops have no rounding_type).
        assertArrayEquals(l(1, 1, 5, 5), infer(pool(OpKind.MaxPoolBackward, l(2, 2), l(2, 2), l(0, 0), l(0, 0))
                .inputs(f32(0, 1, 1, 5, 5), f32(1, 1, 1, 3, 3)).output(any(2)).build()));
    }

    @Test
    void interpolateShapes() {
        assertArrayEquals(l(2, 17, 6, 12), infer(interp(OpKind.Interpolate).attr("sizes", l(6, 12))
                .input(f32(0, 2, 17, 7, 14)).output(any(1)).build()));
        // scales: floor(in * scale) in f32 as oneDNN: 21 * 0.809524 = 17.000004 -> 17; 3 * 1.66667 -> 5.
        assertArrayEquals(l(2, 17, 17), infer(interp(OpKind.Interpolate).attr("scales", new float[] {0.809524f})
                .input(f32(0, 2, 17, 21)).output(any(1)).build()));
        assertArrayEquals(l(2, 8, 4, 8, 6), infer(interp(OpKind.Interpolate).attr("scales", new float[] {2, 2, 0.5f})
                .input(f32(0, 2, 8, 2, 4, 12)).output(any(1)).build()));
        // NXC.
        assertArrayEquals(l(2, 6, 12, 17), infer(interp(OpKind.Interpolate).attr("data_format", "NXC")
                .attr("sizes", l(6, 12)).input(f32(0, 2, 7, 14, 17)).output(any(1)).build()));
        // sizes input: values, else dynamic (nothing declared).
        Op input = interp(OpKind.Interpolate).inputs(f32(0, 2, 3, 7), LogicalTensor.of(3, DataType.S32, 1))
                .output(any(1)).build();
        assertArrayEquals(l(2, 3, 9), infer(input, Map.of(3L, l(9))));
        assertArrayEquals(l(2, 3, D), infer(input));
        // Backward: src's dims.
        assertArrayEquals(l(2, 16, 3, 11), infer(interp(OpKind.InterpolateBackward).attr("scales",
                new float[] {1.66667f, 1}).inputs(f32(0, 2, 16, 3, 11), f32(1, 2, 16, 5, 11)).output(any(2)).build()));
    }

    // ---------------------------------------------------------------------------------------------
    // Refusals

    @Test
    void refusesMissingOrInvalidAttributes() {
        refused(Op.builder(0, OpKind.Convolution).attr("dilations", l(1)).attr("pads_begin", l(0))
                .attr("pads_end", l(0)).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1)).output(any(2)).build(),
                "missing required attribute 'strides'");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).attr("auto_pad", "same_upper")
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1)).output(any(2)).build(),
                "auto_pad", "[None, SAME_UPPER, SAME_LOWER, VALID]");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).attr("data_format", "NHWC")
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1)).output(any(2)).build(), "data_format", "[NCX, NXC]");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).attr("weights_format", "IOX")
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1)).output(any(2)).build(), "weights_format", "[XIO, OIX]");
        refused(conv(OpKind.Convolution, l(0), l(0), l(0)).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1)).output(any(2))
                .build(), "strides", "positive values");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).attr("groups", 0L).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1))
                .output(any(2)).build(), "groups", "a positive s64");
        refused(conv(OpKind.ConvTranspose, l(1), l(0), l(0)).attr("output_padding", l(-1))
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1)).output(any(2)).build(), "output_padding", "non-negative");
        refused(conv(OpKind.ConvolutionBackwardData, l(1), l(0), l(0)).attr("dst_shape", l(1, -1, 3))
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1)).output(any(2)).build(), "dst_shape", "positive sizes");
        refused(Op.builder(0, OpKind.AvgPool).attr("kernel", l(2)).attr("strides", l(1)).attr("pads_begin", l(0))
                .attr("pads_end", l(0)).input(f32(0, 1, 1, 3)).output(any(1)).build(),
                "missing required attribute 'exclude_pad'");
        refused(pool(OpKind.MaxPool, l(2), l(1), l(0), l(0)).attr("rounding_type", "round").input(f32(0, 1, 1, 3))
                .output(any(1)).build(), "rounding_type", "[floor, ceil]");
        refused(interp(OpKind.Interpolate).attr("mode", "cubic").attr("sizes", l(4)).input(f32(0, 1, 1, 3))
                .output(any(1)).build(), "mode", "[nearest, linear, bilinear, trilinear]");
        refused(interp(OpKind.Interpolate).attr("coordinate_transformation_mode", "asymmetric").attr("sizes", l(4))
                .input(f32(0, 1, 1, 3)).output(any(1)).build(), "[half_pixel, align_corners]");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).attr("kernel", l(1)).inputs(f32(0, 1, 1, 3),
                f32(1, 1, 1, 1)).output(any(2)).build(), "unknown attribute 'kernel'");
    }

    @Test
    void refusesInconsistentSpatialAttributes() {
        refused(conv(OpKind.Convolution, l(1, 1), l(0), l(0)).attr("dilations", l(1))
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1)).output(any(2)).build(), "strides [1, 1]", "dilations [1]",
                "same number of values");
        refused(conv(OpKind.Convolution, l(1), l(0, 0), l(0)).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1)).output(any(2))
                .build(), "pads_begin [0, 0]", "one per spatial dim");
        // Attributes for 2 spatial dims on 1-D data.
        refused(conv(OpKind.Convolution, l(1, 1), l(0, 0), l(0, 0)).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1))
                .output(any(2)).build(), "strides [1, 1] has 2 values", "src [1,1,3] has 1 spatial dims");
        refused(conv(OpKind.ConvTranspose, l(1), l(0), l(0)).attr("output_padding", l(1, 1))
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1)).output(any(2)).build(),
                "output_padding [1, 1] has 2 values but src [1,1,3] has 1 spatial dims");
        refused(pool(OpKind.MaxPool, l(2, 2), l(1, 1), l(0, 0), l(0, 0)).attr("dilations", l(1))
                .input(f32(0, 1, 1, 3, 3)).output(any(1)).build(), "dilations [1]", "one value per kernel dim");
        refused(pool(OpKind.MaxPool, l(2, 2, 2, 2), l(1, 1, 1, 1), l(0, 0, 0, 0), l(0, 0, 0, 0))
                .input(f32(0, 1, 1, 3, 3)).output(any(1)).build(), "1 to 3 values");
    }

    @Test
    void refusesBadRanksAndTypes() {
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).inputs(f32(0, 1, 3), f32(1, 1, 1, 1)).output(any(2))
                .build(), "src (input 0", "has rank 2", "expected rank 3 to 5");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1, 1))
                .output(any(2)).build(), "must have the same rank");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0))
                .inputs(LogicalTensor.of(0, DataType.S8, 1, 1, 3), LogicalTensor.of(1, DataType.S8, 1, 1, 1))
                .output(any(2)).build(), "data type s8", "expected one of [bf16, f16, f32]");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).input(f32(0, 1, 1, 3)).output(any(2)).build(),
                "has 1 inputs", "src, weights, bias?");
        refused(conv(OpKind.ConvolutionBackwardData, l(1), l(0), l(0)).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1),
                LogicalTensor.of(5, DataType.S32, 2)).output(any(2)).build(), "dst_shape (input 2)", "3 values");
        refused(interp(OpKind.Interpolate).attr("sizes", l(4, 4)).input(f32(0, 1, 1, 3)).output(any(1)).build(),
                "attribute sizes [4, 4] has 2 values", "1 spatial dims");
    }

    @Test
    void refusesChannelAndShapeContradictions() {
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).inputs(f32(0, 1, 4, 3), f32(1, 2, 3, 1)).output(any(2))
                .build(), "need 4 input channels, not 3");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).attr("groups", 2L).inputs(f32(0, 1, 5, 3), f32(1, 2, 2, 1))
                .output(any(2)).build(), "5 channels, not divisible by groups=2");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).inputs(f32(0, 1, 1, 3), f32(1, 4, 1, 1), f32(3, 3))
                .output(any(2)).build(), "bias (input 2) [3] has 3 values but the output has 4 channels");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).inputs(f32(0, 1, 1, 2), f32(1, 1, 1, 5)).output(any(2))
                .build(), "dst spatial dim 0 would be -2");
        refused(conv(OpKind.Convolution, l(1), l(0), l(0)).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 1))
                .output(f32(2, 1, 1, 4)).build(), "declared [1,1,4] but its inputs give [1,1,3]");
        refused(conv(OpKind.ConvTranspose, l(1), l(0), l(0)).inputs(f32(0, 1, 3, 3), f32(1, 2, 1, 1)).output(any(2))
                .build(), "src [1,3,3] has 3 channels but the weights (IOX) [2,1,1] have 2 input channels");
        // Backward data: the given shape contradicts the weights, or does not convolve to diff_dst.
        refused(conv(OpKind.ConvolutionBackwardData, l(2), l(0), l(0)).attr("dst_shape", l(1, 5, 6))
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 2, 2)).output(any(2)).build(),
                "attribute dst_shape [1,5,6] contradicts the inputs, which give [1,2,?]");
        refused(conv(OpKind.ConvolutionBackwardData, l(2), l(0), l(0)).attr("dst_shape", l(1, 2, 9))
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 2, 2)).output(any(2)).build(),
                "diff_dst has spatial dims [3] but convolving diff_src spatial dims [9]", "gives [4]");
        refused(conv(OpKind.ConvolutionBackwardData, l(1), l(0), l(0)).attr("dst_shape", l(1, 2, 3))
                .inputs(f32(0, 1, 3, 3), f32(1, 2, 2, 1)).output(any(2)).build(),
                "diff_dst [1,3,3] has 3 channels but the weights (OIX) [2,2,1] have 2 output channels");
        refused(conv(OpKind.ConvolutionBackwardWeights, l(1), l(0), l(0)).attr("weights_shape", l(1, 1, 2))
                .inputs(f32(0, 2, 1, 4), f32(1, 1, 1, 3)).output(any(2)).build(), "different batch sizes");
        refused(pool(OpKind.MaxPoolBackward, l(2), l(2), l(0), l(0)).inputs(f32(0, 1, 1, 8), f32(1, 1, 1, 5))
                .output(any(2)).build(), "diff_dst has spatial dims [5] but pooling src spatial dims [8]");
        refused(pool(OpKind.AvgPoolBackward, l(2), l(2), l(0), l(0)).attr("src_shape", l(1, 2, 8))
                .input(f32(0, 1, 1, 4)).output(any(1)).build(), "attribute src_shape [1,2,8] contradicts the inputs");
        refused(interp(OpKind.InterpolateBackward).attr("sizes", l(4)).inputs(f32(0, 1, 2, 3), f32(1, 1, 3, 4))
                .output(any(2)).build(), "different channel counts");
        refused(interp(OpKind.InterpolateBackward).attr("sizes", l(4)).inputs(f32(0, 1, 2, 3), f32(1, 1, 2, 5))
                .output(any(2)).build(), "diff_dst [1,2,5] has spatial dims [5] but sizes are [4]");
    }

    @Test
    void refusesInterpolateWithoutExactlyOneOfSizesAndScales() {
        refused(interp(OpKind.Interpolate).attr("sizes", l(4)).attr("scales", new float[] {2})
                .input(f32(0, 1, 1, 2)).output(any(1)).build(), "sizes and scales are both given");
        refused(interp(OpKind.Interpolate).input(f32(0, 1, 1, 2)).output(any(1)).build(),
                "neither attribute sizes nor scales nor the sizes input");
        refused(interp(OpKind.Interpolate).attr("scales", new float[] {0}).input(f32(0, 1, 1, 2)).output(any(1))
                .build(), "scales", "positive finite scales");
        // A scale so small that the output would be empty.
        refused(interp(OpKind.Interpolate).attr("scales", new float[] {0.25f}).input(f32(0, 1, 1, 3)).output(any(1))
                .build(), "dst spatial dim 0 would be 0");
    }
}
