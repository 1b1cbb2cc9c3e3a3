package io.partita.backend.dnnl.internal;

import static io.partita.backend.dnnl.internal.Tensors.any;
import static io.partita.backend.dnnl.internal.Tensors.assertClaimed;
import static io.partita.backend.dnnl.internal.Tensors.dims;
import static io.partita.backend.dnnl.internal.Tensors.f32;
import static io.partita.backend.dnnl.internal.Tensors.stored;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.Tensor;

/**
 * MaxPool and AvgPool partitions (NCX/NXC, 1-3 spatial dims, strides, pads incl. negative ones,
 * dilations, rounding, auto_pad, exclude_pad, strided sources, post-op chains) against the reference.
 */
class PoolAgainstReferenceTest {

    private static Op pool(String kind, String format, LogicalTensor src, LogicalTensor dst, String k, String s,
            String pb, String pe, String dil, String rounding, String autoPad, boolean exclude) {
        Op.Builder b = Op.builder(0, OpKind.valueOf(kind)).input(src).output(dst).attr("data_format", format)
                .attr("kernel", dims(k)).attr("strides", dims(s)).attr("pads_begin", dims(pb))
                .attr("pads_end", dims(pe)).attr("rounding_type", rounding).attr("auto_pad", autoPad);
        if (kind.equals("AvgPool")) {
            b.attr("exclude_pad", exclude);
        } else if (!dil.isEmpty()) {
            b.attr("dilations", dims(dil));
        }
        return b.build();
    }

    @ParameterizedTest(name = "{0} {1} {2} k{3} s{4} pads {5}/{6} dil {7} {8} {9} exclude={10}")
    @CsvSource(delimiter = '|', value = {
        "MaxPool|NCX|2,3,17,19|3,3|2,2|1,1|1,1||floor|None|false",
        // the stride-2 max path on rows of several vectors: even and odd kernel widths, no padding, ceil
        "MaxPool|NCX|1,3,40,112|3,3|2,2|1,1|1,1||floor|None|false",
        "MaxPool|NCX|1,2,11,67|2,2|2,2|0,0|0,0||floor|None|false",
        "MaxPool|NCX|1,2,13,70|5,5|2,2|2,2|2,2||ceil|None|false",
        "MaxPool|NCX|1,5,33,65|3,3|1,1|0,0|0,0||floor|None|false",
        "MaxPool|NXC|2,17,19,20|3,3|2,2|1,1|0,0||ceil|None|false",
        "MaxPool|NCX|2,3,17,19|3,3|1,2|2,2|2,2|2,3|floor|None|false",
        "MaxPool|NXC|2,17,19,33|3,2|2,1|1,0|1,1|2,2|ceil|None|false",
        "MaxPool|NCX|1,2,9,9|2,2|1,1|2,2|2,2||floor|None|false",
        "MaxPool|NXC|1,9,9,17|2,2|1,1|2,2|2,2||floor|None|false",
        "AvgPool|NCX|2,3,17,19|3,3|2,2|1,1|1,1||floor|None|true",
        "AvgPool|NCX|2,3,17,19|3,3|2,2|1,1|1,1||floor|None|false",
        "AvgPool|NXC|2,17,19,65|3,3|2,2|1,1|1,1||ceil|None|true",
        "AvgPool|NXC|2,17,19,3|3,3|2,2|1,1|1,1||ceil|None|false",
        "AvgPool|NCX|1,2,9,9|2,2|1,1|2,2|2,2||floor|None|true",
        "AvgPool|NCX|1,2,9,9|2,2|1,1|2,2|2,2||floor|None|false",
        "MaxPool|NCX|2,5,63|4|3|1|2||floor|None|false",
        "AvgPool|NXC|2,63,5|4|3|1|2||ceil|None|true",
        "AvgPool|NCX|1,3,5,9,11|2,4,3|2,2,2|1,1,1|-1,1,0||floor|None|false",
        "MaxPool|NXC|1,5,9,11,17|2,3,3|2,1,2|1,1,1|0,1,1|1,2,1|floor|None|false",
        "MaxPool|NCX|2,3,17,19|3,3|2,2|0,0|0,0||floor|SAME_UPPER|false",
        "MaxPool|NXC|2,17,19,5|4,4|3,3|0,0|0,0||floor|SAME_LOWER|false",
        "AvgPool|NCX|2,3,17,19|4,3|2,2|0,0|0,0||floor|SAME_LOWER|true",
        "AvgPool|NXC|2,17,19,5|3,3|2,2|0,0|0,0||floor|SAME_UPPER|false",
        "AvgPool|NCX|2,3,17,19|3,3|2,2|1,1|1,1||floor|VALID|false",
        "MaxPool|NCX|1,64,56,56|3,3|2,2|1,1|1,1||floor|None|false",
        "MaxPool|NCX|1,8,112,112|3,3|2,2|1,1|1,1||floor|None|false",
        "MaxPool|NCX|2,3,17,40|2,2|2,2|0,0|0,0||ceil|None|false",
        "MaxPool|NCX|2,3,16,71|3,3|2,2|0,0|1,1||ceil|None|false",
        "MaxPool|NCX|1,2,9,37|3,3|1,2|0,1|0,1||floor|None|false",
        "MaxPool|NCX|1,2,9,9|2,2|2,2|2,2|2,2||floor|None|false",
        "MaxPool|NCX|2,5,63|4|2|1|2||ceil|None|false",
        "MaxPool|NCX|1,3,5,9,21|1,3,3|1,2,2|0,1,1|0,1,1||floor|None|false",
        "MaxPool|NCX|1,3,5,9,21|2,3,3|2,2,2|0,1,1|0,1,1||floor|None|false",
        "AvgPool|NXC|1,28,28,130|2,2|2,2|0,0|0,0||floor|None|false"
    })
    void geometry(String kind, String format, String src, String k, String s, String pb, String pe, String dil,
            String rounding, String autoPad, boolean exclude) {
        long[] d = dims(src);
        List<Partition> parts = AgainstReference.check(g -> g.add(pool(kind, format, f32(0, d), any(1), k, s, pb, pe,
                dil == null ? "" : dil, rounding, autoPad, exclude)), d.length * 13 + d[1]);
        assertClaimed(parts, "dnnl", 0);
    }

    @ParameterizedTest(name = "{0} {1} stored {2}")
    @CsvSource({
        "MaxPool,NCX,0;2;3;1", "AvgPool,NCX,0;2;3;1", "MaxPool,NXC,0;3;1;2", "AvgPool,NXC,0;3;1;2",
        "MaxPool,NCX,1;0;2;3", "AvgPool,NXC,3;0;2;1"
    })
    void stridedSources(String kind, String format, String physical) {
        int[] order = java.util.Arrays.stream(physical.split(";")).mapToInt(Integer::parseInt).toArray();
        long[] d = format.equals("NCX") ? new long[] {2, 19, 13, 17} : new long[] {2, 13, 17, 19};
        List<Partition> parts = AgainstReference.check(g -> g.add(pool(kind, format,
                stored(0, DataType.F32, d, order), any(1), "3,3", "2,1", "1,1", "1,0", "", "floor", "None", true)), 7);
        assertClaimed(parts, "dnnl", 0);
    }

    /** The stride-2 max path over non-dense planes (unit W stride) and the general path without it. */
    @ParameterizedTest(name = "MaxPool NCX 3x3/2 stored {0}")
    @CsvSource({"1;0;2;3", "0;1;3;2", "0;2;3;1"})
    void stride2MaxOverStridedSources(String physical) {
        int[] order = java.util.Arrays.stream(physical.split(";")).mapToInt(Integer::parseInt).toArray();
        long[] d = {2, 5, 13, 37};
        List<Partition> parts = AgainstReference.check(g -> g.add(pool("MaxPool", "NCX",
                stored(0, DataType.F32, d, order), any(1), "3,3", "2,2", "1,1", "1,1", "", "floor", "None", false)), 5);
        assertClaimed(parts, "dnnl", 0);
    }

    /** NaN (anywhere in a window: the result is NaN) and signed zeros on the stride-2 max path, padded and not. */
    @Test
    void stride2MaxTakesSpecialValuesAsTheReference() {
        long[] d = {1, 3, 12, 40};
        AgainstReference.check(g -> g.add(pool("MaxPool", "NCX", f32(0, d), any(1), "3,3", "2,2", "0,0", "1,1", "",
                "floor", "None", false)), 17, in -> {
                    Tensor x = in.get(0L);
                    float[] v = new float[(int) x.logicalTensor().elementCount()];
                    for (int i = 0; i < v.length; i++) {
                        v[i] = switch (i % 23) {
                            case 0, 7 -> Float.NaN;
                            case 3, 11 -> -0f;
                            case 5, 13 -> 0f;
                            default -> (i * 37 % 101 - 80) / 16f; // mostly negative: zeros often win
                        };
                    }
                    x.copyFrom(v);
                });
        AgainstReference.check(g -> g.add(pool("MaxPool", "NCX", f32(0, d), any(1), "3,3", "2,2", "1,1", "1,1", "",
                "floor", "None", false)), 18, in -> {
                    Tensor x = in.get(0L);
                    float[] v = new float[(int) x.logicalTensor().elementCount()];
                    for (int i = 0; i < v.length; i++) {
                        v[i] = i % 40 % 6 == 2 && i / 40 % 2 == 0 ? Float.NaN : -1f - i % 7; // NaN mid-window
                    }
                    x.copyFrom(v);
                });
    }

    @ParameterizedTest(name = "{0} {1} strided={2}")
    @CsvSource({"MaxPool,NCX,false", "AvgPool,NCX,true", "MaxPool,NXC,false", "AvgPool,NXC,true"})
    void postOpChains(String kind, String format, boolean strided) {
        boolean ncx = format.equals("NCX");
        long c = 19;
        long[] d = ncx ? new long[] {2, c, 13, 17} : new long[] {2, 13, 17, c};
        long[] out = ncx ? new long[] {2, c, 7, 9} : new long[] {2, 7, 9, c};
        long[] bias = ncx ? new long[] {c, 1, 1} : new long[] {c};
        LogicalTensor src = strided ? stored(0, DataType.F32, d, ncx ? new int[] {0, 2, 3, 1} : new int[] {0, 3, 1, 2})
                : f32(0, d);
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(pool(kind, format, src, f32(1, out), "3,3", "2,2", "1,1", "1,1", "", "floor", "None", false));
            g.add(Op.builder(1, OpKind.Add).inputs(f32(1, out), f32(2, bias)).output(f32(3, out)).build());
            g.add(Op.builder(2, OpKind.ReLU).input(f32(3, out)).output(f32(4, out)).build());
            g.add(Op.builder(3, OpKind.Multiply).inputs(f32(4, out), f32(5, out)).output(f32(6, out)).build());
        }, 11);
        assertClaimed(parts, "dnnl", 0, 1, 2, 3);
    }

    @Test
    void otherDataTypesAreLeftToTheReference() {
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.MaxPool)
                .input(LogicalTensor.of(0, DataType.BF16, 1, 3, 9, 9))
                .output(LogicalTensor.unknownRank(1, DataType.BF16))
                .attr("kernel", 2L, 2L).attr("strides", 2L, 2L).attr("pads_begin", 0L, 0L).attr("pads_end", 0L, 0L)
                .attr("data_format", "NCX").build()), 3);
        assertClaimed(parts, "reference", 0);
    }
}
