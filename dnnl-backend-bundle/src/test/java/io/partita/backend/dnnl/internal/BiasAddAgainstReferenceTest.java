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
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PropertyType;

/** BiasAdd on its own (not fused after a MatMul or Convolution) against the reference. */
class BiasAddAgainstReferenceTest {

    @ParameterizedTest(name = "{0} {1} stored {2}")
    @CsvSource(delimiter = '|', value = {
        "NCX|2,17,5,33|0;1;2;3", "NXC|2,5,33,17|0;1;2;3", "NCX|2,17,5,33|0;2;3;1", "NXC|3,65|1;0", "NCX|3,65,1|0;1;2",
        "NXC|1,1,1,1|0;1;2;3"
    })
    void channelBias(String format, String shape, String physical) {
        long[] d = dims(shape);
        int[] order = java.util.Arrays.stream(physical.split(";")).mapToInt(Integer::parseInt).toArray();
        long c = format.equals("NCX") ? d[1] : d[d.length - 1];
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.BiasAdd)
                .inputs(stored(0, DataType.F32, d, order), f32(1, c)).output(any(2)).attr("data_format", format)
                .build()), 3);
        assertClaimed(parts, "dnnl", 0);
    }

    @Test
    void stridedBiasAndAChainAfterIt() {
        long[] d = {2, 17, 5, 33};
        LogicalTensor bias = LogicalTensor.of(1, DataType.F32, new long[] {17}, LayoutType.STRIDED, new long[] {3},
                PropertyType.UNDEF);
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.BiasAdd).inputs(f32(0, d), bias).output(f32(2, d)).attr("data_format", "NCX")
                    .build());
            g.add(Op.builder(1, OpKind.ReLU).input(f32(2, d)).output(f32(3, d)).build());
            g.add(Op.builder(2, OpKind.Multiply).inputs(f32(4, 5, 1), f32(3, d)).output(f32(5, d)).build());
        }, 5);
        assertClaimed(parts, "dnnl", 0, 1, 2);
    }

    @Test
    void aStridedOutputIsWrittenThroughDenseScratch() {
        long[] d = {2, 17, 5, 33};
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.BiasAdd)
                .inputs(f32(0, d), f32(1, 17)).output(stored(2, DataType.F32, d, 0, 2, 3, 1))
                .attr("data_format", "NCX").build()), 5);
        assertClaimed(parts, "dnnl", 0);
    }
}
