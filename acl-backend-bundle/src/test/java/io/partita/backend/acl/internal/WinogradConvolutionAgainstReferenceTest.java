package io.partita.backend.acl.internal;

import static io.partita.backend.acl.internal.AgainstReference.assertAcl;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.backend.acl.internal.memory.AuxTensor;
import io.partita.backend.acl.internal.ops.GemmConvolution;
import io.partita.backend.acl.internal.ops.WinogradConvolution;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PropertyType;

/** Winograd F(4x4, 3x3): odd sizes (partial tiles), padding, both layouts, constant or not, against the reference. */
class WinogradConvolutionAgainstReferenceTest {

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    @ParameterizedTest(name = "{0}/{1} n={2} c={3} {4}x{5} o={6} p={7},{8} bias={9} relu={10} const={11}")
    @CsvSource({
        "NCX,OIX,1,32,29,30,32,1,1,true,false,true",
        "NXC,XIO,2,33,30,31,35,1,1,true,true,true",
        "NCX,OIX,1,40,31,33,32,0,0,false,true,false",
        "NXC,OIX,1,32,29,30,48,1,0,true,false,false",
        "NCX,XIO,2,64,28,28,64,1,1,true,true,true",
        "NXC,XIO,1,37,27,29,33,2,2,false,false,true"
    })
    void winograd(String dataFormat, String weightsFormat, long n, long c, long h, long w, long o, long padBegin,
            long padEnd, boolean bias, boolean relu, boolean constant) {
        boolean last = dataFormat.equals("NXC");
        long ho = h + padBegin + padEnd - 2;
        long wo = w + padBegin + padEnd - 2;
        long[] src = last ? new long[] {n, h, w, c} : new long[] {n, c, h, w};
        long[] dst = last ? new long[] {n, ho, wo, o} : new long[] {n, o, ho, wo};
        long[] wts = weightsFormat.equals("XIO") ? new long[] {3, 3, c, o} : new long[] {o, c, 3, 3};
        List<Partition> parts = AgainstReference.check(g -> {
            LogicalTensor weights = constant ? f32(1, wts).withProperty(PropertyType.CONSTANT) : f32(1, wts);
            Op.Builder conv = Op.builder(0, OpKind.Convolution).inputs(f32(0, src), weights)
                    .attr("strides", 1L, 1L).attr("pads_begin", padBegin, padBegin)
                    .attr("pads_end", padEnd, padEnd).attr("dilations", 1L, 1L).attr("groups", 1L)
                    .attr("data_format", dataFormat).attr("weights_format", weightsFormat);
            if (bias) {
                conv.input(constant ? f32(2, o).withProperty(PropertyType.CONSTANT) : f32(2, o));
            }
            g.add(conv.output(f32(3, dst)).build());
            if (relu) {
                g.add(Op.builder(1, OpKind.ReLU).input(f32(3, dst)).output(f32(4, dst)).build());
            }
        }, h * 19 + o);
        assertAcl(parts, relu ? "winograd_conv_relu" : "winograd_conv");
    }

    @ParameterizedTest(name = "c={0} o={1} {2}x{2} s={3} groups={4}")
    @CsvSource({"32,32,7,1,1", "16,64,28,1,1", "64,64,14,1,1", "32,32,30,2,1", "32,32,30,1,2"})
    void whereWinogradDoesNotWinOrApplyIm2colStays(long c, long o, long size, long stride, long groups) {
        long out = (size + 2 - 3) / stride + 1;
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Convolution)
                .inputs(f32(0, 1, c, size, size), f32(1, o, c / groups, 3, 3).withProperty(PropertyType.CONSTANT))
                .attr("strides", stride, stride).attr("pads_begin", 1L, 1L).attr("pads_end", 1L, 1L)
                .attr("dilations", 1L, 1L).attr("groups", groups).attr("data_format", "NCX").attr("weights_format", "OIX")
                .output(f32(3, 1, o, out, out)).build()), c + o);
        assertAcl(parts, "gemm_conv");
    }

    @Test
    void transformedTilesAreAuxiliaryTensorsAndWeightsOnlyWhenNotConstant() {
        // 9x9 output: 3x3 tiles of 4x4
        GemmConvolution.Desc d = new GemmConvolution.Desc(1, 32, 9, 9, 48, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, false, false,
                false, false, true);
        assertEquals(List.of(new AuxTensor("transformed_input", 36L * 9 * 32 * 4, 1, 2),
                new AuxTensor("transformed_output", 36L * 9 * 48 * 4, 2, 3)),
                new WinogradConvolution(new WinogradConvolution.Desc(d)).auxTensors());
    }
}
