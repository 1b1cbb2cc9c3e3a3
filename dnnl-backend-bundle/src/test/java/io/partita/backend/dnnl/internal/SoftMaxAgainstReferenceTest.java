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
import org.junit.jupiter.params.provider.ValueSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/** SoftMax partitions (axes, modes, stats, strided sources, post-op chains) against the reference. */
class SoftMaxAgainstReferenceTest {

    @ParameterizedTest(name = "{0} axis {1} {2} stats={3}")
    @CsvSource({
        "17,-1,none,false", "1,0,none,true", "3;65,-1,none,true", "3;65,0,inf_as_zero,true", "63;1,1,none,false",
        "2;17;63,1,none,true", "2;17;63,-1,inf_as_zero,false", "2;17;63,0,none,false", "5;3;7;9,2,inf_as_zero,true",
        "4;129,0,none,false", "1;33;17,1,none,true", "64;128;7;7,1,none,false", "300;1000,1,none,false",
        "3;5;16,1,none,true", "2;300;301,1,inf_as_zero,true"
    })
    void axesModesAndStats(String shape, long axis, String mode, boolean stats) {
        long[] d = dims(shape.replace(';', ','));
        List<Partition> parts = AgainstReference.check(g -> {
            Op.Builder b = Op.builder(0, OpKind.SoftMax).input(f32(0, d)).attr("axis", axis).attr("mode", mode);
            if (stats) {
                b.outputs(any(1), any(2));
            } else {
                b.output(any(1));
            }
            g.add(b.build());
        }, d.length * 31 + axis);
        assertClaimed(parts, "dnnl", 0);
    }

    @ParameterizedTest(name = "physical order {0}, axis {1}")
    @CsvSource({"1;0,-1", "1;0,0", "2;0;1,1", "0;2;1,2", "2;1;0,0", "1;2;0,-1"})
    void stridedSources(String physical, long axis) {
        int[] order = java.util.Arrays.stream(physical.split(";")).mapToInt(Integer::parseInt).toArray();
        long[] d = order.length == 2 ? new long[] {17, 33} : new long[] {5, 17, 33};
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.SoftMax)
                .input(stored(0, DataType.F32, d, order)).outputs(any(1), any(2)).attr("axis", axis).build()), 5);
        assertClaimed(parts, "dnnl", 0);
    }

    /**
     * Lines of only -inf (x + log(relu(y)) with y <= 0 on some lines): zeros with inf_as_zero, NaN
     * with none, stats -inf resp. NaN; other lines are finite.
     */
    @ParameterizedTest(name = "{0} axis {1} {2}")
    @CsvSource({"9;37,1,inf_as_zero", "9;37,1,none", "37;9,0,inf_as_zero", "37;9,0,none", "1;37,0,inf_as_zero"})
    void allMinusInfinityLines(String shape, long axis, String mode) {
        long[] d = dims(shape.replace(';', ','));
        long[] m = d.clone();
        m[(int) axis] = 1;
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.ReLU).input(f32(0, m)).output(f32(1, m)).build());
            g.add(Op.builder(1, OpKind.Log).input(f32(1, m)).output(f32(2, m)).build());
            g.add(Op.builder(2, OpKind.Add).inputs(f32(3, d), f32(2, m)).output(f32(4, d)).build());
            g.add(Op.builder(3, OpKind.SoftMax).input(f32(4, d)).outputs(f32(5, d), any(6)).attr("axis", axis)
                    .attr("mode", mode).build());
        }, 17);
        assertClaimed(parts, "dnnl", 3);
    }

    @ParameterizedTest(name = "axis {0}")
    @ValueSource(longs = {1, 2, -1})
    void postOpChain(long axis) {
        long[] d = {3, 17, 65};
        long[] other = axis == 1 ? new long[] {17, 1} : new long[] {65};
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.SoftMax).input(f32(0, d)).output(f32(1, d)).attr("axis", axis).build());
            g.add(Op.builder(1, OpKind.Multiply).inputs(f32(1, d), f32(2, other)).output(f32(3, d)).build());
            g.add(Op.builder(2, OpKind.Sigmoid).input(f32(3, d)).output(f32(4, d)).build());
            g.add(Op.builder(3, OpKind.Subtract).inputs(f32(5, 1), f32(4, d)).output(f32(6, d)).build());
        }, 23);
        assertClaimed(parts, "dnnl", 0, 1, 2, 3);
    }

    @Test
    void chainAfterColumnBlocks() {
        // long lines across the columns: an outer block is split into column blocks, and the
        // chain runs per row of each block
        long[] d = {2, 300, 301};
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.SoftMax).input(f32(0, d)).output(f32(1, d)).attr("axis", 1L).build());
            g.add(Op.builder(1, OpKind.Add).inputs(f32(1, d), f32(2, d)).output(f32(3, d)).build());
        }, 29);
        assertClaimed(parts, "dnnl", 0, 1);
    }

    @Test
    void otherDataTypesAreLeftToTheReference() {
        long[] d = {4, 33};
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.SoftMax)
                .input(LogicalTensor.of(0, DataType.BF16, d)).output(LogicalTensor.of(1, DataType.F32, d))
                .attr("axis", -1L).build()), 3);
        assertClaimed(parts, "reference", 0);
    }
}
