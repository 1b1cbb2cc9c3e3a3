package io.partita.backend.dnnl.internal;

import static io.partita.backend.dnnl.internal.Tensors.any;
import static io.partita.backend.dnnl.internal.Tensors.assertClaimed;
import static io.partita.backend.dnnl.internal.Tensors.dims;
import static io.partita.backend.dnnl.internal.Tensors.f32;
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
 * LayerNorm partitions (begin_norm_axis, use_affine, keep_stats, parameter shapes, strided sources)
 * against the reference.
 */
class LayerNormAgainstReferenceTest {

    @ParameterizedTest(name = "{0} from {1} affine={2} stats={3} eps={4}")
    @CsvSource({
        "17,-1,true,true,1e-5", "1,0,false,false,1e-5", "3;65,-1,true,false,0.0625", "3;65,0,false,true,1e-5",
        "2;5;63,1,true,true,1e-5", "2;5;63,-1,false,false,1e-3", "2;5;63,-2,true,false,1e-5",
        "4;1;16,-2,false,true,1e-5", "63;1,1,true,true,1e-5", "7;1024,1,true,true,1e-5", "129;15,-1,false,true,0.5"
    })
    void axesAffineAndStats(String shape, long begin, boolean affine, boolean stats, float eps) {
        long[] d = dims(shape.replace(';', ','));
        int b = (int) (begin < 0 ? begin + d.length : begin);
        long[] norm = Arrays.copyOfRange(d, b, d.length);
        List<Partition> parts = AgainstReference.check(g -> {
            Op.Builder op = Op.builder(0, OpKind.LayerNorm).input(f32(0, d)).attr("begin_norm_axis", begin)
                    .attr("use_affine", affine).attr("keep_stats", stats).attr("epsilon", eps);
            if (affine) {
                op.input(f32(1, norm)).input(f32(2, norm));
            }
            if (stats) {
                op.outputs(any(3), any(4), any(5));
            } else {
                op.output(any(3));
            }
            g.add(op.build());
        }, d.length * 7 + b);
        assertClaimed(parts, "dnnl", 0);
    }

    @Test
    void flatParametersForSeveralNormalizedDims() {
        long[] d = {3, 5, 63};
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.LayerNorm)
                .inputs(f32(0, d), f32(1, 315), f32(2, 5, 63)).output(any(3)).attr("begin_norm_axis", 1L)
                .attr("keep_stats", false).build()), 3);
    }

    @Test
    void largeMeanSmallSpread() {
        // x + 1024 (built from exp(s - s) = 1): the mean dominates the spread, the centred second pass keeps it exact
        long[] d = {9, 257};
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.Subtract).inputs(f32(0, 1), f32(0, 1)).output(f32(1, 1)).build());
            g.add(Op.builder(1, OpKind.Exp).input(f32(1, 1)).output(f32(2, 1)).build());
            g.add(Op.builder(2, OpKind.Add).inputs(f32(2, 1), f32(2, 1)).output(f32(3, 1)).build());
            g.add(Op.builder(3, OpKind.Multiply).inputs(f32(3, 1), f32(3, 1)).output(f32(4, 1)).build());
            g.add(Op.builder(4, OpKind.Multiply).inputs(f32(4, 1), f32(4, 1)).output(f32(5, 1)).build());
            g.add(Op.builder(5, OpKind.Multiply).inputs(f32(5, 1), f32(5, 1)).output(f32(6, 1)).build());
            g.add(Op.builder(6, OpKind.Multiply).inputs(f32(6, 1), f32(4, 1)).output(f32(7, 1)).build());
            g.add(Op.builder(7, OpKind.Add).inputs(f32(8, d), f32(7, 1)).output(f32(9, d)).build());
            g.add(Op.builder(8, OpKind.LayerNorm).inputs(f32(9, d), f32(10, 257), f32(11, 257))
                    .outputs(any(12), any(13), any(14)).build());
        }, 4);
        assertClaimed(parts, "dnnl", 8);
    }

    @ParameterizedTest(name = "physical order {0}, begin {1}")
    @CsvSource({"1;0,-1", "2;0;1,1", "0;2;1,-1", "2;1;0,2", "1;0;2,1"})
    void stridedSourcesAndParameters(String physical, long begin) {
        int[] order = Arrays.stream(physical.split(";")).mapToInt(Integer::parseInt).toArray();
        long[] d = order.length == 2 ? new long[] {17, 33} : new long[] {5, 17, 33};
        int b = (int) (begin < 0 ? begin + d.length : begin);
        long[] norm = Arrays.copyOfRange(d, b, d.length);
        int[] rev = new int[norm.length];
        for (int i = 0; i < rev.length; i++) {
            rev[i] = rev.length - 1 - i;
        }
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.LayerNorm)
                .inputs(stored(0, DataType.F32, d, order), stored(1, DataType.F32, norm, rev), f32(2, norm))
                .outputs(any(3), any(4), any(5)).attr("begin_norm_axis", begin).build()), 6);
        assertClaimed(parts, "dnnl", 0);
    }

    @Test
    void otherDataTypesAreLeftToTheReference() {
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.LayerNorm)
                .inputs(LogicalTensor.of(0, DataType.BF16, 4, 33), f32(1, 33), f32(2, 33))
                .outputs(LogicalTensor.of(3, DataType.BF16, 4, 33), f32(4, 4), f32(5, 4)).build()), 3);
        assertClaimed(parts, "reference", 0);
    }
}
