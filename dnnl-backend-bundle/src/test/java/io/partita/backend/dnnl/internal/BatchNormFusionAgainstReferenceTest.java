package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.partita.backend.dnnl.internal.ConvAgainstReferenceTest.Conv;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PropertyType;

/**
 * Convolution with BatchNormInference in its post-op chain against the reference: folded into the
 * weights and bias when weights, biases and BatchNorm parameters are constant, applied per channel
 * in the store otherwise; with a residual Add (sum post-op) and ReLU after it, as ResNet has; and
 * BatchNormInference on its own with a ReLU. Odd channel counts, strides 1 and 2, 1x1, 3x3 and 7x7
 * kernels, both data formats.
 */
class BatchNormFusionAgainstReferenceTest {

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static LogicalTensor param(long id, long channels, boolean constant) {
        LogicalTensor t = f32(id, channels);
        return constant ? t.withProperty(PropertyType.CONSTANT) : t;
    }

    static Op batchNorm(long id, LogicalTensor src, long firstParam, long channels, boolean constant, String format,
            LogicalTensor dst) {
        return Op.builder(id, OpKind.BatchNormInference)
                .inputs(src, param(firstParam, channels, constant), param(firstParam + 1, channels, constant),
                        param(firstParam + 2, channels, constant), param(firstParam + 3, channels, constant))
                .output(dst).attr("epsilon", 1e-3f).attr("data_format", format).build();
    }

    /** The partition holding the convolution: on dnnl, with {@code ops} ops. */
    private static void assertConvPartition(List<Partition> parts, int ops) {
        Partition conv = parts.stream().filter(p -> p.ops().stream().anyMatch(o -> o.kind() == OpKind.Convolution))
                .findFirst().orElseThrow();
        assertEquals("dnnl", conv.backendId(), parts.toString());
        assertEquals(ops, conv.ops().size(), parts.toString());
    }

    /** Geometry (n,ic,ih,iw,oc,kh,kw,sh,sw,dh,dw,pt,pl,pb,pr,groups,autoPad), format, constant weights and BN, own bias, BiasAdd. */
    @ParameterizedTest(name = "{0} {1} const weights={2} const bn={3} own bias={4} biasadd={5}")
    @CsvSource(delimiter = '|', value = {
        "1,3,23,19,17,7,7,2,2,1,1,3,3,2,2,1,None|NCX|true|true|true|false",
        "1,3,23,19,17,7,7,2,2,1,1,3,3,2,2,1,None|NXC|true|true|false|true",
        "2,17,9,11,33,3,3,1,1,1,1,1,1,1,1,1,None|NCX|true|true|false|false",
        "2,17,9,11,33,3,3,1,1,1,1,1,1,1,1,1,None|NXC|true|true|true|true",
        "1,33,10,9,19,3,3,2,2,1,1,1,1,1,1,1,None|NCX|true|true|true|true",
        "1,33,10,9,19,3,3,2,2,1,1,1,1,1,1,1,None|NXC|true|true|false|false",
        "2,20,8,7,65,1,1,1,1,1,1,0,0,0,0,1,None|NCX|true|true|false|false",
        "2,20,8,7,65,1,1,1,1,1,1,0,0,0,0,1,None|NXC|true|true|true|false",
        "1,31,11,13,15,1,1,2,2,1,1,0,0,0,0,1,None|NCX|true|true|true|false",
        "1,31,11,13,15,1,1,2,2,1,1,0,0,0,0,1,None|NXC|true|true|false|true",
        "1,17,7,7,17,3,3,1,1,1,1,1,1,1,1,17,None|NCX|true|true|true|false",
        "1,18,7,9,12,3,3,1,1,1,1,1,1,1,1,3,None|NXC|true|true|false|false",
        // not foldable: variable weights or variable BatchNorm parameters (per-channel scale and shift)
        "2,17,9,11,33,3,3,1,1,1,1,1,1,1,1,1,None|NCX|false|true|true|false",
        "2,17,9,11,33,3,3,2,2,1,1,1,1,1,1,1,None|NXC|true|false|false|true",
        "1,3,23,19,17,7,7,2,2,1,1,3,3,2,2,1,None|NXC|false|false|true|true",
        "2,20,8,7,65,1,1,1,1,1,1,0,0,0,0,1,None|NCX|true|false|false|false",
    })
    void convBatchNormRelu(String geometry, String format, boolean constantWeights, boolean constantBn,
            boolean ownBias, boolean biasAdd) {
        boolean nxc = format.equals("NXC");
        Conv c = Conv.parse(geometry).with(nxc, nxc, constantWeights); // NXC with XIO weights
        long[] d = c.dstDims();
        List<Partition> parts = AgainstReference.check(g -> {
            Op.Builder conv = c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d));
            if (ownBias) {
                conv.input(param(3, c.oc(), true));
            }
            g.add(conv.build());
            LogicalTensor bnIn = f32(2, d);
            if (biasAdd) {
                g.add(Op.builder(1, OpKind.BiasAdd).inputs(f32(2, d), param(4, c.oc(), true)).output(f32(5, d))
                        .attr("data_format", format).build());
                bnIn = f32(5, d);
            }
            g.add(batchNorm(2, bnIn, 10, c.oc(), constantBn, format, f32(6, d)));
            g.add(Op.builder(3, OpKind.ReLU).input(f32(6, d)).output(f32(7, d)).build());
        }, geometry.hashCode() + format.hashCode());
        assertEquals(1, parts.size(), parts.toString());
        assertConvPartition(parts, biasAdd ? 4 : 3);
    }

    /** ResNet's block ends: conv → BN → Add(residual) → ReLU, one partition; the residual read in the store. */
    @ParameterizedTest(name = "{0} {1} residual on the {2}")
    @CsvSource({"NCX,true,left", "NXC,true,right", "NCX,false,right", "NXC,false,left"})
    void convBatchNormSumRelu(String format, boolean constantBn, String side) {
        boolean nxc = format.equals("NXC");
        Conv c = Conv.parse("2,19,9,10,23,1,1,1,1,1,1,0,0,0,0,1,None").with(nxc, false, true);
        long[] d = c.dstDims();
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d)).build());
            g.add(batchNorm(1, f32(2, d), 10, c.oc(), constantBn, format, f32(3, d)));
            boolean left = side.equals("left");
            g.add(Op.builder(2, OpKind.Add).inputs(left ? f32(4, d) : f32(3, d), left ? f32(3, d) : f32(4, d))
                    .output(f32(5, d)).build());
            g.add(Op.builder(3, OpKind.ReLU).input(f32(5, d)).output(f32(6, d)).build());
        }, 53);
        assertEquals(1, parts.size(), parts.toString());
        assertConvPartition(parts, 4);
    }

    /** A BatchNorm after an activation cannot be folded: it runs as a per-channel scale and shift. */
    @ParameterizedTest
    @ValueSource(strings = {"NCX", "NXC"})
    void batchNormAfterActivation(String format) {
        Conv c = Conv.parse("1,13,8,9,21,3,3,1,1,1,1,1,1,1,1,1,None").with(format.equals("NXC"), true, true);
        long[] d = c.dstDims();
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d)).build());
            g.add(Op.builder(1, OpKind.ReLU).input(f32(2, d)).output(f32(3, d)).build());
            g.add(batchNorm(2, f32(3, d), 10, c.oc(), true, format, f32(4, d)));
        }, 59);
        assertConvPartition(parts, 3);
    }

    /** A BatchNorm whose channel axis is not the convolution's (other data_format) is not fused, and still agrees. */
    @Test
    void batchNormOnAnotherAxisIsNotFused() {
        Conv c = Conv.parse("1,5,6,6,6,3,3,1,1,1,1,1,1,1,1,1,None").with(false, false, true);
        long[] d = c.dstDims(); // 1x6x6x6: NXC reads the last dim (6) as channels
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d)).build());
            g.add(batchNorm(1, f32(2, d), 10, 6, true, "NXC", f32(3, d)));
        }, 61);
        assertConvPartition(parts, 1);
    }

    /** BatchNormInference on its own, then ReLU: one element-wise partition. */
    @ParameterizedTest(name = "{0} constant={1}")
    @CsvSource({"NCX,true", "NXC,false", "NCX,false", "NXC,true"})
    void batchNormRelu(String format, boolean constant) {
        long[] d = format.equals("NCX") ? new long[] {2, 19, 7, 9} : new long[] {2, 7, 9, 19};
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(batchNorm(0, f32(0, d), 1, 19, constant, format, f32(5, d)));
            g.add(Op.builder(1, OpKind.ReLU).input(f32(5, d)).output(f32(6, d)).build());
        }, 67);
        assertEquals(1, parts.size(), parts.toString());
        Tensors.assertClaimed(parts, "dnnl", 0, 1);
    }

    /** MatMul + bias + residual Add (a tensor shaped like the output) + GELU: one partition, the residual read in the store. */
    @ParameterizedTest(name = "residual on the {0}")
    @ValueSource(strings = {"left", "right"})
    void matmulBiasSumGelu(String side) {
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 37, 70), f32(1, 70, 45).withProperty(PropertyType.CONSTANT))
                    .output(f32(2, 37, 45)).build());
            g.add(Op.builder(1, OpKind.BiasAdd).inputs(f32(2, 37, 45), param(3, 45, true)).output(f32(4, 37, 45)).build());
            boolean left = side.equals("left");
            g.add(Op.builder(2, OpKind.Add).inputs(left ? f32(5, 37, 45) : f32(4, 37, 45), left ? f32(4, 37, 45)
                    : f32(5, 37, 45)).output(f32(6, 37, 45)).build());
            g.add(Op.builder(3, OpKind.GELU).input(f32(6, 37, 45)).output(f32(7, 37, 45)).build());
        }, 71);
        assertEquals(1, parts.size(), parts.toString());
        Tensors.assertClaimed(parts, "dnnl", 0, 1, 2, 3);
    }

    /**
     * conv → (BN) → Add scalar → Sigmoid and Multiply of the same value (swish) → ReLU, as benchdnn's
     * conv_add_swish_relu_fusion: one partition, the swish one activation in the store.
     */
    @ParameterizedTest(name = "{0} bn={1} sigmoid first={2}")
    @CsvSource({"NCX,false,true", "NXC,false,false", "NCX,true,false", "NXC,true,true"})
    void convSwishRelu(String format, boolean bn, boolean sigmoidFirst) {
        boolean nxc = format.equals("NXC");
        Conv c = Conv.parse("2,13,9,8,21,3,3,1,1,1,1,1,1,1,1,1,None").with(nxc, false, true);
        long[] d = c.dstDims();
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d)).input(param(3, c.oc(), true)).build());
            LogicalTensor x = f32(2, d);
            if (bn) {
                g.add(batchNorm(1, x, 20, c.oc(), true, format, f32(4, d)));
                x = f32(4, d);
            }
            g.add(Op.builder(2, OpKind.Add).inputs(x, f32(5, 1, 1, 1, 1)).output(f32(6, d)).build());
            g.add(Op.builder(3, OpKind.Sigmoid).input(f32(6, d)).output(f32(7, d)).build());
            g.add(Op.builder(4, OpKind.Multiply).inputs(sigmoidFirst ? f32(7, d) : f32(6, d),
                    sigmoidFirst ? f32(6, d) : f32(7, d)).output(f32(8, d)).build());
            g.add(Op.builder(5, OpKind.ReLU).input(f32(8, d)).output(f32(9, d)).build());
        }, 79);
        assertEquals(1, parts.size(), parts.toString());
        assertConvPartition(parts, bn ? 6 : 5);
    }

    /** A sigmoid whose result is also read elsewhere is no swish: the chain stops before it, results still agree. */
    @Test
    void sigmoidReadTwiceIsNotFused() {
        Conv c = Conv.parse("1,5,6,7,9,3,3,1,1,1,1,1,1,1,1,1,None").with(false, false, true);
        long[] d = c.dstDims();
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(c.op(0, f32(0, c.srcDims()), c.weights(1), f32(2, d)).build());
            g.add(Op.builder(1, OpKind.Sigmoid).input(f32(2, d)).output(f32(3, d)).build());
            g.add(Op.builder(2, OpKind.Multiply).inputs(f32(2, d), f32(3, d)).output(f32(4, d)).build());
            g.add(Op.builder(3, OpKind.Add).inputs(f32(3, d), f32(4, d)).output(f32(5, d)).build());
        }, 83);
        assertConvPartition(parts, 1);
    }
}
