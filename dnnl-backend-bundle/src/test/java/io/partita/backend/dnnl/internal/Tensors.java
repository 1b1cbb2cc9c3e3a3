package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;

import io.partita.graph.DataType;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Partition;
import io.partita.graph.PropertyType;

/** Logical tensors and claim assertions for the single-op tests. */
final class Tensors {
    private Tensors() {
    }

    static long[] dims(String s) {
        return s.isEmpty() ? new long[0] : Arrays.stream(s.split(",")).mapToLong(Long::parseLong).toArray();
    }

    static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    static LogicalTensor any(long id) {
        return LogicalTensor.unknownRank(id, DataType.F32);
    }

    /**
     * A tensor stored with its dims in another physical order: {@code physical} lists the logical
     * dims from outermost to innermost in memory (e.g. {1, 0} stores a matrix transposed).
     */
    static LogicalTensor stored(long id, DataType dt, long[] dims, int... physical) {
        long[] strides = new long[dims.length];
        long acc = 1;
        for (int i = physical.length - 1; i >= 0; i--) {
            strides[physical[i]] = acc;
            acc *= dims[physical[i]];
        }
        return LogicalTensor.of(id, dt, dims, LayoutType.STRIDED, strides, PropertyType.UNDEF);
    }

    /** A tensor whose rows are padded: every stride of the dense layout of {@code padded} dims. */
    static LogicalTensor padded(long id, long[] dims, long[] padded) {
        return LogicalTensor.of(id, DataType.F32, dims, LayoutType.STRIDED, LogicalTensor.denseStrides(padded),
                PropertyType.UNDEF);
    }

    /** The partition holding op {@code opId}. */
    static Partition partitionOf(List<Partition> parts, long opId) {
        return parts.stream().filter(p -> p.ops().stream().anyMatch(o -> o.id() == opId)).findFirst().orElseThrow();
    }

    static void assertClaimed(List<Partition> parts, String backend, long... opIds) {
        Partition p = partitionOf(parts, opIds[0]);
        assertEquals(backend, p.backendId(), parts.toString());
        assertEquals(Arrays.stream(opIds).boxed().toList(), p.ops().stream().map(o -> o.id()).toList(),
                parts.toString());
    }
}
