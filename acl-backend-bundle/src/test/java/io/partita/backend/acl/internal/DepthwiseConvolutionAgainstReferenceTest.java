package io.partita.backend.acl.internal;

import static io.partita.backend.acl.internal.AgainstReference.assertAcl;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.backend.acl.internal.memory.AuxTensor;
import io.partita.backend.acl.internal.ops.DepthwiseConvolution;
import io.partita.backend.acl.internal.ops.GemmConvolution;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PropertyType;

/** Depthwise convolution (direct loop): odd sizes, strides, padding, dilation, both layouts, against the reference. */
class DepthwiseConvolutionAgainstReferenceTest {

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    @ParameterizedTest(name = "{0}/{1} n={2} c={3} {4}x{5} k={6}x{7} s={8} p={9},{10} d={11} bias={12} relu={13} const={14}")
    @CsvSource({
        "NCX,OIX,1,3,7,7,3,3,1,1,1,1,true,false,true",
        "NXC,XIO,2,19,9,11,3,3,2,1,0,1,true,true,true",
        "NCX,OIX,2,5,8,37,3,2,1,0,1,2,false,true,false",
        "NXC,OIX,1,33,13,7,5,5,3,2,2,1,true,false,true",
        "NCX,XIO,1,7,6,41,3,3,1,1,1,1,true,true,false",
        "NXC,XIO,3,8,10,10,3,3,1,2,2,2,false,false,true",
        "NCX,OIX,1,4,23,35,5,5,2,2,1,1,true,true,true",
        "NXC,XIO,1,64,12,12,3,3,1,1,1,1,true,true,false",
        "NCX,OIX,1,2,17,19,1,1,1,0,0,1,true,false,true"
    })
    void depthwise(String dataFormat, String weightsFormat, long n, long c, long h, long w, long kh, long kw,
            long stride, long padBegin, long padEnd, long dil, boolean bias, boolean relu, boolean constant) {
        boolean last = dataFormat.equals("NXC");
        long ho = (h + padBegin + padEnd - dil * (kh - 1) - 1) / stride + 1;
        long wo = (w + padBegin + padEnd - dil * (kw - 1) - 1) / stride + 1;
        long[] src = last ? new long[] {n, h, w, c} : new long[] {n, c, h, w};
        long[] dst = last ? new long[] {n, ho, wo, c} : new long[] {n, c, ho, wo};
        long[] wts = weightsFormat.equals("XIO") ? new long[] {kh, kw, 1, c} : new long[] {c, 1, kh, kw};
        List<Partition> parts = AgainstReference.check(g -> {
            LogicalTensor weights = constant ? f32(1, wts).withProperty(PropertyType.CONSTANT) : f32(1, wts);
            Op.Builder conv = Op.builder(0, OpKind.Convolution).inputs(f32(0, src), weights)
                    .attr("strides", stride, stride).attr("pads_begin", padBegin, padBegin)
                    .attr("pads_end", padEnd, padEnd).attr("dilations", dil, dil).attr("groups", c)
                    .attr("data_format", dataFormat).attr("weights_format", weightsFormat);
            if (bias) {
                conv.input(constant ? f32(2, c).withProperty(PropertyType.CONSTANT) : f32(2, c));
            }
            g.add(conv.output(f32(3, dst)).build());
            if (relu) {
                g.add(Op.builder(1, OpKind.ReLU).input(f32(3, dst)).output(f32(4, dst)).build());
            }
        }, h * 17 + c);
        assertAcl(parts, relu ? "dw_conv_relu" : "dw_conv");
    }

    @Test
    void onlyNonConstantWeightsNeedAnAuxiliaryTensor() {
        GemmConvolution.Desc d = new GemmConvolution.Desc(1, 8, 5, 5, 8, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 8, true, true, false,
                false, false);
        assertEquals(List.of(new AuxTensor("reshaped_weights", 9 * 8 * 4, 0, 1)),
                new DepthwiseConvolution(new DepthwiseConvolution.Desc(d)).auxTensors());
        GemmConvolution.Desc constant = new GemmConvolution.Desc(1, 8, 5, 5, 8, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 8, true, true,
                false, false, true);
        assertEquals(List.of(), new DepthwiseConvolution(new DepthwiseConvolution.Desc(constant)).auxTensors());
    }
}
