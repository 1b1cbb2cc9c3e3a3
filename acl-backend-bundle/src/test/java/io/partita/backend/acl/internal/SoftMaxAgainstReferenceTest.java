package io.partita.backend.acl.internal;

import static io.partita.backend.acl.internal.AgainstReference.assertAcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/** SoftMax on the last axis and on others, odd sizes, against the reference. */
class SoftMaxAgainstReferenceTest {

    @ParameterizedTest(name = "dims={0} axis={1} mode={2}")
    @CsvSource({
        "3x37, -1, none",
        "2x5x129, 2, none",
        "1x1000, 1, inf_as_zero",
        "4x7, 0, none",
        "2x13x9x3, 1, none",
        "3x33x5, 1, inf_as_zero",
        "2x3x4x67, -2, none",
        "5x1, 1, none",
        "6x40, 0, none"
    })
    void softmax(String shape, long axis, String mode) {
        long[] dims = Arrays.stream(shape.split("x")).mapToLong(Long::parseLong).toArray();
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.SoftMax)
                .input(LogicalTensor.of(0, DataType.F32, dims)).attr("axis", axis).attr("mode", mode)
                .output(LogicalTensor.of(1, DataType.F32, dims)).build()), Arrays.hashCode(dims) + axis);
        assertAcl(parts, "softmax");
    }

    /** Lines of only -inf: NaN with mode none, zeros with inf_as_zero; other lines unaffected. Both axes kinds. */
    @ParameterizedTest(name = "axis={0} mode={1}")
    @CsvSource({"1, none", "1, inf_as_zero", "0, none", "0, inf_as_zero"})
    void linesOfMinusInfinity(long axis, String mode) {
        int rows = 3, cols = 37; // axis 1: line r is row r; axis 0: line j is column j
        float[] x = new float[rows * cols];
        for (int i = 0; i < x.length; i++) {
            x[i] = (i % 7) * 0.25f;
        }
        for (int j = 0; j < cols; j++) {
            x[cols + j] = Float.NEGATIVE_INFINITY; // row 1
        }
        for (int r = 0; r < rows; r++) {
            x[r * cols + 5] = Float.NEGATIVE_INFINITY; // column 5
        }
        LogicalTensor in = LogicalTensor.of(0, DataType.F32, rows, cols);
        Graph g = AgainstReference.WITH_ACL.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.SoftMax).input(in).attr("axis", axis).attr("mode", mode)
                .output(LogicalTensor.of(1, DataType.F32, rows, cols)).build());
        g.finalizeGraph();
        assertAcl(g.partitions(PartitionPolicy.FUSION), "softmax");
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = AgainstReference.WITH_ACL.compile(g, PartitionPolicy.FUSION, e)) {
            Tensor t = Tensor.allocate(in, e, arena);
            t.copyFrom(x);
            float[] y = cg.execute(new Stream(e), Map.of(0L, t)).get(1L).toFloatArray();
            boolean zero = mode.equals("inf_as_zero");
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < cols; j++) {
                    float v = y[r * cols + j];
                    boolean dead = axis == 1 ? r == 1 : j == 5;
                    if (dead) {
                        assertTrue(zero ? v == 0f : Float.isNaN(v), "(" + r + "," + j + ") = " + v);
                    } else {
                        assertTrue(v >= 0f && v <= 1f, "(" + r + "," + j + ") = " + v);
                    }
                }
            }
            float sum = 0;
            for (int r = 0; r < rows; r++) {
                sum += axis == 1 ? (r == 1 ? 0 : y[r * cols]) : y[r * cols + 6];
            }
            if (axis == 0) {
                assertEquals(1f, sum, 1e-5f);
            }
        }
    }
}
