package io.partita.runtime;

import static io.partita.testing.Graphs.f32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;

/** Every kind of bad graph is refused with a message naming the op and the expectation. */
class GraphValidationTest {
    private final GraphRuntime rt = GraphRuntime.referenceOnly();

    private Graph graph() {
        return rt.createGraph(EngineKind.CPU);
    }

    private static Op matmul(long id, LogicalTensor a, LogicalTensor b, LogicalTensor out) {
        return Op.builder(id, OpKind.MatMul).inputs(a, b).output(out).build();
    }

    @Test
    void wrongAttributeTypeNamesOpAttributeAndExpectedType() {
        Op op = Op.builder(7, OpKind.MatMul).inputs(f32(0, 2, 3), f32(1, 3, 4)).output(f32(2, 2, 4))
                .attr("transpose_a", 1L).build();
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> graph().add(op));
        assertEquals(7, e.opId().getAsLong());
        assertTrue(e.getMessage().contains("op 7 (MatMul)"), e.getMessage());
        assertTrue(e.getMessage().contains("'transpose_a' is of type s64, expected bool"), e.getMessage());
    }

    @Test
    void missingRequiredAttributeNamesItAndItsType() {
        Op op = Op.builder(6, OpKind.StaticReshape).input(f32(0, 2, 3)).output(f32(1, 3, 2))
                .attr("special_zero", false).build();
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> graph().add(op));
        assertEquals(6, e.opId().getAsLong());
        assertTrue(e.getMessage().contains("op 6 (StaticReshape): missing required attribute 'shape' of type s64[]"),
                e.getMessage());
    }

    @Test
    void unknownAttributeListsTheKnownOnes() {
        Op op = Op.builder(1, OpKind.ReLU).input(f32(0, 2)).output(f32(1, 2)).attr("alpha", 0.5f).build();
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> graph().add(op));
        assertTrue(e.getMessage().contains("unknown attribute 'alpha'"), e.getMessage());
    }

    @Test
    void invalidAttributeValueNamesTheAllowedValues() {
        Op op = Op.builder(3, OpKind.SoftMax).input(f32(0, 2, 2)).output(f32(1, 2, 2)).attr("mode", "fast").build();
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> graph().add(op));
        assertTrue(e.getMessage().contains("'mode' = \"fast\" is invalid; expected one of [none, inf_as_zero]"),
                e.getMessage());
    }

    @Test
    void wrongArityNamesThePorts() {
        Op op = Op.builder(4, OpKind.MatMul).input(f32(0, 2, 2)).output(f32(1, 2, 2)).build();
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> graph().add(op));
        assertTrue(e.getMessage().contains("has 1 inputs, expected between 2 and 3 (src, weights, bias?)"),
                e.getMessage());
    }

    @Test
    void wrongDataTypeNamesPortAndAllowedTypes() {
        Op op = matmul(5, LogicalTensor.of(0, DataType.S8, 2, 2), f32(1, 2, 2), f32(2, 2, 2));
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> graph().add(op));
        assertTrue(e.getMessage().contains("input 0 (src, tensor 0) has data type s8, expected one of [bf16, f16, f32]"),
                e.getMessage());
    }

    @Test
    void mismatchedTypeVariableNamesBothPorts() {
        Op op = Op.builder(5, OpKind.ReLU).input(LogicalTensor.of(0, DataType.BF16, 2, 2)).output(f32(1, 2, 2)).build();
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> graph().add(op));
        assertTrue(e.getMessage().contains("output 0 (dst, tensor 1) has data type f32 but input 0 (src, tensor 0) has bf16"),
                e.getMessage());
    }

    @Test
    void duplicateOpIdIsRefusedAndTheGraphKeepsTheFirst() {
        Graph g = graph();
        g.add(Op.builder(1, OpKind.ReLU).input(f32(0, 2)).output(f32(1, 2)).build());
        InvalidGraphException e = assertThrows(InvalidGraphException.class,
                () -> g.add(Op.builder(1, OpKind.ReLU).input(f32(5, 2)).output(f32(6, 2)).build()));
        assertTrue(e.getMessage().contains("already has op 1 (ReLU)"), e.getMessage());
        assertEquals(1, g.ops().size());
        assertEquals(0, g.ops().get(0).input(0).id());
    }

    @Test
    void tensorProducedTwiceNamesBothOps() {
        Graph g = graph();
        g.add(Op.builder(1, OpKind.ReLU).input(f32(0, 2)).output(f32(5, 2)).build());
        g.add(Op.builder(2, OpKind.ReLU).input(f32(1, 2)).output(f32(5, 2)).build());
        InvalidGraphException e = assertThrows(InvalidGraphException.class, g::finalizeGraph);
        assertTrue(e.getMessage().contains("tensor 5 is produced by both op 1 (ReLU) and op 2 (ReLU)"), e.getMessage());
        assertFalse(g.isFinalized());
    }

    @Test
    void cycleIsReportedWithItsOps() {
        Graph g = graph();
        g.add(Op.builder(1, OpKind.ReLU).input(f32(0, 2)).output(f32(1, 2)).build());
        g.add(Op.builder(2, OpKind.ReLU).input(f32(1, 2)).output(f32(0, 2)).build());
        InvalidGraphException e = assertThrows(InvalidGraphException.class, g::finalizeGraph);
        assertTrue(e.getMessage().contains("cycle through [op 1 (ReLU), op 2 (ReLU)]"), e.getMessage());
        assertFalse(g.isFinalized());
    }

    @Test
    void contradictingInnerDimensionNamesBothShapes() {
        Graph g = graph();
        g.add(matmul(3, f32(0, 2, 3), f32(1, 4, 5), f32(2, 2, 5)));
        InvalidGraphException e = assertThrows(InvalidGraphException.class, g::finalizeGraph);
        assertTrue(e.getMessage().contains("op 3 (MatMul): src [2,3] has K=3 but weights [4,5] has K=4"), e.getMessage());
    }

    @Test
    void declaredOutputContradictingInferenceIsRefused() {
        Graph g = graph();
        g.add(matmul(3, f32(0, 2, 3), f32(1, 3, 5), f32(2, 2, 6)));
        InvalidGraphException e = assertThrows(InvalidGraphException.class, g::finalizeGraph);
        assertTrue(e.getMessage().contains("output 0 (tensor 2) is declared [2,6] but its inputs give [2,5]"),
                e.getMessage());
    }

    @Test
    void tensorDescribedDifferentlyByTwoOpsIsRefused() {
        Graph g = graph();
        g.add(Op.builder(1, OpKind.ReLU).input(f32(0, 2, 3)).output(f32(1, 2, 3)).build());
        g.add(Op.builder(2, OpKind.ReLU).input(f32(1, 2, 4)).output(f32(2, 2, 4)).build());
        InvalidGraphException e = assertThrows(InvalidGraphException.class, g::finalizeGraph);
        assertTrue(e.getMessage().contains("tensor 1 is f32 [2,3] in op 1 (ReLU) but f32 [2,4] in op 2 (ReLU) (dim 1 differs)"),
                e.getMessage());
    }

    @Test
    void unknownDimsAreInferredAtFinalize() {
        Graph g = graph();
        long u = LogicalTensor.UNKNOWN_DIM;
        g.add(matmul(0, f32(0, 2, 3), f32(1, 3, 5), f32(2, u, u)));
        g.add(Op.builder(1, OpKind.ReLU).input(f32(2, u, u)).output(f32(3, u, u)).build());
        g.finalizeGraph();
        assertEquals(java.util.List.of(2L, 5L), java.util.Arrays.stream(g.outputs().get(0).dims()).boxed().toList());
    }

    @Test
    void addAfterFinalizeAndPartitionsBeforeFinalizeAreRefused() {
        Graph g = graph();
        g.add(Op.builder(1, OpKind.ReLU).input(f32(0, 2)).output(f32(1, 2)).build());
        InvalidGraphException before = assertThrows(InvalidGraphException.class,
                () -> g.partitions(PartitionPolicy.FUSION));
        assertTrue(before.getMessage().contains("needs a finalized graph"), before.getMessage());
        g.finalizeGraph();
        InvalidGraphException after = assertThrows(InvalidGraphException.class,
                () -> g.add(Op.builder(2, OpKind.ReLU).input(f32(1, 2)).output(f32(2, 2)).build()));
        assertTrue(after.getMessage().contains("the graph is finalized"), after.getMessage());
    }

    @Test
    void emptyGraphCannotBeFinalized() {
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> graph().finalizeGraph());
        assertTrue(e.getMessage().contains("empty graph"), e.getMessage());
    }

    @Test
    void defaultsAreFilledIn() {
        Graph g = graph();
        g.add(matmul(0, f32(0, 2, 3), f32(1, 3, 5), f32(2, 2, 5)));
        assertEquals(AttrValue.of(false), g.ops().get(0).attrs().get("transpose_a"));
    }

    @Test
    void negativeDimsOtherThanPlaceholdersAreRefused() {
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> f32(3, 2, -4));
        assertTrue(e.getMessage().contains("logical tensor 3: dim 1 is -4"), e.getMessage());
    }

    @Test
    void anOutputWhoseStridesAliasIsRefusedAtGraphBuildNamingTheOp() {
        Op op = Op.builder(5, OpKind.ReLU).input(f32(0, 2, 3)).output(f32(1, 2, 3).withStrides(0, 1)).build();
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> graph().add(op));
        assertEquals(5L, e.opId().orElseThrow());
        assertTrue(e.getMessage().contains("output 0 (tensor 1 f32 [2,3] strides [0,1])")
                && e.getMessage().contains("share memory"), e.getMessage());
        // an input may broadcast through a zero stride
        graph().add(Op.builder(6, OpKind.ReLU).input(f32(0, 2, 3).withStrides(0, 1)).output(f32(1, 2, 3)).build());
    }

    @Test
    void inferredDimsWhoseSizeOverflowsFailFinalizeNamingTheOp() {
        long u = LogicalTensor.UNKNOWN_DIM;
        Graph g = graph();
        g.add(Op.builder(7, OpKind.MatMul).inputs(f32(0, 1L << 40, 1L << 10), f32(1, 1L << 10, 1L << 30))
                .output(f32(2, u, u)).build());
        InvalidGraphException e = assertThrows(InvalidGraphException.class, g::finalizeGraph);
        assertEquals(7L, e.opId().orElseThrow());
        assertTrue(e.getMessage().contains("tensor 2 f32[1099511627776,1073741824] has more than 2^63-1 elements"),
                e.getMessage());
    }

    @Test
    void aCompileOutputWhoseStridesAliasIsRefused() {
        Graph g = graph();
        g.add(Op.builder(8, OpKind.ReLU).input(f32(0, 2, 3)).output(f32(1, 2, 3)).build());
        g.finalizeGraph();
        io.partita.graph.Partition p = g.partitions(PartitionPolicy.FUSION).get(0);
        io.partita.graph.InvalidArgumentException e = assertThrows(io.partita.graph.InvalidArgumentException.class,
                () -> p.compile(p.inputs(), java.util.List.of(f32(1, 2, 3).withStrides(2, 1)),
                        io.partita.graph.Engine.cpu()));
        assertTrue(e.getMessage().contains("compile output tensor 1") && e.getMessage().contains("[2,1]")
                && e.getMessage().contains("share memory"), e.getMessage());
    }
}
