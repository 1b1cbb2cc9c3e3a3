package io.partita.backend.dnnl.internal;

import static io.partita.backend.dnnl.internal.Tensors.any;
import static io.partita.backend.dnnl.internal.Tensors.assertClaimed;
import static io.partita.backend.dnnl.internal.Tensors.dims;
import static io.partita.backend.dnnl.internal.Tensors.f32;
import static io.partita.backend.dnnl.internal.Tensors.padded;
import static io.partita.backend.dnnl.internal.Tensors.stored;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/**
 * ReduceSum and ReduceMean partitions (axes, keep_dims, strided sources, long reductions, post-op
 * chains) against the reference.
 */
class ReduceAgainstReferenceTest {

    private static Op reduce(String kind, LogicalTensor src, LogicalTensor dst, long[] axes, boolean keep) {
        return Op.builder(0, OpKind.valueOf(kind)).input(src).output(dst).attr("axes", axes).attr("keep_dims", keep)
                .build();
    }

    @ParameterizedTest(name = "{0} {1} axes [{2}] keep={3}")
    @CsvSource(delimiter = '|', value = {
        "ReduceSum|3,17,5,63|3|true", "ReduceMean|3,17,5,63|-1|false", "ReduceSum|3,17,5,63|1|true",
        "ReduceMean|3,17,5,63|0|false", "ReduceSum|3,17,5,63|2,3|true", "ReduceMean|3,17,5,63|0,2|true",
        "ReduceSum|3,17,5,63|1,3|false", "ReduceMean|3,17,5,63|0,1,2,3|false", "ReduceSum|3,17,5,63|0,1,2,3|true",
        "ReduceSum|3,17,5,63||false", "ReduceMean|3,1,5,63|1|true", "ReduceSum|1|0|false", "ReduceMean|17|0|true",
        "ReduceSum|65,129|0|false", "ReduceMean|65,129|1|true", "ReduceSum|2,3,4,5,6|4|true",
        "ReduceSum|2,3,4,5,6|0,2,4|false", "ReduceMean|64,256,28,28|2,3|true", "ReduceSum|20000,16|0|true",
        "ReduceMean|1,300000|1|false", "ReduceSum|7,70000|1|false", "ReduceSum|4,9000,70|1|true"
    })
    void axesAndKeepDims(String kind, String shape, String axes, boolean keep) {
        long[] d = dims(shape);
        long[] ax = axes == null ? new long[0] : dims(axes);
        List<Partition> parts = AgainstReference.check(g -> g.add(reduce(kind, f32(0, d), any(1), ax, keep)),
                d.length * 17L + d[0]);
        assertClaimed(parts, "dnnl", 0);
    }

    @ParameterizedTest(name = "stored {0} axes [{1}]")
    @CsvSource(delimiter = '|', value = {
        "0;2;3;1|3", "0;2;3;1|1", "0;2;3;1|2,3", "3;2;1;0|1,2", "3;2;1;0|0", "1;0;2;3|0,1", "2;0;3;1|0,2"
    })
    void stridedSources(String physical, String axes) {
        int[] order = Arrays.stream(physical.split(";")).mapToInt(Integer::parseInt).toArray();
        long[] d = {3, 17, 5, 33};
        List<Partition> parts = AgainstReference.check(g -> g.add(reduce("ReduceSum",
                stored(0, DataType.F32, d, order), any(1), dims(axes), true)), 13);
        assertClaimed(parts, "dnnl", 0);
    }

    @Test
    void paddedRows() {
        List<Partition> parts = AgainstReference.check(g -> g.add(reduce("ReduceMean",
                padded(0, new long[] {9, 33}, new long[] {9, 40}), any(1), new long[] {1}, false)), 13);
        assertClaimed(parts, "dnnl", 0);
    }

    @ParameterizedTest(name = "{0} {1} axes [{2}] keep={3}")
    @CsvSource(delimiter = '|', value = {"ReduceSum|3,17,5,63|1|true", "ReduceMean|3,17,5,63|3|true",
        "ReduceSum|3,17,5,63|2,3|false", "ReduceMean|3,17,5,63|0,1,2,3|true", "ReduceSum|20000,16|0|false",
        "ReduceMean|3,300000|1|true", "ReduceSum|3,300000|1|false"})
    void postOpChains(String kind, String shape, String axes, boolean keep) {
        long[] d = dims(shape);
        long[] ax = dims(axes);
        long[] out = d.clone();
        for (long a : ax) {
            out[(int) a] = 1;
        }
        long[] o = keep ? out : Arrays.stream(out).filter(x -> x != 1).toArray();
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(reduce(kind, f32(0, d), f32(1, o), ax, keep));
            g.add(Op.builder(1, OpKind.Multiply).inputs(f32(1, o), f32(2, o)).output(f32(3, o)).build());
            g.add(Op.builder(2, OpKind.Tanh).input(f32(3, o)).output(f32(4, o)).build());
        }, 19);
        assertClaimed(parts, "dnnl", 0, 1, 2);
    }

    @Test
    void axesAsAnInputAndOtherKindsAreLeftToTheReference() {
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.ReduceSum).inputs(f32(0, 3, 17, 5), LogicalTensor.of(1, DataType.S32, 1))
                    .output(f32(2, 3, 1, 5)).attr("keep_dims", true).build());
            g.add(Op.builder(1, OpKind.ReduceMax).input(f32(3, 3, 17, 5)).output(any(4)).attr("axes", new long[] {1})
                    .build());
        }, 3);
        assertClaimed(parts, "reference", 0);
        assertClaimed(parts, "reference", 1);
    }
}
