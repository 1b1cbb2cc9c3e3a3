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

/** MaxPool / AvgPool: odd sizes, strides, padding, dilation, exclude_pad, ceil rounding, both layouts, against the reference. */
class PoolingAgainstReferenceTest {

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    @ParameterizedTest(name = "{0} {1} n={2} c={3} {4}x{5} k={6}x{7} s={8},{9} p={10},{11} d={12} exclude={13} {14}")
    @CsvSource({
        "MaxPool,NCX,1,3,7,7,3,3,1,1,1,1,1,false,floor",
        "MaxPool,NXC,2,19,9,11,3,3,2,2,1,1,1,false,floor",
        "MaxPool,NCX,1,5,13,40,2,2,2,2,0,0,1,false,ceil",
        "MaxPool,NXC,1,33,12,13,3,2,2,1,1,0,2,false,floor",
        "MaxPool,NCX,2,4,11,37,3,3,1,1,1,1,2,false,ceil",
        "AvgPool,NCX,1,3,7,7,3,3,1,1,1,1,1,true,floor",
        "AvgPool,NCX,1,3,9,41,3,3,1,1,1,1,1,false,floor",
        "AvgPool,NXC,2,17,10,9,3,3,2,2,1,1,1,true,ceil",
        "AvgPool,NXC,1,8,9,9,2,3,2,3,1,1,1,false,ceil",
        "AvgPool,NCX,2,6,14,15,5,5,3,2,2,2,1,true,floor",
        "AvgPool,NCX,1,2,7,7,7,7,1,1,0,0,1,false,floor"
    })
    void pooling(String kind, String dataFormat, long n, long c, long h, long w, long kh, long kw, long sh, long sw,
            long padBegin, long padEnd, long dil, boolean exclude, String rounding) {
        boolean last = dataFormat.equals("NXC");
        boolean ceil = rounding.equals("ceil");
        long ho = out(h, kh, sh, padBegin, padEnd, dil, ceil);
        long wo = out(w, kw, sw, padBegin, padEnd, dil, ceil);
        long[] src = last ? new long[] {n, h, w, c} : new long[] {n, c, h, w};
        long[] dst = last ? new long[] {n, ho, wo, c} : new long[] {n, c, ho, wo};
        boolean max = kind.equals("MaxPool");
        List<Partition> parts = AgainstReference.check(g -> {
            Op.Builder b = Op.builder(0, max ? OpKind.MaxPool : OpKind.AvgPool).input(f32(0, src))
                    .attr("strides", sh, sw).attr("kernel", kh, kw).attr("pads_begin", padBegin, padBegin)
                    .attr("pads_end", padEnd, padEnd).attr("data_format", dataFormat).attr("rounding_type", rounding);
            if (max) {
                b.attr("dilations", dil, dil);
            } else {
                b.attr("exclude_pad", exclude);
            }
            g.add(b.output(f32(1, dst)).build());
        }, h * 31 + c);
        assertAcl(parts, "pool");
    }

    /** The output size the runtime's shape inference gives (floor or ceil of the window count). */
    static long out(long in, long k, long s, long pb, long pe, long dil, boolean ceil) {
        long span = in + pb + pe - dil * (k - 1) - 1;
        return (ceil ? (span + s - 1) / s : span / s) + 1;
    }
}
