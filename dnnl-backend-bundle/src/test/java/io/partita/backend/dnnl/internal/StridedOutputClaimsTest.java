package io.partita.backend.dnnl.internal;

import static io.partita.backend.dnnl.internal.Tensors.assertClaimed;
import static io.partita.backend.dnnl.internal.Tensors.f32;
import static io.partita.backend.dnnl.internal.Tensors.stored;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.partita.graph.DataType;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;

/**
 * An output declared with non-dense strides: the copies write them (claimed), the primitives that
 * write dense outputs leave such ops to the reference; the results match either way.
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
        assertClaimed(parts, k == OpKind.Reorder ? "dnnl" : "reference", 0);
    }
}
