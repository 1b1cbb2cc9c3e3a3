package io.partita.gpu.internal;

import static io.partita.gpu.internal.AgainstReference.constant;
import static io.partita.gpu.internal.AgainstReference.f32;
import static io.partita.gpu.internal.AgainstReference.out;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/** Direct convolution (both data and weights formats, groups, pads, dilations, epilogues) and pooling against the reference. */
class ConvPoolAgainstReferenceTest {

    /** "n,ic,ih,iw,oc,kh,kw,sh,sw,dh,dw,pt,pl,pb,pr,groups,autoPad,nxc,xio" as a Convolution op 0 on tensors 0, 1 -> 2. */
    private static Op.Builder conv(String spec) {
        String[] f = spec.split(",");
        long[] v = new long[16];
        for (int i = 0; i < 16; i++) {
            v[i] = Long.parseLong(f[i].trim());
        }
        boolean nxc = Boolean.parseBoolean(f[17].trim());
        boolean xio = Boolean.parseBoolean(f[18].trim());
        long n = v[0];
        long ic = v[1];
        long oc = v[4];
        long groups = v[15];
        long[] src = nxc ? new long[] {n, v[2], v[3], ic} : new long[] {n, ic, v[2], v[3]};
        long[] w = xio ? new long[] {v[5], v[6], ic / groups, oc} : new long[] {oc, ic / groups, v[5], v[6]};
        return Op.builder(0, OpKind.Convolution).inputs(f32(0, src), constant(1, w)).output(out(2))
                .attr("strides", v[7], v[8]).attr("dilations", v[9], v[10]).attr("pads_begin", v[11], v[12])
                .attr("pads_end", v[13], v[14]).attr("groups", groups).attr("auto_pad", f[16].trim())
                .attr("data_format", nxc ? "NXC" : "NCX").attr("weights_format", xio ? "XIO" : "OIX");
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "1,3,5,7,4,3,3,1,1,1,1,1,1,1,1,1,None,true,true",
        "1,3,5,7,4,3,3,1,1,1,1,1,1,1,1,1,None,false,false",
        "3,17,9,11,13,3,3,2,2,1,1,1,0,0,1,1,None,false,true",
        "1,6,15,15,12,3,3,1,1,2,3,2,3,2,3,1,None,true,false",
        "3,12,10,7,18,3,3,1,2,1,1,0,0,0,0,3,None,true,true",
        "1,17,9,9,17,3,3,1,1,1,1,1,1,1,1,17,None,false,false",
        "1,5,10,9,7,4,4,1,1,1,1,0,0,0,0,1,SAME_UPPER,true,true",
        "2,6,11,13,7,3,3,3,2,2,1,0,0,0,0,1,SAME_LOWER,false,true",
        "1,5,10,9,7,3,3,2,2,1,1,2,1,1,2,1,VALID,true,false",
        "1,4,10,10,4,3,3,1,1,1,1,-1,0,0,-2,1,None,true,true"})
    void convolution(String spec) {
        AgainstReference.checkBothMatMulKernels(g -> g.add(conv(spec).build()), spec.hashCode());
    }

    @Test
    void convolutionBiasAndPostOpsFuse() {
        List<Partition> parts = AgainstReference.checkBothMatMulKernels(g -> {
            g.add(conv("2,5,9,7,11,3,3,1,1,1,1,1,1,1,1,1,None,true,true").input(constant(3, 11)).build());
            g.add(Op.builder(1, OpKind.Add).inputs(out(2), f32(4, 2, 1, 1, 11)).output(out(5)).build());
            g.add(Op.builder(2, OpKind.ReLU).input(out(5)).output(out(6)).build());
        }, 5);
        assertEquals(1, parts.size());
        assertEquals(3, parts.get(0).ops().size());
    }

    @Test
    void oneAndThreeSpatialDims() {
        AgainstReference.checkBothMatMulKernels(g -> g.add(Op.builder(0, OpKind.Convolution).inputs(f32(0, 2, 3, 13), constant(1, 5, 3, 3))
                .output(out(2)).attr("strides", new long[] {2}).attr("dilations", new long[] {1})
                .attr("pads_begin", new long[] {1}).attr("pads_end", new long[] {1})
                .attr("data_format", "NCX").attr("weights_format", "OIX").build()), 7);
        AgainstReference.checkBothMatMulKernels(g -> g.add(Op.builder(0, OpKind.Convolution)
                .inputs(f32(0, 1, 5, 6, 7, 3), constant(1, 2, 3, 3, 3, 4)).output(out(2)).attr("strides", 1L, 2L, 1L)
                .attr("dilations", 1L, 1L, 2L).attr("pads_begin", 1L, 0L, 2L).attr("pads_end", 0L, 1L, 2L)
                .attr("data_format", "NXC").attr("weights_format", "XIO").build()), 8);
    }

    @ParameterizedTest
    @CsvSource({"MaxPool,NCX,false,floor,None", "MaxPool,NXC,false,ceil,None", "AvgPool,NCX,true,floor,None",
        "AvgPool,NXC,false,ceil,None", "AvgPool,NCX,false,floor,SAME_UPPER", "MaxPool,NXC,false,floor,SAME_LOWER"})
    void pooling(String kind, String format, boolean excludePad, String rounding, String autoPad) {
        long[] src = "NCX".equals(format) ? new long[] {2, 5, 11, 9} : new long[] {2, 11, 9, 5};
        AgainstReference.checkBothMatMulKernels(g -> {
            Op.Builder b = Op.builder(0, OpKind.valueOf(kind)).input(f32(0, src)).output(out(1))
                    .attr("kernel", 3L, 2L).attr("strides", 2L, 2L).attr("pads_begin", 1L, 0L).attr("pads_end", 1L, 1L)
                    .attr("data_format", format).attr("rounding_type", rounding).attr("auto_pad", autoPad);
            if ("AvgPool".equals(kind)) {
                b.attr("exclude_pad", excludePad);
            } else {
                b.attr("dilations", 1L, 2L);
            }
            g.add(b.build());
        }, 12);
    }
}
