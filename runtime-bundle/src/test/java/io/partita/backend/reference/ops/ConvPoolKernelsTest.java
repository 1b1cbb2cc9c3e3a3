package io.partita.backend.reference.ops;

import static io.partita.backend.reference.ops.ConvPoolTesting.anyShape;
import static io.partita.backend.reference.ops.ConvPoolTesting.conv;
import static io.partita.backend.reference.ops.ConvPoolTesting.count;
import static io.partita.backend.reference.ops.ConvPoolTesting.dot;
import static io.partita.backend.reference.ops.ConvPoolTesting.f32;
import static io.partita.backend.reference.ops.ConvPoolTesting.fromNxc;
import static io.partita.backend.reference.ops.ConvPoolTesting.ints;
import static io.partita.backend.reference.ops.ConvPoolTesting.l;
import static io.partita.backend.reference.ops.ConvPoolTesting.naiveConv;
import static io.partita.backend.reference.ops.ConvPoolTesting.permute;
import static io.partita.backend.reference.ops.ConvPoolTesting.permuteDims;
import static io.partita.backend.reference.ops.ConvPoolTesting.pool;
import static io.partita.backend.reference.ops.ConvPoolTesting.run1;
import static io.partita.backend.reference.ops.ConvPoolTesting.s32;
import static io.partita.backend.reference.ops.ConvPoolTesting.seq;
import static io.partita.backend.reference.ops.ConvPoolTesting.toNxc;
import static io.partita.backend.reference.ops.ConvPoolTesting.toSpatialFirst;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.partita.backend.reference.RefOps;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.testing.OpRunner;

/**
 * Reference kernels of convolutions, transposed convolutions, pooling and interpolation:
 * hand-computed cases, a direct transcription of oneDNN's convolution formula on random
 * problems, and the adjoint identities that tie every backward op to its forward op.
 */
class ConvPoolKernelsTest {

    private static final List<OpKind> KINDS = List.of(OpKind.Convolution, OpKind.ConvolutionBackwardData,
            OpKind.ConvolutionBackwardWeights, OpKind.ConvTranspose, OpKind.ConvTransposeBackwardData,
            OpKind.ConvTransposeBackwardWeights, OpKind.AvgPool, OpKind.AvgPoolBackward, OpKind.MaxPool,
            OpKind.MaxPoolBackward, OpKind.Interpolate, OpKind.InterpolateBackward);

    @Test
    void everyKindHasASchemaAndAKernel() {
        for (OpKind k : KINDS) {
            assertTrue(OpSchemas.find(k) != null, "schema of " + k);
            assertTrue(RefOps.find(k) != null, "kernel of " + k);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Convolution, hand-computed

    @Test
    void conv1dWithPadding() {
        // dst[o] = src[o-1]*1 + src[o]*0 + src[o+1]*(-1), zero outside.
        Op op = conv(OpKind.Convolution, l(1), l(1), l(1), l(1))
                .inputs(f32(0, 1, 1, 5), f32(1, 1, 1, 3)).output(anyShape(2)).build();
        double[] y = run1(op, seq(5, 1), new double[] {1, 0, -1});
        assertArrayEquals(new double[] {-2, -2, -2, -2, 4}, y);
        assertArrayEquals(l(1, 1, 5), OpRunner.inferredDims(op, 0));
    }

    @Test
    void conv2dGroupsDilationsBias() {
        // Channel 0 = 0..15 (4x4), channel 1 = ones; groups 2, 2x2 kernels dilated by 2 -> 2x2 out.
        // Group 0 kernel [[1,0],[0,1]]: src0(y,x) + src0(y+2,x+2) = 8y + 2x + 10, + bias 10.
        // Group 1 kernel of ones: 4 ones = 4, + bias 20.
        double[] src = new double[32];
        for (int i = 0; i < 16; i++) {
            src[i] = i;
            src[16 + i] = 1;
        }
        double[] w = {1, 0, 0, 1, 1, 1, 1, 1};
        Op op = conv(OpKind.Convolution, l(1, 1), l(2, 2), l(0, 0), l(0, 0)).attr("groups", 2L)
                .inputs(f32(0, 1, 2, 4, 4), f32(1, 2, 1, 2, 2), f32(3, 2)).output(f32(2, 1, 2, 2, 2)).build();
        double[] expected = {20, 22, 28, 30, 24, 24, 24, 24};
        assertArrayEquals(expected, run1(op, src, w, new double[] {10, 20}));

        // The same problem with channels-last data and spatial-first weights.
        Op nxc = conv(OpKind.Convolution, l(1, 1), l(2, 2), l(0, 0), l(0, 0)).attr("groups", 2L)
                .attr("data_format", "NXC").attr("weights_format", "XIO")
                .inputs(f32(0, 1, 4, 4, 2), f32(1, 2, 2, 1, 2), f32(3, 2)).output(f32(2, 1, 2, 2, 2)).build();
        double[] y = run1(nxc, permute(src, l(1, 2, 4, 4), toNxc(4)), permute(w, l(2, 1, 2, 2), toSpatialFirst(4)),
                new double[] {10, 20});
        assertArrayEquals(expected, permute(y, l(1, 2, 2, 2), fromNxc(4)));
    }

    @Test
    void conv1dAutoPadModes() {
        // src [1,2,3,4], kernel [1,10], stride 1: total padding 1.
        double[] src = {1, 2, 3, 4};
        double[] w = {1, 10};
        // SAME_UPPER: pad at the end: src[o] + 10 src[o+1].
        assertArrayEquals(new double[] {21, 32, 43, 4}, run1(autoPad1d("SAME_UPPER", 4), src, w));
        // SAME_LOWER: pad at the begin: src[o-1] + 10 src[o].
        assertArrayEquals(new double[] {10, 21, 32, 43}, run1(autoPad1d("SAME_LOWER", 4), src, w));
        // VALID: no padding, pads_begin/pads_end ignored.
        assertArrayEquals(new double[] {21, 32, 43}, run1(autoPad1d("VALID", 4), src, w));
    }

    private static Op autoPad1d(String mode, long in) {
        return conv(OpKind.Convolution, l(1), l(1), l(5), l(5)).attr("auto_pad", mode)
                .inputs(f32(0, 1, 1, in), f32(1, 1, 1, 2)).output(anyShape(2)).build();
    }

    @Test
    void conv3dSumsTheWholeVolume() {
        Op op = conv(OpKind.Convolution, l(1, 1, 1), l(1, 1, 1), l(0, 0, 0), l(0, 0, 0))
                .inputs(f32(0, 1, 1, 2, 2, 2), f32(1, 1, 1, 2, 2, 2)).output(anyShape(2)).build();
        double[] w = new double[8];
        Arrays.fill(w, 1);
        assertArrayEquals(new double[] {36}, run1(op, seq(8, 1), w));
    }

    @Test
    void convNegativeEndPadCropsTheInput() {
        // pads_end -1: the last src position is never read; out = (5 + 0 - 1 - 1) / 1 + 1 = 4.
        Op op = conv(OpKind.Convolution, l(1), l(1), l(0), l(-1))
                .inputs(f32(0, 1, 1, 5), f32(1, 1, 1, 1)).output(anyShape(2)).build();
        assertArrayEquals(new double[] {2, 4, 6, 8}, run1(op, seq(5, 1), new double[] {2}));
    }

    // ---------------------------------------------------------------------------------------------
    // Convolution against the formula on random problems (layouts, groups, strides, dilations, pads)

    record ConvCase(String name, long[] src, long[] w, int groups, long[] s, long[] d, long[] pb, long[] pe,
            boolean nxc, boolean xio, boolean bias) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<ConvCase> convCases() {
        return Stream.of(
                new ConvCase("1d", l(2, 3, 9), l(4, 3, 3), 1, l(2), l(1), l(1), l(0), false, false, true),
                new ConvCase("1d-nxc-xio-dil", l(1, 4, 11), l(6, 2, 3), 2, l(1), l(3), l(2), l(1), true, true, true),
                new ConvCase("2d-asym", l(2, 4, 7, 6), l(5, 4, 3, 2), 1, l(2, 1), l(1, 2), l(1, 0), l(2, 1), false,
                        false, false),
                new ConvCase("2d-groups-nxc", l(1, 6, 5, 5), l(9, 2, 3, 3), 3, l(1, 2), l(1, 1), l(1, 1), l(1, 0),
                        true, false, true),
                new ConvCase("2d-depthwise-xio", l(2, 4, 6, 5), l(4, 1, 3, 3), 4, l(2, 2), l(1, 1), l(1, 1),
                        l(0, 0), false, true, true),
                new ConvCase("2d-big-channels", l(1, 70, 4, 3), l(9, 70, 1, 1), 1, l(1, 1), l(1, 1), l(0, 0),
                        l(0, 0), false, false, true),
                new ConvCase("2d-long-rows", l(1, 2, 3, 150), l(5, 2, 1, 3), 1, l(1, 1), l(1, 1), l(0, 1),
                        l(0, 1), true, true, false),
                new ConvCase("3d", l(1, 2, 4, 5, 3), l(3, 2, 2, 3, 2), 1, l(1, 2, 1), l(2, 1, 1), l(0, 1, 1),
                        l(1, 0, 0), false, false, true),
                new ConvCase("3d-nxc-groups", l(2, 4, 3, 3, 4), l(4, 2, 1, 2, 3), 2, l(1, 1, 2), l(1, 1, 1),
                        l(0, 0, 1), l(0, 1, 1), true, true, false),
                new ConvCase("2d-negative-pads", l(1, 2, 6, 6), l(2, 2, 2, 2), 1, l(1, 1), l(1, 1), l(-1, 0),
                        l(0, -2), false, false, false));
    }

    private static long[] outSpatial(ConvCase c) {
        int ns = c.src.length - 2;
        long[] out = new long[ns];
        for (int i = 0; i < ns; i++) {
            long eff = (c.w[i + 2] - 1) * c.d[i] + 1;
            out[i] = Math.floorDiv(c.src[i + 2] + c.pb[i] + c.pe[i] - eff, c.s[i]) + 1;
        }
        return out;
    }

    private static long[] dstDims(ConvCase c) {
        long[] sp = outSpatial(c);
        long[] d = new long[sp.length + 2];
        d[0] = c.src[0];
        d[1] = c.w[0];
        System.arraycopy(sp, 0, d, 2, sp.length);
        return d;
    }

    /** Lays out NCX data / OIX weights as the case's formats want them. */
    private static double[] data(ConvCase c, double[] ncx, long[] dims) {
        return c.nxc ? permute(ncx, dims, toNxc(dims.length)) : ncx;
    }

    private static long[] dataDims(ConvCase c, long[] dims) {
        return c.nxc ? permuteDims(dims, toNxc(dims.length)) : dims;
    }

    private static double[] weights(ConvCase c, double[] oix, long[] dims) {
        return c.xio ? permute(oix, dims, toSpatialFirst(dims.length)) : oix;
    }

    private static long[] weightsDims(ConvCase c, long[] dims) {
        return c.xio ? permuteDims(dims, toSpatialFirst(dims.length)) : dims;
    }

    private static double[] toNcx(ConvCase c, double[] data, long[] ncxDims) {
        return c.nxc ? permute(data, permuteDims(ncxDims, toNxc(ncxDims.length)), fromNxc(ncxDims.length)) : data;
    }

    private static Op.Builder convOp(ConvCase c, OpKind kind) {
        return conv(kind, c.s, c.d, c.pb, c.pe).attr("groups", (long) c.groups)
                .attr("data_format", c.nxc ? "NXC" : "NCX").attr("weights_format", c.xio ? "XIO" : "OIX");
    }

    @ParameterizedTest
    @MethodSource("convCases")
    void convolutionMatchesTheFormula(ConvCase c) {
        double[] x = ints(count(c.src), 1);
        double[] w = ints(count(c.w), 2);
        double[] b = c.bias ? ints((int) c.w[0], 3) : null;
        long[] dst = dstDims(c);
        Op.Builder ob = convOp(c, OpKind.Convolution).input(f32(0, dataDims(c, c.src))).input(f32(1, weightsDims(c, c.w)));
        if (c.bias) {
            ob.input(f32(3, c.w[0]));
        }
        Op op = ob.output(anyShape(2)).build();
        assertArrayEquals(dataDims(c, dst), OpRunner.inferredDims(op, 0));
        double[] y = c.bias ? run1(op, data(c, x, c.src), weights(c, w, c.w), b)
                : run1(op, data(c, x, c.src), weights(c, w, c.w));
        double[] expected = naiveConv(x, c.src, w, c.w, b, c.groups, c.s, c.d, c.pb, outSpatial(c));
        assertArrayEquals(expected, toNcx(c, y, dst));
    }

    /**
     * The backward ops are the adjoints of the forward convolution:
     * {@code <conv(x, w), dy> = <x, bwdData(dy, w)> = <w, bwdWeights(x, dy)>}.
     */
    @ParameterizedTest
    @MethodSource("convCases")
    void backwardConvolutionsAreAdjoints(ConvCase c) {
        double[] x = ints(count(c.src), 4);
        double[] w = ints(count(c.w), 5);
        long[] dst = dstDims(c);
        double[] dy = ints(count(dst), 6);
        double[] y = naiveConv(x, c.src, w, c.w, null, c.groups, c.s, c.d, c.pb, outSpatial(c));
        double forward = dot(y, dy);

        Op bwdData = convOp(c, OpKind.ConvolutionBackwardData).attr("dst_shape", dataDims(c, c.src))
                .inputs(f32(0, dataDims(c, dst)), f32(1, weightsDims(c, c.w))).output(anyShape(2)).build();
        double[] dx = toNcx(c, run1(bwdData, data(c, dy, dst), weights(c, w, c.w)), c.src);
        assertEquals(forward, dot(x, dx), "<conv(x, w), dy> = <x, bwdData(dy, w)>");

        Op bwdWeights = convOp(c, OpKind.ConvolutionBackwardWeights).attr("weights_shape", weightsDims(c, c.w))
                .inputs(f32(0, dataDims(c, c.src)), f32(1, dataDims(c, dst))).output(anyShape(2)).build();
        double[] dwRaw = run1(bwdWeights, data(c, x, c.src), data(c, dy, dst));
        double[] dw = c.xio ? permute(dwRaw, weightsDims(c, c.w), ConvPoolTesting.fromSpatialFirst(c.w.length)) : dwRaw;
        assertEquals(forward, dot(w, dw), "<conv(x, w), dy> = <w, bwdWeights(x, dy)>");
    }

    // ---------------------------------------------------------------------------------------------
    // Backward convolutions, hand-computed

    @Test
    void convBackwardDataScattersThroughStrides() {
        // Forward: 6 -> 3 with kernel [1, 10], stride 2; diff_src[2o + k] = dd[o] * w[k].
        Op op = conv(OpKind.ConvolutionBackwardData, l(2), l(1), l(0), l(0)).attr("dst_shape", l(1, 1, 6))
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 2)).output(anyShape(2)).build();
        assertArrayEquals(new double[] {1, 10, 2, 20, 3, 30}, run1(op, new double[] {1, 2, 3}, new double[] {1, 10}));
        assertArrayEquals(l(1, 1, 6), OpRunner.inferredDims(op, 0));
    }

    @Test
    void convBackwardDataTakesTheShapeInput() {
        // dst_shape as an s32 input (precedes the attribute, here a contradicting one).
        Op op = conv(OpKind.ConvolutionBackwardData, l(2), l(1), l(0), l(0)).attr("dst_shape", l(1, 1, 7))
                .inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 2), s32(5, 3)).output(f32(2, 1, 1, 6)).build();
        assertArrayEquals(new double[] {1, 10, 2, 20, 3, 30},
                run1(op, new double[] {1, 2, 3}, new double[] {1, 10}, new double[] {1, 1, 6}));
    }

    @Test
    void convBackwardWeightsCorrelatesSrcAndDiffDst() {
        // dw[k] = sum_o dd[o] * src[o + k]: k=0: 1 - 3 = -2; k=1: 2 - 4 = -2.
        Op op = conv(OpKind.ConvolutionBackwardWeights, l(1), l(1), l(0), l(0)).attr("weights_shape", l(1, 1, 2))
                .inputs(f32(0, 1, 1, 4), f32(1, 1, 1, 3)).output(anyShape(2)).build();
        assertArrayEquals(new double[] {-2, -2}, run1(op, seq(4, 1), new double[] {1, 0, -1}));
        // Batch 2 adds the batches' correlations; XIO keeps [K, I, O] = [2, 1, 1].
        Op batch = conv(OpKind.ConvolutionBackwardWeights, l(1), l(1), l(0), l(0)).attr("weights_format", "XIO")
                .attr("weights_shape", l(2, 1, 1)).inputs(f32(0, 2, 1, 4), f32(1, 2, 1, 3)).output(anyShape(2))
                .build();
        double[] src = {1, 2, 3, 4, 1, 1, 1, 1};
        double[] dd = {1, 0, -1, 1, 1, 1};
        // second batch: k=0: 1+1+1 = 3, k=1: 3.
        assertArrayEquals(new double[] {1, 1}, run1(batch, src, dd));
        // weights_shape as an s32 input.
        Op input = conv(OpKind.ConvolutionBackwardWeights, l(1), l(1), l(0), l(0))
                .inputs(f32(0, 1, 1, 4), f32(1, 1, 1, 3), s32(5, 3)).output(f32(2, 1, 1, 2)).build();
        assertArrayEquals(new double[] {-2, -2}, run1(input, seq(4, 1), new double[] {1, 0, -1}, new double[] {1, 1, 2}));
    }

    // ---------------------------------------------------------------------------------------------
    // Transposed convolutions

    @Test
    void convTransposeHandComputed() {
        // dst[2i + k] += src[i] * w[k]; out = 2 * (3 - 1) + 2 = 6; bias 0.5.
        Op op = conv(OpKind.ConvTranspose, l(2), l(1), l(0), l(0)).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 2), f32(3, 1))
                .output(anyShape(2)).build();
        assertArrayEquals(new double[] {1.5, 10.5, 2.5, 20.5, 3.5, 30.5},
                run1(op, new double[] {1, 2, 3}, new double[] {1, 10}, new double[] {0.5}));
        // output_padding adds a position at the end that no window reaches (bias only); oneDNN's
        // 12-long default form is accepted.
        Op padded = conv(OpKind.ConvTranspose, l(2), l(1), l(0), l(0)).attr("output_padding", l(1, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0)).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 2), f32(3, 1)).output(anyShape(2)).build();
        assertArrayEquals(l(1, 1, 7), OpRunner.inferredDims(padded, 0));
        assertArrayEquals(new double[] {1.5, 10.5, 2.5, 20.5, 3.5, 30.5, 0.5},
                run1(padded, new double[] {1, 2, 3}, new double[] {1, 10}, new double[] {0.5}));
        // pads crop the full result: pads 1/0 drop the first position.
        Op cropped = conv(OpKind.ConvTranspose, l(2), l(1), l(1), l(0)).inputs(f32(0, 1, 1, 3), f32(1, 1, 1, 2))
                .output(anyShape(2)).build();
        assertArrayEquals(new double[] {10, 2, 20, 3, 30}, run1(cropped, new double[] {1, 2, 3}, new double[] {1, 10}));
    }

    @Test
    void convTransposeGroupsUseIoxAsInputChannelsByOutputPerGroup() {
        // groups 2, IC 2, OC 4: IOX weights [2, 2, 1]; channel i feeds outputs 2i and 2i+1.
        Op op = conv(OpKind.ConvTranspose, l(1), l(1), l(0), l(0)).attr("groups", 2L)
                .inputs(f32(0, 1, 2, 2), f32(1, 2, 2, 1)).output(anyShape(2)).build();
        assertArrayEquals(l(1, 4, 2), OpRunner.inferredDims(op, 0));
        double[] src = {1, 2, 3, 4};
        double[] w = {1, 10, 100, 1000};
        assertArrayEquals(new double[] {1, 2, 10, 20, 300, 400, 3000, 4000}, run1(op, src, w));
        // XOI is [K, OC/g, IC]: the same weights permuted.
        Op xoi = conv(OpKind.ConvTranspose, l(1), l(1), l(0), l(0)).attr("groups", 2L).attr("weights_format", "XOI")
                .inputs(f32(0, 1, 2, 2), f32(1, 1, 2, 2)).output(anyShape(2)).build();
        assertArrayEquals(new double[] {1, 2, 10, 20, 300, 400, 3000, 4000},
                run1(xoi, src, permute(w, l(2, 2, 1), toSpatialFirst(3))));
    }

    record DeconvCase(String name, long[] src, long[] w, int groups, long[] s, long[] d, long[] pb, long[] pe,
            long[] op, boolean nxc, boolean xoi) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<DeconvCase> deconvCases() {
        return Stream.of(
                new DeconvCase("1d", l(1, 2, 4), l(2, 3, 3), 1, l(2), l(1), l(0), l(0), l(0), false, false),
                new DeconvCase("2d-groups-outpad", l(2, 4, 3, 3), l(4, 2, 3, 2), 2, l(2, 2), l(1, 1), l(1, 0),
                        l(0, 1), l(1, 0), false, false),
                new DeconvCase("2d-nxc-xoi-dil", l(1, 3, 4, 3), l(3, 2, 2, 2), 1, l(1, 2), l(2, 1), l(0, 1), l(1, 1),
                        l(0, 1), true, true),
                new DeconvCase("3d", l(1, 2, 2, 3, 2), l(2, 2, 2, 2, 2), 1, l(2, 1, 2), l(1, 1, 1), l(0, 0, 0),
                        l(0, 0, 0), l(0, 0, 1), false, false));
    }

    private static long[] deconvDst(DeconvCase c) {
        int ns = c.src.length - 2;
        long[] d = new long[ns + 2];
        d[0] = c.src[0];
        d[1] = c.w[1] * c.groups;
        for (int i = 0; i < ns; i++) {
            d[i + 2] = c.s[i] * (c.src[i + 2] - 1) + (c.w[i + 2] - 1) * c.d[i] + 1 + c.op[i] - c.pb[i] - c.pe[i];
        }
        return d;
    }

    private static Op.Builder deconvOp(DeconvCase c, OpKind kind) {
        Op.Builder b = conv(kind, c.s, c.d, c.pb, c.pe).attr("groups", (long) c.groups)
                .attr("data_format", c.nxc ? "NXC" : "NCX").attr("weights_format", c.xoi ? "XOI" : "IOX");
        return kind == OpKind.ConvTranspose ? b.attr("output_padding", c.op) : b;
    }

    private static double[] nx(boolean nxc, double[] ncx, long[] dims) {
        return nxc ? permute(ncx, dims, toNxc(dims.length)) : ncx;
    }

    private static long[] nxDims(boolean nxc, long[] dims) {
        return nxc ? permuteDims(dims, toNxc(dims.length)) : dims;
    }

    private static double[] back(boolean nxc, double[] data, long[] ncxDims) {
        return nxc ? permute(data, permuteDims(ncxDims, toNxc(ncxDims.length)), fromNxc(ncxDims.length)) : data;
    }

    /**
     * ConvTranspose is the adjoint of the convolution with the same weights read as OIX
     * ({@code <deconv(x, w), y> = <x, conv(y, w)>}), and its backward ops are its adjoints.
     */
    @ParameterizedTest
    @MethodSource("deconvCases")
    void convTransposeIsTheAdjointOfConvolution(DeconvCase c) {
        long[] dst = deconvDst(c);
        double[] x = ints(count(c.src), 7);
        double[] w = ints(count(c.w), 8);
        double[] dy = ints(count(dst), 9);
        double[] wFmt = c.xoi ? permute(w, c.w, toSpatialFirst(c.w.length)) : w;
        long[] wDims = c.xoi ? permuteDims(c.w, toSpatialFirst(c.w.length)) : c.w;

        Op deconv = deconvOp(c, OpKind.ConvTranspose).inputs(f32(0, nxDims(c.nxc, c.src)), f32(1, wDims))
                .output(anyShape(2)).build();
        assertArrayEquals(nxDims(c.nxc, dst), OpRunner.inferredDims(deconv, 0));
        double[] y = back(c.nxc, run1(deconv, nx(c.nxc, x, c.src), wFmt), dst);
        // conv(dy) with the deconv's weights as OIX, from the formula; its output has src's sizes.
        long[] inSp = Arrays.copyOfRange(c.src, 2, c.src.length);
        double[] convDy = naiveConv(dy, dst, w, c.w, null, c.groups, c.s, c.d, c.pb, inSp);
        double expected = dot(x, convDy);
        assertEquals(expected, dot(y, dy), "<deconv(x, w), dy> = <x, conv(dy, w)>");

        Op bwdData = deconvOp(c, OpKind.ConvTransposeBackwardData).inputs(f32(0, nxDims(c.nxc, dst)), f32(1, wDims))
                .output(anyShape(2)).build();
        assertArrayEquals(nxDims(c.nxc, c.src), OpRunner.inferredDims(bwdData, 0));
        double[] dx = back(c.nxc, run1(bwdData, nx(c.nxc, dy, dst), wFmt), c.src);
        assertArrayEquals(convDy, dx, "ConvTransposeBackwardData is the convolution of diff_dst");

        Op bwdWeights = deconvOp(c, OpKind.ConvTransposeBackwardWeights).attr("weights_shape", wDims)
                .inputs(f32(0, nxDims(c.nxc, c.src)), f32(1, nxDims(c.nxc, dst))).output(anyShape(2)).build();
        double[] dwRaw = run1(bwdWeights, nx(c.nxc, x, c.src), nx(c.nxc, dy, dst));
        double[] dw = c.xoi ? permute(dwRaw, wDims, ConvPoolTesting.fromSpatialFirst(c.w.length)) : dwRaw;
        assertEquals(expected, dot(w, dw), "<deconv(x, w), dy> = <w, bwdWeights(x, dy)>");
    }

    // ---------------------------------------------------------------------------------------------
    // Pooling

    @Test
    void maxPoolFloorAndCeil() {
        double[] src = seq(9, 1); // 3x3: 1..9
        Op floor = pool(OpKind.MaxPool, l(2, 2), l(2, 2), l(0, 0), l(0, 0)).input(f32(0, 1, 1, 3, 3))
                .output(anyShape(1)).build();
        assertArrayEquals(new double[] {5}, run1(floor, src));
        // ceil: extra windows over the last row/column: {3,6}, {7,8}, {9}.
        Op ceil = pool(OpKind.MaxPool, l(2, 2), l(2, 2), l(0, 0), l(0, 0)).attr("rounding_type", "ceil")
                .input(f32(0, 1, 1, 3, 3)).output(anyShape(1)).build();
        assertArrayEquals(new double[] {5, 6, 8, 9}, run1(ceil, src));
    }

    @Test
    void maxPoolDilationsAndNegativeValues() {
        // kernel 2 dilated by 2: max(src[o], src[o + 2]).
        Op op = pool(OpKind.MaxPool, l(2), l(1), l(0), l(0)).attr("dilations", l(2)).input(f32(0, 1, 1, 5))
                .output(anyShape(1)).build();
        assertArrayEquals(new double[] {4, 1, 5}, run1(op, new double[] {3, 1, 4, 1, 5}));
        // Padding never wins over negative values.
        Op padded = pool(OpKind.MaxPool, l(3), l(1), l(1), l(1)).input(f32(0, 1, 1, 3)).output(anyShape(1)).build();
        assertArrayEquals(new double[] {-1, -1, -2}, run1(padded, new double[] {-1, -3, -2}));
    }

    @Test
    void maxPoolWindowOnlyOverPaddingGivesTheLowestValue() {
        Op op = pool(OpKind.MaxPool, l(1), l(1), l(1), l(0)).input(f32(0, 1, 1, 1)).output(anyShape(1)).build();
        assertArrayEquals(new double[] {-Float.MAX_VALUE, 7}, run1(op, new double[] {7}));
    }

    @Test
    void maxPoolChannelsLast() {
        // NXC [1, 2, 2, 2]: channel 0 = 1..4, channel 1 = 40..10 (interleaved).
        Op op = pool(OpKind.MaxPool, l(2, 2), l(1, 1), l(0, 0), l(0, 0)).attr("data_format", "NXC")
                .input(f32(0, 1, 2, 2, 2)).output(anyShape(1)).build();
        assertArrayEquals(l(1, 1, 1, 2), OpRunner.inferredDims(op, 0));
        assertArrayEquals(new double[] {4, 40}, run1(op, new double[] {1, 40, 2, 30, 3, 20, 4, 10}));
    }

    @Test
    void maxPoolBackwardRoutesToTheFirstMaximum() {
        // windows (0,1), (1,2), (2,3) of [1,3,3,2]: maxima at 1, 1 (first of a tie), 2.
        Op op = pool(OpKind.MaxPoolBackward, l(2), l(1), l(0), l(0)).inputs(f32(0, 1, 1, 4), f32(1, 1, 1, 3))
                .output(anyShape(2)).build();
        assertArrayEquals(new double[] {0, 30, 30, 0}, run1(op, new double[] {1, 3, 3, 2}, new double[] {10, 20, 30}));
    }

    @Test
    void avgPoolExcludePad() {
        // [3, 6, 9], kernel 3, pads 1/1: sums 9, 18, 15 over 2, 3, 2 values (3 with padding).
        Op exclude = pool(OpKind.AvgPool, l(3), l(1), l(1), l(1)).attr("exclude_pad", true).input(f32(0, 1, 1, 3))
                .output(anyShape(1)).build();
        assertArrayEquals(new double[] {4.5, 6, 7.5}, run1(exclude, new double[] {3, 6, 9}));
        Op include = pool(OpKind.AvgPool, l(3), l(1), l(1), l(1)).attr("exclude_pad", false).input(f32(0, 1, 1, 3))
                .output(anyShape(1)).build();
        assertArrayEquals(new double[] {3, 6, 5}, run1(include, new double[] {3, 6, 9}));
    }

    @Test
    void avgPoolCeilWindowPastTheEnd() {
        // kernel 2, stride 2, ceil: windows {3,6} and {9}; without exclude_pad the divisor stays 2.
        Op include = pool(OpKind.AvgPool, l(2), l(2), l(0), l(0)).attr("exclude_pad", false)
                .attr("rounding_type", "ceil").input(f32(0, 1, 1, 3)).output(anyShape(1)).build();
        assertArrayEquals(new double[] {4.5, 4.5}, run1(include, new double[] {3, 6, 9}));
        Op exclude = pool(OpKind.AvgPool, l(2), l(2), l(0), l(0)).attr("exclude_pad", true)
                .attr("rounding_type", "ceil").input(f32(0, 1, 1, 3)).output(anyShape(1)).build();
        assertArrayEquals(new double[] {4.5, 9}, run1(exclude, new double[] {3, 6, 9}));
    }

    @Test
    void avgPoolNegativeEndPad() {
        // As the corpus's avgpool_3d_chain_fusion: pads_begin 1, pads_end -1, kernel 2, stride 2 over 5:
        // out 2; windows {-1, 0} -> {0} and {1, 2}.
        Op op = pool(OpKind.AvgPool, l(2), l(2), l(1), l(-1)).attr("exclude_pad", true).input(f32(0, 1, 1, 5))
                .output(anyShape(1)).build();
        assertArrayEquals(l(1, 1, 2), OpRunner.inferredDims(op, 0));
        assertArrayEquals(new double[] {1, 2.5}, run1(op, seq(5, 1)));
    }

    @Test
    void avgPool3dAutoPadSameUpper() {
        // 3x1x1 volume [1,2,3], kernel 2x1x1, stride 1: SAME_UPPER pads the end: {1,2}, {2,3}, {3}.
        Op op = pool(OpKind.AvgPool, l(2, 1, 1), l(1, 1, 1), l(0, 0, 0), l(0, 0, 0)).attr("exclude_pad", true)
                .attr("auto_pad", "SAME_UPPER").input(f32(0, 1, 1, 3, 1, 1)).output(anyShape(1)).build();
        assertArrayEquals(new double[] {1.5, 2.5, 3}, run1(op, seq(3, 1)));
    }

    @Test
    void avgPoolBackwardSpreadsOverEachWindow() {
        // Windows of avgPoolExcludePad: {0,1}/2, {0,1,2}/3, {1,2}/2; dd = [2, 3, 4].
        // ds[0] = 1 + 1 = 2; ds[1] = 1 + 1 + 2 = 4; ds[2] = 1 + 2 = 3.
        Op op = pool(OpKind.AvgPoolBackward, l(3), l(1), l(1), l(1)).attr("exclude_pad", true)
                .attr("src_shape", l(1, 1, 3)).input(f32(0, 1, 1, 3)).output(anyShape(1)).build();
        assertArrayEquals(new double[] {2, 4, 3}, run1(op, new double[] {2, 3, 4}));
        // The same with src_shape as an input.
        Op withInput = pool(OpKind.AvgPoolBackward, l(3), l(1), l(1), l(1)).attr("exclude_pad", true)
                .inputs(f32(0, 1, 1, 3), s32(3, 3)).output(f32(1, 1, 1, 3)).build();
        assertArrayEquals(new double[] {2, 4, 3}, run1(withInput, new double[] {2, 3, 4}, new double[] {1, 1, 3}));
    }

    record PoolCase(String name, long[] src, long[] k, long[] s, long[] pb, long[] pe, String autoPad, boolean ceil,
            boolean nxc) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<PoolCase> poolCases() {
        return Stream.of(
                new PoolCase("1d", l(2, 3, 9), l(3), l(2), l(1), l(1), "None", false, false),
                new PoolCase("2d-ceil-nxc", l(1, 2, 5, 6), l(3, 2), l(2, 2), l(1, 0), l(0, 0), "None", true, true),
                new PoolCase("2d-same-lower", l(1, 3, 5, 4), l(3, 3), l(2, 1), l(0, 0), l(0, 0), "SAME_LOWER", false,
                        false),
                new PoolCase("3d-valid-nxc", l(1, 2, 4, 5, 3), l(2, 2, 2), l(1, 2, 1), l(3, 3, 3), l(3, 3, 3),
                        "VALID", false, true));
    }

    /** AvgPoolBackward is the adjoint of AvgPool, both with and without exclude_pad. */
    @ParameterizedTest
    @MethodSource("poolCases")
    void avgPoolBackwardIsTheAdjoint(PoolCase c) {
        for (boolean exclude : new boolean[] {true, false}) {
            Op fwd = pool(OpKind.AvgPool, c.k, c.s, c.pb, c.pe).attr("exclude_pad", exclude).attr("auto_pad", c.autoPad)
                    .attr("rounding_type", c.ceil ? "ceil" : "floor").attr("data_format", c.nxc ? "NXC" : "NCX")
                    .input(f32(0, nxDims(c.nxc, c.src))).output(anyShape(1)).build();
            long[] dstFmt = OpRunner.inferredDims(fwd, 0);
            double[] x = ints(count(c.src), 10);
            double[] dy = ints(count(dstFmt), 11);
            double[] y = run1(fwd, nx(c.nxc, x, c.src));
            Op bwd = pool(OpKind.AvgPoolBackward, c.k, c.s, c.pb, c.pe).attr("exclude_pad", exclude)
                    .attr("auto_pad", c.autoPad).attr("data_format", c.nxc ? "NXC" : "NCX")
                    .attr("src_shape", nxDims(c.nxc, c.src)).input(f32(0, dstFmt)).output(anyShape(1)).build();
            double[] dx = run1(bwd, dy);
            // Averages are rounded to f32 (divisors 3, 5, ...): compare with a tolerance.
            assertEquals(dot(y, dy), dot(nx(c.nxc, x, c.src), dx), 1e-3, c + " exclude_pad=" + exclude);
        }
    }

    /** MaxPoolBackward is the adjoint of the selection MaxPool makes (argmax), checked via dot products. */
    @ParameterizedTest
    @MethodSource("poolCases")
    void maxPoolBackwardIsTheAdjointOfTheSelection(PoolCase c) {
        Op fwd = pool(OpKind.MaxPool, c.k, c.s, c.pb, c.pe).attr("auto_pad", c.autoPad)
                .attr("rounding_type", c.ceil ? "ceil" : "floor").attr("data_format", c.nxc ? "NXC" : "NCX")
                .input(f32(0, nxDims(c.nxc, c.src))).output(anyShape(1)).build();
        long[] dstFmt = OpRunner.inferredDims(fwd, 0);
        // Distinct values: a unique maximum per window.
        double[] x = seq(count(c.src), 0);
        double[] xs = shuffled(x, 3);
        double[] y = run1(fwd, nx(c.nxc, xs, c.src));
        double[] dy = ints(count(dstFmt), 12);
        Op bwd = pool(OpKind.MaxPoolBackward, c.k, c.s, c.pb, c.pe).attr("auto_pad", c.autoPad)
                .attr("data_format", c.nxc ? "NXC" : "NCX")
                .inputs(f32(0, nxDims(c.nxc, c.src)), f32(1, dstFmt)).output(anyShape(2)).build();
        double[] dx = run1(bwd, nx(c.nxc, xs, c.src), dy);
        // <maxpool(x), dy> = <x, dx> since each dy lands on the src element its window selected.
        assertEquals(dot(y, dy), dot(nx(c.nxc, xs, c.src), dx), c.toString());
    }

    private static double[] shuffled(double[] v, long seed) {
        double[] r = v.clone();
        java.util.Random rnd = new java.util.Random(seed);
        for (int i = r.length - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            double t = r[i];
            r[i] = r[j];
            r[j] = t;
        }
        return r;
    }

    // ---------------------------------------------------------------------------------------------
    // Interpolation

    private static Op.Builder interp(OpKind kind, String mode) {
        return ConvPoolTesting.op(kind).attr("mode", mode).attr("data_format", "NCX");
    }

    @Test
    void nearestUpsamplingRoundsHalfAwayFromZero() {
        // 2x2 -> 3x3: source coordinates (o + 0.5) * 2/3 - 0.5 = -1/6, 1/2, 7/6 -> 0, 1, 1.
        Op op = interp(OpKind.Interpolate, "nearest").attr("sizes", l(3, 3)).input(f32(0, 1, 1, 2, 2))
                .output(anyShape(1)).build();
        assertArrayEquals(new double[] {-2, -1.5, -1.5, -1, -0.5, -0.5, -1, -0.5, -0.5},
                run1(op, new double[] {-2, -1.5, -1, -0.5}));
    }

    @Test
    void linearHalfPixelClampsAtTheBorders() {
        // [0, 4] -> 4: coordinates -0.25, 0.25, 0.75, 1.25 -> 0, 1, 3, 4.
        Op op = interp(OpKind.Interpolate, "linear").attr("sizes", l(4)).input(f32(0, 1, 1, 2)).output(anyShape(1))
                .build();
        assertArrayEquals(new double[] {0, 1, 3, 4}, run1(op, new double[] {0, 4}));
    }

    @Test
    void linearAlignCorners() {
        // [0, 3] -> 4 with corners aligned: coordinates 0, 1/3, 2/3, 1 -> 0, 1, 2, 3.
        Op op = interp(OpKind.Interpolate, "linear").attr("coordinate_transformation_mode", "align_corners")
                .attr("sizes", l(4)).input(f32(0, 1, 1, 2)).output(anyShape(1)).build();
        assertArrayEquals(new double[] {0, 1, 2, 3}, run1(op, new double[] {0, 3}), 1e-6);
        // A single output maps to the first element.
        Op one = interp(OpKind.Interpolate, "linear").attr("coordinate_transformation_mode", "align_corners")
                .attr("sizes", l(1)).input(f32(0, 1, 1, 2)).output(anyShape(1)).build();
        assertArrayEquals(new double[] {5}, run1(one, new double[] {5, 9}));
    }

    @Test
    void bilinearAndTrilinearBlendEveryAxis() {
        // [[0,1],[2,3]] -> 4x4: each axis maps [0,1] to f = [0, 0.25, 0.75, 1]; out = 2 f(y) + f(x).
        double[] f = {0, 0.25, 0.75, 1};
        double[] expected = new double[16];
        for (int y = 0; y < 4; y++) {
            for (int x = 0; x < 4; x++) {
                expected[y * 4 + x] = 2 * f[y] + f[x];
            }
        }
        for (String mode : new String[] {"bilinear", "trilinear", "linear"}) {
            Op op = interp(OpKind.Interpolate, mode).attr("scales", new float[] {2, 2}).input(f32(0, 1, 1, 2, 2))
                    .output(anyShape(1)).build();
            assertArrayEquals(expected, run1(op, new double[] {0, 1, 2, 3}), mode);
        }
    }

    @Test
    void interpolateChannelsLastAndDownscaling() {
        // NXC [1, 4, 2] (2 channels): nearest 4 -> 2 picks coordinates 0.5, 2.5 -> 1, 3.
        Op op = interp(OpKind.Interpolate, "nearest").attr("data_format", "NXC").attr("scales", new float[] {0.5f})
                .input(f32(0, 1, 4, 2)).output(anyShape(1)).build();
        assertArrayEquals(l(1, 2, 2), OpRunner.inferredDims(op, 0));
        assertArrayEquals(new double[] {2, 20, 4, 40}, run1(op, new double[] {1, 10, 2, 20, 3, 30, 4, 40}));
    }

    @Test
    void interpolateSizesInput() {
        Op op = interp(OpKind.Interpolate, "nearest").inputs(f32(0, 1, 1, 2), s32(3, 1)).output(f32(1, 1, 1, 4))
                .build();
        assertArrayEquals(new double[] {5, 5, 7, 7}, run1(op, new double[] {5, 7}, new double[] {4}));
    }

    @Test
    void interpolateBackwardNearestSumsTheCopies() {
        // Forward 2 -> 3 picks [0, 1, 1]: ds = [dd0, dd1 + dd2].
        Op op = interp(OpKind.InterpolateBackward, "nearest").attr("sizes", l(3))
                .inputs(f32(0, 1, 1, 2), f32(1, 1, 1, 3)).output(anyShape(2)).build();
        assertArrayEquals(new double[] {1, 5}, run1(op, new double[] {9, 9}, new double[] {1, 2, 3}));
    }

    record InterpCase(String name, long[] src, long[] dst, String mode, boolean align, boolean nxc) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<InterpCase> interpCases() {
        return Stream.of(
                new InterpCase("1d-linear-up", l(1, 2, 5), l(1, 2, 8), "linear", false, false),
                new InterpCase("2d-bilinear-down-nxc", l(2, 3, 7, 6), l(2, 3, 3, 4), "bilinear", false, true),
                new InterpCase("2d-align", l(1, 2, 3, 5), l(1, 2, 6, 2), "linear", true, false),
                new InterpCase("3d-trilinear", l(1, 1, 2, 3, 4), l(1, 1, 4, 2, 5), "trilinear", false, false),
                new InterpCase("3d-nearest-nxc", l(1, 2, 3, 2, 5), l(1, 2, 2, 5, 3), "nearest", false, true),
                new InterpCase("2d-nearest-align", l(1, 1, 4, 3), l(1, 1, 7, 2), "nearest", true, false));
    }

    /** InterpolateBackward is the adjoint of Interpolate. */
    @ParameterizedTest
    @MethodSource("interpCases")
    void interpolateBackwardIsTheAdjoint(InterpCase c) {
        long[] sizes = Arrays.copyOfRange(c.dst, 2, c.dst.length);
        String fmt = c.nxc ? "NXC" : "NCX";
        String ctm = c.align ? "align_corners" : "half_pixel";
        Op fwd = interp(OpKind.Interpolate, c.mode).attr("sizes", sizes).attr("data_format", fmt)
                .attr("coordinate_transformation_mode", ctm).input(f32(0, nxDims(c.nxc, c.src))).output(anyShape(1))
                .build();
        assertArrayEquals(nxDims(c.nxc, c.dst), OpRunner.inferredDims(fwd, 0));
        double[] x = ints(count(c.src), 13);
        double[] dy = ints(count(c.dst), 14);
        double[] y = run1(fwd, nx(c.nxc, x, c.src));
        Op bwd = interp(OpKind.InterpolateBackward, c.mode).attr("sizes", sizes).attr("data_format", fmt)
                .attr("coordinate_transformation_mode", ctm)
                .inputs(f32(0, nxDims(c.nxc, c.src)), f32(1, nxDims(c.nxc, c.dst))).output(anyShape(2)).build();
        double[] dx = run1(bwd, nx(c.nxc, x, c.src), nx(c.nxc, dy, c.dst));
        // Forward outputs are rounded to f32: compare with a tolerance.
        assertEquals(dot(y, nx(c.nxc, dy, c.dst)), dot(nx(c.nxc, x, c.src), dx), 1e-4, c.toString());
    }

    @Test
    void bf16ConvolutionAccumulatesExactlyThenRounds() {
        // 1 + 2^-8 is half a bf16 ulp above 1: the exact sum rounds (to even) to 1.
        Op op = conv(OpKind.Convolution, l(1), l(1), l(0), l(0))
                .inputs(LogicalTensor.of(0, DataType.BF16, 1, 2, 1), LogicalTensor.of(1, DataType.BF16, 1, 2, 1))
                .output(LogicalTensor.of(2, DataType.BF16, 1, 1, 1)).build();
        assertArrayEquals(new double[] {1}, run1(op, new double[] {1, 0x1p-8}, new double[] {1, 1}));
        Op f32 = conv(OpKind.Convolution, l(1), l(1), l(0), l(0))
                .inputs(LogicalTensor.of(0, DataType.BF16, 1, 2, 1), LogicalTensor.of(1, DataType.BF16, 1, 2, 1))
                .output(LogicalTensor.of(2, DataType.F32, 1, 1, 1)).build();
        assertArrayEquals(new double[] {1 + 0x1p-8}, run1(f32, new double[] {1, 0x1p-8}, new double[] {1, 1}));
    }
}
