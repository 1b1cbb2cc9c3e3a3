package io.partita.testkit.benchdnn;

import static io.partita.testing.Graphs.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.EngineKind;
import io.partita.graph.FpMathMode;
import io.partita.graph.Graph;
import io.partita.graph.GraphDescription;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.PropertyType;

/** benchdnn knobs rewrite graphs as the graph driver documents; bad knobs are named. */
class CaseRewriterTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();


    /** Add(t0 [2,3], t1 [1,3]) -> t2 -> ReLU -> t3; MatMul-free so it only needs basic ops. */
    private static GraphDescription base() {
        List<Op> ops = List.of(
                Op.builder(0, OpKind.Add).inputs(f32(0, 2, 3), f32(1, 1, 3)).output(f32(2, 2, 3))
                        .attr("auto_broadcast", "numpy").build(),
                Op.builder(1, OpKind.ReLU).input(f32(2, 2, 3)).output(f32(3, 2, 3)).build());
        return new GraphDescription("3.0.0", EngineKind.CPU, FpMathMode.STRICT, false, List.of(), List.of(), ops);
    }

    private static GraphDescription apply(String knob, String value) {
        return CaseRewriter.apply(SCHEMAS, base(), Map.of(knob, value));
    }

    private static String error(String knob, String value) {
        return assertThrows(CaseRewriteException.class, () -> apply(knob, value)).getMessage();
    }

    @Test
    void inShapesRewritesInputsAndOutputsAreReinferred() {
        GraphDescription d = apply("in-shapes", "0:4x5x3+1:1x1x3");
        assertArrayEquals(new long[] {4, 5, 3}, d.ops().get(0).input(0).dims());
        assertEquals(LogicalTensor.UNKNOWN_NDIMS, d.ops().get(0).output(0).ndims());
        Graph g = d.toGraph(GraphRuntime.referenceOnly());
        g.finalizeGraph();
        assertArrayEquals(new long[] {4, 5, 3}, g.outputs().get(0).dims());
    }

    @Test
    void inShapesTagsAndStridesSetTheLayout() {
        GraphDescription d = apply("in-shapes", "0:*ba");
        assertArrayEquals(new long[] {1, 2}, d.ops().get(0).input(0).strides());
        assertArrayEquals(new long[] {2, 3}, d.ops().get(0).input(0).dims());
        assertArrayEquals(new long[] {20, 1, 5}, CaseRewriter.apply(SCHEMAS, base(), Map.of("in-shapes", "0:2x5x4*acb"))
                .ops().get(0).input(0).strides());
        assertArrayEquals(new long[] {1, 2}, apply("in-shapes", "0:2x3*1x2").ops().get(0).input(0).strides());
        assertArrayEquals(new long[0], apply("in-shapes", "1:scalar").ops().get(0).input(1).dims());
    }

    @Test
    void inShapesErrorsNameTheEntry() {
        assertTrue(error("in-shapes", "2:4x4").contains("tensor 2 is internal to the graph"));
        assertTrue(error("in-shapes", "0:2xzx3").contains("'2xzx3' is not a shape"));
        assertTrue(error("in-shapes", "0:2x3*abc").contains("tag 'abc' has 3 letters for a rank-2 tensor"));
        assertTrue(error("in-shapes", "0:2x3*aa").contains("must be a permutation"));
        assertArrayEquals(new long[0], apply("in-shapes", "1:-").ops().get(0).input(1).dims());
        assertTrue(error("in-shapes", "1:2x-").contains("'2x-' is not a shape"));
        assertTrue(error("in-shapes", "0").contains("expected ID:SHAPE[*TAG|*STRIDES]"));
    }

    @Test
    void opKindSubstitutesKeepingCompatibleAttributes() {
        GraphDescription d = apply("op-kind", "1:Sigmoid");
        assertEquals(OpKind.Sigmoid, d.ops().get(1).kind());
        assertTrue(error("op-kind", "1:Frobnicate").contains("unknown op kind 'Frobnicate'"));
        assertTrue(error("op-kind", "7:ReLU").contains("the graph has no op 7"));
    }

    @Test
    void opKindUndefBypassesAUnaryOp() {
        GraphDescription d = apply("op-kind", "1:undef");
        assertEquals(1, d.ops().size());
    }

    @Test
    void opAttrsParseByTheAttributeType() {
        GraphDescription d = apply("op-attrs", "0:auto_broadcast:none");
        assertEquals(AttrValue.of("none"), d.ops().get(0).attrs().get("auto_broadcast"));
        assertNull(apply("op-attrs", "0:auto_broadcast:undef").ops().get(0).attrs().get("auto_broadcast"));
        assertTrue(error("op-attrs", "0:axis:1").contains("op 0 (Add) has no attribute 'axis'"));
        assertEquals(base().ops(), apply("op-attrs", "7:axis:1").ops()); // not an op of this graph
        assertTrue(error("op-attrs", "0auto").contains("expected OP_ID:NAME:VALUE"));
    }

    @Test
    void dataTypesGlobalAndPerTensor() {
        GraphDescription all = apply("dt", "bf16");
        assertTrue(all.ops().stream().allMatch(o -> o.input(0).dataType() == DataType.BF16));
        GraphDescription one = apply("dt", "1:f16");
        assertEquals(DataType.F16, one.ops().get(0).input(1).dataType());
        assertEquals(DataType.F32, one.ops().get(0).input(0).dataType());
        assertTrue(error("dt", "s8").contains("the global form takes f32, bf16, f16 or undef"));
        assertTrue(error("dt", "1:f128").contains("unknown data type 'f128'"));
    }

    @Test
    void propertiesFpmathAndMinibatch() {
        assertEquals(PropertyType.CONSTANT, apply("tensor-property", "1:constant").ops().get(0).input(1).property());
        assertTrue(error("tensor-property", "1:frozen").contains("unknown property type 'frozen'"));
        GraphDescription fp = apply("attr-fpmath", "bf16:true");
        assertEquals(FpMathMode.BF16, fp.fpMathMode());
        assertTrue(fp.fpMathApplyToInt());
        assertTrue(error("attr-fpmath", "bf16:maybe").contains("APPLY_TO_INT must be true or false"));
        assertArrayEquals(new long[] {7, 3}, apply("mb", "7").ops().get(0).input(0).dims());
    }

    @Test
    void alternativesFormACartesianProductAndEmptyKeepsTheFile() {
        CaseLine line = new CaseLine("h", 1, "", Map.of("in-shapes", ",0:4x3", "op-kind", "1:Sigmoid,1:Tanh"), "x.json");
        List<Variant> vs = CaseRewriter.expand(SCHEMAS, line, base());
        assertEquals(4, vs.size());
        assertArrayEquals(new long[] {2, 3}, vs.get(0).graph().ops().get(0).input(0).dims());
        assertTrue(vs.stream().anyMatch(v -> v.label().equals("op-kind=1:Tanh in-shapes=0:4x3")), vs.toString());
    }

    @Test
    void idsNotInTheGraphAreIgnoredAsBenchdnnDoesAndTheLabelSaysSo() {
        CaseLine line = new CaseLine("h", 1, "", Map.of("in-shapes", "9:4x4+0:4x3"), "x.json");
        Variant v = CaseRewriter.expand(SCHEMAS, line, base()).get(0);
        assertArrayEquals(new long[] {4, 3}, v.graph().ops().get(0).input(0).dims());
        assertTrue(v.label().endsWith("(not in this graph: in-shapes 9)"), v.label());
    }

    @Test
    void unknownOptionsAreRefused() {
        CaseLine line = new CaseLine("h", 1, "", Map.of("attr-scratchpad", "user"), "x.json");
        assertTrue(assertThrows(CaseRewriteException.class, () -> CaseRewriter.expand(SCHEMAS, line, base())).getMessage()
                .contains("unsupported option --attr-scratchpad"));
    }

    @Test
    void harnessLinesAccumulateKnobsUntilReset() {
        List<CaseLine> lines = HarnessFile.parse(List.of(
                "h1\t--reset --in-shapes=0:1x2 --case=a.json",
                "h1\t--case=b.json",
                "h2\t--case=c.json",
                "h1\t--reset --case=d.json",
                "# comment", ""), "default");
        assertEquals(4, lines.size());
        assertEquals(Map.of("in-shapes", "0:1x2"), lines.get(1).options());
        assertEquals("b.json", lines.get(1).caseFile());
        assertEquals(Map.of(), lines.get(2).options());
        assertEquals(Map.of(), lines.get(3).options());
        assertEquals(1, lines.get(3).expectedPartitions());
        assertThrows(CaseRewriteException.class, () -> HarnessFile.parse(List.of("--case=x.json oops"), "d"));
    }
}
