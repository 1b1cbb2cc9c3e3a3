package io.partita.backend.dnnl.internal;

import static io.partita.backend.dnnl.internal.Tensors.assertClaimed;
import static io.partita.backend.dnnl.internal.Tensors.f32;
import static io.partita.backend.dnnl.internal.Tensors.stored;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/**
 * An output declared with non-dense strides: the copies write them directly, the other primitives
 * write dense scratch that is copied into the strided layout; dnnl claims them all and the results
 * match the reference.
 */
class StridedOutputClaimsTest {

    @ParameterizedTest
    @ValueSource(strings = {"ReLU", "Tanh", "SoftMax", "ReduceSum", "Add", "Reorder"})
    void channelsLastOutput(String kind) {
        long[] d = {2, 17, 5, 33};
        OpKind k = OpKind.valueOf(kind);
        List<Partition> parts = AgainstReference.check(g -> {
            Op.Builder b = Op.builder(0, k).input(f32(0, d));
            long[] out = d;
            switch (k) {
                case Add -> b.input(f32(1, 1));
                case ReduceSum -> {
                    out = new long[] {2, 17, 5, 1};
                    b.attr("axes", new long[] {3}).attr("keep_dims", true);
                }
                default -> { }
            }
            g.add(b.output(stored(2, DataType.F32, out, 0, 2, 3, 1)).build());
        }, 3);
        assertClaimed(parts, "dnnl", 0);
    }

    /** A convolution with bias and ReLU writing a channels-last view (NCX dims, NXC strides). */
    @org.junit.jupiter.api.Test
    void convolutionChainIntoChannelsLastOutput() {
        List<Partition> parts = AgainstReference.check(g -> {
            long[] out = {2, 7, 9, 11};
            LogicalTensor conv = f32(3, out);
            LogicalTensor biased = f32(4, out);
            g.add(Op.builder(0, OpKind.Convolution).inputs(f32(0, 2, 5, 9, 11), f32(1, 7, 5, 3, 3))
                    .output(conv).attr("strides", 1L, 1L).attr("dilations", 1L, 1L).attr("pads_begin", 1L, 1L)
                    .attr("pads_end", 1L, 1L).attr("data_format", "NCX").attr("weights_format", "OIX").build());
            g.add(Op.builder(1, OpKind.BiasAdd).inputs(conv, f32(2, 7)).output(biased).attr("data_format", "NCX")
                    .build());
            g.add(Op.builder(2, OpKind.ReLU).input(biased).output(stored(5, DataType.F32, out, 0, 2, 3, 1)).build());
        }, 5);
        assertClaimed(parts, "dnnl", 0, 1, 2);
        org.junit.jupiter.api.Assertions.assertEquals(1, parts.size(), "conv, bias and ReLU fuse into one partition");
    }
}
