package io.partita.backend.acl.internal;

import static io.partita.backend.acl.internal.AgainstReference.assertAcl;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PropertyType;

/** GEMM convolution (im2col + GEMM): odd sizes, strides, padding, dilation, groups, both layouts, against the reference. */
class GemmConvolutionAgainstReferenceTest {

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    @ParameterizedTest(name = "{0}/{1} n={2} c={3} {4}x{5} o={6} k={7}x{8} s={9} p={10},{11} d={12} g={13} bias={14} relu={15} const={16}")
    @CsvSource({
        "NCX,OIX,1,3,7,7,5,3,3,1,1,1,1,1,true,false,true",
        "NXC,XIO,2,3,9,11,17,3,3,2,1,0,1,1,true,true,true",
        "NCX,OIX,2,4,8,9,6,3,2,2,0,1,1,2,false,true,false",
        "NXC,OIX,1,6,13,7,9,5,5,3,2,2,1,3,true,false,true",
        "NCX,XIO,1,5,6,6,7,1,1,1,0,0,1,1,true,true,false",
        "NXC,XIO,3,8,10,10,8,3,3,1,2,2,2,4,false,false,true",
        "NCX,OIX,1,1,15,17,1,3,3,1,1,1,1,1,true,true,true",
        "NXC,XIO,1,16,12,12,33,3,3,1,1,1,1,1,true,true,true"
    })
    void convolutions(String dataFormat, String weightsFormat, long n, long c, long h, long w, long o, long kh, long kw,
            long stride, long padBegin, long padEnd, long dil, long groups, boolean bias, boolean relu,
            boolean constant) {
        boolean last = dataFormat.equals("NXC");
        long ho = (h + padBegin + padEnd - dil * (kh - 1) - 1) / stride + 1;
        long wo = (w + padBegin + padEnd - dil * (kw - 1) - 1) / stride + 1;
        long[] src = last ? new long[] {n, h, w, c} : new long[] {n, c, h, w};
        long[] dst = last ? new long[] {n, ho, wo, o} : new long[] {n, o, ho, wo};
        long[] wts = weightsFormat.equals("XIO") ? new long[] {kh, kw, c / groups, o} : new long[] {o, c / groups, kh, kw};
        List<Partition> parts = AgainstReference.check(g -> {
            LogicalTensor weights = constant ? f32(1, wts).withProperty(PropertyType.CONSTANT) : f32(1, wts);
            Op.Builder conv = Op.builder(0, OpKind.Convolution).inputs(f32(0, src), weights)
                    .attr("strides", stride, stride).attr("pads_begin", padBegin, padBegin)
                    .attr("pads_end", padEnd, padEnd).attr("dilations", dil, dil).attr("groups", groups)
                    .attr("data_format", dataFormat).attr("weights_format", weightsFormat);
            if (bias) {
                conv.input(constant ? f32(2, o).withProperty(PropertyType.CONSTANT) : f32(2, o));
            }
            g.add(conv.output(f32(3, dst)).build());
            if (relu) {
                g.add(Op.builder(1, OpKind.ReLU).input(f32(3, dst)).output(f32(4, dst)).build());
            }
        }, h * 13 + o);
        assertAcl(parts, relu ? "gemm_conv_relu" : "gemm_conv");
    }
}
