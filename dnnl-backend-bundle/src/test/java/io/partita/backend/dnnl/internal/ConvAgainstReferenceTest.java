package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Tensor;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/**
 * Convolution partitions against the reference: both data formats and weights formats, strides,
 * asymmetric and negative pads, dilations, groups (depthwise too), every auto_pad, odd channel
 * counts and image sizes, constant and variable weights, strided inputs, the op's own bias and
 * post-op chains (BiasAdd, activations, per-channel and full-size binary operands).
 */
class ConvAgainstReferenceTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();


    /** One convolution: sizes as N, IC, IH, IW, OC, KH, KW and its attributes. */
    record Conv(int n, int ic, int ih, int iw, int oc, int kh, int kw, long[] strides, long[] dilations,
            long[] padsBegin, long[] padsEnd, String autoPad, int groups, boolean nxc, boolean xio,
            boolean constantWeights) {

        Conv with(boolean nxc, boolean xio, boolean constantWeights) {
            return new Conv(n, ic, ih, iw, oc, kh, kw, strides, dilations, padsBegin, padsEnd, autoPad, groups, nxc,
                    xio, constantWeights);
        }

        /** Parses "n,ic,ih,iw,oc,kh,kw,sh,sw,dh,dw,pt,pl,pb,pr,groups,autoPad". */
        static Conv parse(String spec) {
            String[] f = spec.split(",");
            long[] v = Arrays.stream(f, 0, 16).mapToLong(Long::parseLong).toArray();
            return new Conv((int) v[0], (int) v[1], (int) v[2], (int) v[3], (int) v[4], (int) v[5], (int) v[6],
                    new long[] {v[7], v[8]}, new long[] {v[9], v[10]}, new long[] {v[11], v[12]},
                    new long[] {v[13], v[14]}, f[16], (int) v[15], false, false, true);
        }

        long[] srcDims() {
            return nxc ? new long[] {n, ih, iw, ic} : new long[] {n, ic, ih, iw};
        }

        long[] weightsDims() {
            return xio ? new long[] {kh, kw, ic / groups, oc} : new long[] {oc, ic / groups, kh, kw};
        }

        /** Output dims, computed here independently of the runtime's shape inference. */
        long[] dstDims() {
            long[] in = {ih, iw};
            long[] k = {kh, kw};
            long[] out = new long[2];
            for (int i = 0; i < 2; i++) {
                long eff = (k[i] - 1) * dilations[i] + 1;
                long b = padsBegin[i];
                long e = padsEnd[i];
                if (autoPad.equals("VALID")) {
                    b = 0;
                    e = 0;
                } else if (autoPad.startsWith("SAME")) {
                    long total = Math.max(0, (ceilDiv(in[i], strides[i]) - 1) * strides[i] + eff - in[i]);
                    b = autoPad.equals("SAME_UPPER") ? total / 2 : total - total / 2;
                    e = total - b;
                }
                out[i] = Math.floorDiv(in[i] + b + e - eff, strides[i]) + 1;
            }
            return nxc ? new long[] {n, out[0], out[1], oc} : new long[] {n, oc, out[0], out[1]};
        }

        private static long ceilDiv(long a, long b) {
            return (a + b - 1) / b;
        }

        Op.Builder op(long id, LogicalTensor src, LogicalTensor weights, LogicalTensor dst) {
            return Op.builder(id, OpKind.Convolution).inputs(src, weights).output(dst).attr("strides", strides)
                    .attr("dilations", dilations).attr("pads_begin", padsBegin).attr("pads_end", padsEnd)
                    .attr("auto_pad", autoPad).attr("groups", (long) groups).attr("data_format", nxc ? "NXC" : "NCX")
                    .attr("weights_format", xio ? "XIO" : "OIX");
        }

        LogicalTensor weights(long id) {
            LogicalTensor w = f32(id, weightsDims());
            return constantWeights ? w.withProperty(PropertyType.CONSTANT) : w;
        }

        long flops() {
            long[] d = dstDims();
            return 2L * d[0] * d[1] * d[2] * d[3] * (ic / groups) * kh * kw;
        }
    }

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static LogicalTensor constant(long id, long... dims) {
        return f32(id, dims).withProperty(PropertyType.CONSTANT);
    }

    /** Geometries: n,ic,ih,iw,oc,kh,kw,sh,sw,dh,dw,pt,pl,pb,pr,groups,autoPad. */
    static final String[] GEOMETRIES = {
        "1,3,5,7,4,3,3,1,1,1,1,1,1,1,1,1,None",
        "1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,1,None",
        "3,17,9,11,63,3,3,2,2,1,1,1,0,0,1,1,None",
        "1,65,13,8,17,5,5,3,3,1,1,2,1,0,2,1,None",
        "3,63,7,9,65,3,3,1,1,1,1,1,1,1,1,1,None",
        "2,16,17,17,65,1,1,1,1,1,1,0,0,0,0,1,None",
        "1,65,6,5,3,1,1,1,1,1,1,0,0,0,0,1,None",
        "1,8,12,13,16,1,1,2,2,1,1,0,0,0,0,1,None",
        "1,4,5,5,6,1,1,1,1,1,1,1,0,0,1,1,None",
        "1,6,9,20,9,1,7,1,1,1,1,0,3,0,3,1,None",
        "1,5,20,9,7,7,1,1,2,1,1,3,0,3,0,1,None",
        "1,6,15,15,12,3,3,1,1,2,3,2,3,2,3,1,None",
        "1,3,16,16,5,5,5,2,3,2,1,4,2,1,0,1,None",
        "3,12,10,7,18,3,3,1,2,1,1,0,0,0,0,3,None",
        "1,17,9,9,17,3,3,1,1,1,1,1,1,1,1,17,None",
        "3,65,7,7,65,3,3,2,2,1,1,1,1,1,1,65,None",
        "2,16,8,8,32,3,3,1,1,1,1,0,0,0,0,16,None",
        "1,5,10,9,7,3,3,2,2,1,1,0,0,0,0,1,SAME_UPPER",
        "1,5,10,9,7,4,4,1,1,1,1,0,0,0,0,1,SAME_UPPER",
        "1,5,10,9,7,4,4,1,1,1,1,0,0,0,0,1,SAME_LOWER",
        "2,6,11,13,7,3,3,3,2,2,1,0,0,0,0,1,SAME_LOWER",
        "1,5,10,9,7,3,3,2,2,1,1,2,1,1,2,1,VALID",
        "1,4,10,10,4,3,3,1,1,1,1,-1,0,0,-2,1,None",
        "1,7,1,2,9,3,3,1,1,1,1,1,1,1,1,1,None",
        "1,3,2,1,4,5,5,1,1,1,1,2,2,2,2,1,None",
        "1,64,20,20,64,3,3,1,1,1,1,1,1,1,1,1,None",
        "1,64,9,70,17,3,3,1,1,1,1,1,1,1,1,1,None",
        // rows of 48 or more pixels: panels of the plane GEMM that cross a row, split after 1, 15 or
        // anywhere (stride 2, dilation 2)
        "1,16,5,49,16,3,3,1,1,1,1,1,1,1,1,1,None", "1,8,4,63,9,3,3,1,1,1,1,1,1,1,1,1,None",
        "1,8,7,100,9,3,3,2,2,1,1,1,1,1,1,1,None", "1,5,6,60,6,3,3,1,1,2,2,2,2,2,2,1,None",
        // stride 2 with rows of more than 16 outputs: the plane fill's two-vector even-lane permute
        "1,6,9,70,10,3,3,2,2,1,1,1,1,1,1,1,None",
        "1,5,6,67,9,1,1,2,2,1,1,0,0,0,0,1,None",
        "1,300,4,5,7,3,3,1,1,1,1,1,1,1,1,1,None",
        "1,2100,3,4,5,1,1,1,1,1,1,0,0,0,0,1,None",
        "2,20,9,9,130,3,3,1,1,1,1,1,1,1,1,1,None",
        "1,8,40,41,8,3,3,1,1,1,1,1,1,1,1,1,None",
        "3,6,3,3,4,3,3,1,1,1,1,1,1,1,1,2,None",
        "1,130,3,1500,3,3,3,1,1,1,1,1,1,1,1,1,None",
        "2,4,33,3,5,3,1,2,1,1,1,0,0,0,0,1,VALID",
        "1,240,5,4,70,3,3,1,1,1,1,1,1,1,1,1,None",
        "2,32,14,14,130,3,3,1,1,1,1,1,1,1,1,1,None",
        "1,96,7,7,64,1,1,1,1,1,1,0,0,0,0,1,None",
        "2,64,56,56,64,1,1,1,1,1,1,0,0,0,0,1,None",
        "5,8,30,30,8,1,1,1,1,1,1,0,0,0,0,1,None",
    };

    static Stream<Arguments> everyLayout() {
        List<Arguments> args = new ArrayList<>();
        int i = 0;
        for (String g : GEOMETRIES) {
            for (int layout = 0; layout < 4; layout++) {
                boolean nxc = (layout & 1) != 0;
                boolean xio = (layout & 2) != 0;
                // alternate constant and variable weights so each geometry and layout sees both
                boolean constant = (i++ % 3) != 0;
                args.add(Arguments.of(g, nxc ? "NXC" : "NCX", xio ? "XIO" : "OIX", constant));
            }
        }
        return args.stream();
    }

    private static void assertClaimedAlone(List<Partition> parts, int ops) {
        Partition conv = parts.stream().filter(p -> p.ops().stream().anyMatch(o -> o.kind() == OpKind.Convolution))
                .findFirst().orElseThrow();
        assertEquals("dnnl", conv.backendId(), parts.toString());
        assertEquals(ops, conv.ops().size(), parts.toString());
    }

    @ParameterizedTest(name = "{0} {1} {2} constant={3}")
    @MethodSource("everyLayout")
    void geometryLayoutsAndFormats(String geometry, String dataFormat, String weightsFormat, boolean constant) {
        Conv c = Conv.parse(geometry).with(dataFormat.equals("NXC"), weightsFormat.equals("XIO"), constant);
        List<Partition> parts = AgainstReference.check(
                g -> g.add(c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, c.dstDims())).build()),
                geometry.hashCode());
        assertClaimedAlone(parts, 1);
    }

    @ParameterizedTest(name = "{0} {1} constant weights={2} constant bias={3}")
    @CsvSource({
        "NCX,OIX,true,true", "NCX,XIO,false,false", "NXC,OIX,true,false", "NXC,XIO,false,true",
        "NCX,OIX,false,true", "NXC,XIO,true,true"
    })
    void ownBiasInput(String dataFormat, String weightsFormat, boolean constantWeights, boolean constantBias) {
        for (String geometry : new String[] {"3,17,9,11,63,3,3,2,2,1,1,1,0,0,1,1,None",
            "1,65,7,7,65,3,3,1,1,1,1,1,1,1,1,65,None", "2,16,5,6,33,1,1,1,1,1,1,0,0,0,0,1,None"}) {
            Conv c = Conv.parse(geometry).with(dataFormat.equals("NXC"), weightsFormat.equals("XIO"),
                    constantWeights);
            LogicalTensor bias = constantBias ? constant(3, c.oc) : f32(3, c.oc);
            List<Partition> parts = AgainstReference.check(g -> g.add(c.op(0, f32(0, c.srcDims()), c.weights(1),
                    f32(2, c.dstDims())).input(bias).build()), 17);
            assertClaimedAlone(parts, 1);
        }
    }

    /** Conv (own bias or not) → BiasAdd → activation → per-channel binary → full-size binary (chain on the right). */
    @ParameterizedTest(name = "{0} {1} {2} own bias={3}")
    @CsvSource({
        "NCX,OIX,ReLU,false", "NXC,XIO,ReLU,true", "NCX,XIO,GELU,true", "NXC,OIX,Clamp,false",
        "NCX,OIX,Sigmoid,true", "NXC,XIO,HardSwish,false", "NCX,XIO,Elu,false", "NXC,OIX,Tanh,true"
    })
    void postOpChainFuses(String dataFormat, String weightsFormat, String activation, boolean ownBias) {
        boolean nxc = dataFormat.equals("NXC");
        Conv c = Conv.parse("3,17,9,11,63,3,3,2,1,1,1,1,0,0,1,1,None").with(nxc, weightsFormat.equals("XIO"), true);
        long[] d = c.dstDims();
        long[] perChannel = nxc ? new long[] {1, 1, 1, c.oc} : new long[] {1, c.oc, 1, 1};
        OpKind act = OpKind.valueOf(activation);
        List<Partition> parts = AgainstReference.check(g -> {
            Op.Builder conv = c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d));
            if (ownBias) {
                conv.input(constant(3, c.oc));
            }
            g.add(conv.build());
            g.add(Op.builder(1, OpKind.BiasAdd).inputs(f32(2, d), constant(4, c.oc)).output(f32(5, d))
                    .attr("data_format", dataFormat).build());
            Op.Builder a = Op.builder(2, act).input(f32(5, d)).output(f32(6, d));
            switch (act) {
                case Elu -> a.attr("alpha", 0.3f);
                case Clamp -> a.attr("min", -0.5f).attr("max", 0.7f);
                default -> { }
            }
            g.add(a.build());
            g.add(Op.builder(3, OpKind.Multiply).inputs(f32(6, d), f32(7, perChannel)).output(f32(8, d)).build());
            g.add(Op.builder(4, OpKind.Subtract).inputs(f32(9, d), f32(8, d)).output(f32(10, d)).build());
            g.add(Op.builder(5, OpKind.Add).inputs(f32(10, d), f32(11, 1)).output(f32(12, d)).build());
        }, 23);
        assertEquals(1, parts.size(), parts.toString());
        assertClaimedAlone(parts, 6);
    }

    /**
     * Convolutions whose reduction is split into passes (checked in {@code ReductionPassesTest}): the
     * first passes store raw sums, the last adds its own and runs the chain. Every store form: none,
     * a bias, bias and ReLU, bias, residual and ReLU (ResNet's), and a general chain.
     */
    @ParameterizedTest(name = "{0} {1} chain {2}")
    @CsvSource(delimiter = '|', value = {
        "1,300,7,7,64,3,3,1,1,1,1,1,1,1,1,1,None|NCX|none", "1,300,7,7,64,3,3,1,1,1,1,1,1,1,1,1,None|NCX|bias",
        "1,300,7,7,64,3,3,1,1,1,1,1,1,1,1,1,None|NCX|biasRelu",
        "1,300,7,7,64,3,3,1,1,1,1,1,1,1,1,1,None|NCX|biasSumRelu",
        "1,300,7,7,64,3,3,1,1,1,1,1,1,1,1,1,None|NCX|general",
        "1,400,5,300,7,3,3,1,1,1,1,1,1,1,1,1,None|NCX|biasSumRelu",
        "1,400,5,300,7,3,3,1,1,1,1,1,1,1,1,1,None|NCX|general",
        "1,300,7,7,64,3,3,1,1,1,1,1,1,1,1,1,None|NXC|none", "1,300,7,7,64,3,3,1,1,1,1,1,1,1,1,1,None|NXC|bias",
        "1,300,7,7,64,3,3,1,1,1,1,1,1,1,1,1,None|NXC|biasRelu",
        "1,300,7,7,64,3,3,1,1,1,1,1,1,1,1,1,None|NXC|biasSumRelu",
        "1,300,7,7,64,3,3,1,1,1,1,1,1,1,1,1,None|NXC|general",
        "1,400,5,300,7,3,3,1,1,1,1,1,1,1,1,1,None|NXC|general",
    })
    void chainsAfterAReductionInPasses(String geometry, String dataFormat, String chain) {
        checkChain(geometry, dataFormat, chain);
    }

    /**
     * Ungrouped convolutions that below 512 bits run as one GEMM per image with the chain applied
     * to finished output in place: unpadded 1x1 at stride 1 (panels copied) and 2 (gathered); wide
     * images over padded planes (3x3, the 7x7 stride-2 stem, dilation), whose panels are copied
     * within a row and gathered across rows; small images as the transposed product (pixels as
     * rows); two images, partial last panels and row groups, every store form.
     */
    @ParameterizedTest(name = "{0} chain {1}")
    @CsvSource(delimiter = '|', value = {
        "2,48,15,15,40,1,1,1,1,1,1,0,0,0,0,1,None|none", "2,48,15,15,40,1,1,1,1,1,1,0,0,0,0,1,None|bias",
        "2,48,15,15,40,1,1,1,1,1,1,0,0,0,0,1,None|biasRelu",
        "2,48,15,15,40,1,1,1,1,1,1,0,0,0,0,1,None|biasSumRelu",
        "2,48,15,15,40,1,1,1,1,1,1,0,0,0,0,1,None|general",
        "1,33,21,19,70,1,1,2,2,1,1,0,0,0,0,1,None|biasSumRelu",
        "1,33,21,19,70,1,1,2,2,1,1,0,0,0,0,1,None|general",
        "1,64,16,16,24,1,1,1,1,1,1,0,0,0,0,1,None|biasSumRelu",
        "1,1100,12,12,20,1,1,1,1,1,1,0,0,0,0,1,None|biasRelu",
        "2,13,9,50,21,3,3,1,1,1,1,1,1,1,1,1,None|biasSumRelu", "2,13,9,50,21,3,3,1,1,1,1,1,1,1,1,1,None|general",
        "1,3,20,101,19,7,7,2,2,1,1,3,3,3,3,1,None|biasRelu", "1,5,11,60,9,3,3,1,1,2,2,2,2,2,2,1,None|bias",
        "1,7,6,53,10,3,3,1,1,1,1,0,0,0,0,1,None|none",
        "2,20,7,7,33,3,3,1,1,1,1,1,1,1,1,1,None|biasSumRelu", "1,40,7,7,24,1,1,1,1,1,1,0,0,0,0,1,None|general",
        "1,16,14,14,20,3,3,2,2,1,1,1,1,1,1,1,None|biasRelu", "1,9,5,9,6,3,3,1,1,1,1,0,0,0,0,1,None|bias",
    })
    void gemmChains(String geometry, String chain) {
        checkChain(geometry, "NCX", chain);
    }

    private static void checkChain(String geometry, String dataFormat, String chain) {
        boolean nxc = dataFormat.equals("NXC");
        Conv c = Conv.parse(geometry).with(nxc, nxc, true);
        long[] d = c.dstDims();
        long[] perChannel = nxc ? new long[] {1, 1, 1, c.oc} : new long[] {1, c.oc, 1, 1};
        int[] ops = {1};
        List<Partition> parts = AgainstReference.check(g -> {
            Op.Builder conv = c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d));
            if (!chain.equals("none")) {
                conv.input(constant(3, c.oc));
            }
            g.add(conv.build());
            long last = 2;
            if (chain.equals("biasSumRelu")) {
                g.add(Op.builder(1, OpKind.Add).inputs(f32(2, d), f32(4, d)).output(f32(5, d)).build());
                last = 5;
            }
            if (chain.startsWith("bias") && chain.endsWith("Relu")) {
                g.add(Op.builder(2, OpKind.ReLU).input(f32(last, d)).output(f32(6, d)).build());
            }
            if (chain.equals("general")) {
                g.add(Op.builder(3, OpKind.GELU).input(f32(2, d)).output(f32(7, d)).build());
                g.add(Op.builder(4, OpKind.Multiply).inputs(f32(7, d), f32(8, perChannel)).output(f32(9, d)).build());
                g.add(Op.builder(5, OpKind.Subtract).inputs(f32(10, d), f32(9, d)).output(f32(11, d)).build());
            }
            ops[0] = g.ops().size();
        }, geometry.hashCode() + chain.hashCode());
        assertEquals(1, parts.size(), parts.toString());
        assertClaimedAlone(parts, ops[0]);
    }

    /** Binary operands broadcasting along other dims: last dim only, [C,1,1] (rank 3), batch-wide, full. */
    @ParameterizedTest(name = "{0} {1} operand {2}")
    @CsvSource({
        "NCX,Add,1;1;1;5", "NCX,Maximum,63;1;1", "NCX,Divide,3;1;1;1", "NCX,Minimum,3;63;4;5",
        "NXC,Add,1;4;1;1", "NXC,Multiply,63", "NXC,Subtract,3;1;5;63", "NXC,Divide,1;1;1;1"
    })
    void binaryOperandsBroadcast(String dataFormat, String kind, String operand) {
        boolean nxc = dataFormat.equals("NXC");
        Conv c = Conv.parse("3,17,9,11,63,3,3,2,2,1,1,1,0,0,1,1,None").with(nxc, !nxc, true);
        long[] d = c.dstDims();
        long[] od = Arrays.stream(operand.split(";")).mapToLong(Long::parseLong).toArray();
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d)).build());
            g.add(Op.builder(1, OpKind.valueOf(kind)).inputs(f32(2, d), f32(3, od)).output(f32(4, d)).build());
        }, 29);
        assertClaimedAlone(parts, 2);
    }

    /** Inputs whose strides are not dense: a channels-last buffer read as NCX, padded rows, sliced weights. */
    @ParameterizedTest(name = "{0} {1} constant={2}")
    @CsvSource({"NCX,OIX,true", "NCX,XIO,false", "NXC,OIX,false", "NXC,XIO,true"})
    void stridedInputs(String dataFormat, String weightsFormat, boolean constant) {
        boolean nxc = dataFormat.equals("NXC");
        Conv c = Conv.parse("2,6,7,9,10,3,3,1,2,1,1,1,1,1,1,2,None").with(nxc, weightsFormat.equals("XIO"), constant);
        long[] sd = c.srcDims();
        // src: spatial rows padded to 11 floats and channels-interleaved physically
        long[] srcStrides = nxc ? new long[] {7 * 11 * 6, 11 * 6, 6, 1} : new long[] {7 * 11 * 6, 1, 11 * 6, 6};
        long[] wd = c.weightsDims();
        // weights: every dim's stride doubled (a slice of a bigger tensor)
        long[] ws = LogicalTensor.denseStrides(wd);
        for (int i = 0; i < ws.length; i++) {
            ws[i] *= 2;
        }
        LogicalTensor src = LogicalTensor.of(0, DataType.F32, sd, LayoutType.STRIDED, srcStrides, PropertyType.UNDEF);
        LogicalTensor w = LogicalTensor.of(1, DataType.F32, wd, LayoutType.STRIDED, ws,
                constant ? PropertyType.CONSTANT : PropertyType.UNDEF);
        long[] bs = {3};
        LogicalTensor bias = LogicalTensor.of(3, DataType.F32, new long[] {c.oc}, LayoutType.STRIDED, bs,
                PropertyType.UNDEF);
        List<Partition> parts = AgainstReference.check(g -> g.add(c.op(0, src, w, f32(2, c.dstDims())).input(bias)
                .build()), 31);
        assertClaimedAlone(parts, 1);
    }

    /** Only 2-D convolutions are claimed; 1-D and 3-D ones run on the reference (and still agree). */
    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void otherSpatialRanksAreLeftToTheReference(int spatial) {
        long[] src = spatial == 1 ? new long[] {2, 5, 9} : new long[] {1, 3, 4, 5, 6};
        long[] w = spatial == 1 ? new long[] {4, 5, 3} : new long[] {4, 3, 3, 3, 3};
        long[] ones = new long[spatial];
        Arrays.fill(ones, 1);
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Convolution)
                .inputs(f32(0, src), constant(1, w)).output(LogicalTensor.unknownRank(2, DataType.F32))
                .attr("strides", ones).attr("dilations", ones).attr("pads_begin", ones).attr("pads_end", ones)
                .attr("data_format", "NCX").attr("weights_format", "OIX").build()), 37);
        assertNotEquals("dnnl", parts.get(0).backendId());
    }

    /** The default formats (NXC data, XIO weights) when the attributes are absent. */
    @Test
    void defaultFormats() {
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Convolution)
                .inputs(f32(0, 2, 9, 8, 5), constant(1, 3, 3, 5, 7)).output(LogicalTensor.unknownRank(2, DataType.F32))
                .attr("strides", new long[] {1, 2}).attr("dilations", new long[] {1, 1})
                .attr("pads_begin", new long[] {1, 0}).attr("pads_end", new long[] {0, 1}).build()), 41);
        assertClaimedAlone(parts, 1);
    }

    /** Tensors in a confined arena can only be touched by their owner: the primitive runs on the caller alone. */
    @ParameterizedTest
    @ValueSource(strings = {"NCX", "NXC"})
    void confinedTensorsRunOnTheCallingThread(String dataFormat) {
        Conv c = Conv.parse("2,17,12,11,33,3,3,1,1,1,1,1,1,1,1,1,None").with(dataFormat.equals("NXC"), false, true);
        long[] d = c.dstDims();
        java.util.function.Consumer<Graph> build = g -> {
            g.add(c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d)).build());
            g.add(Op.builder(1, OpKind.ReLU).input(f32(2, d)).output(f32(3, d)).build());
        };
        Graph g = AgainstReference.WITH_DNNL.createGraph(EngineKind.CPU);
        build.accept(g);
        g.finalizeGraph();
        Graph r = AgainstReference.REFERENCE.createGraph(EngineKind.CPU);
        build.accept(r);
        r.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = AgainstReference.WITH_DNNL.compile(g, PartitionPolicy.FUSION, e);
                CompiledGraph rg = AgainstReference.REFERENCE.compile(r, PartitionPolicy.DEBUG, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(SCHEMAS, g, e, arena, 47);
            Tensor expected = rg.execute(new io.partita.graph.Stream(e), in).get(3L);
            Tensor actual = cg.execute(new io.partita.graph.Stream(e), in).get(3L);
            OutputComparison.Result res = OutputComparison.compare(expected, actual);
            assertTrue(res.matches(), res.describe());
        }
        assertClaimedAlone(g.partitions(PartitionPolicy.FUSION), 2);
    }

    /** The same compiled shapes with a chain value used twice (not fusable): conv stays alone, still right. */
    @Test
    void chainValueWithTwoConsumersIsNotFused() {
        Conv c = Conv.parse("1,5,6,7,9,3,3,1,1,1,1,1,1,1,1,1,None").with(false, false, true);
        long[] d = c.dstDims();
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d)).build());
            g.add(Op.builder(1, OpKind.ReLU).input(f32(2, d)).output(f32(3, d)).build());
            g.add(Op.builder(2, OpKind.Add).inputs(f32(2, d), f32(3, d)).output(f32(4, d)).build());
        }, 43);
        assertClaimedAlone(parts, 1);
    }
}
