package io.partita.formats.onnx;

import static io.partita.formats.onnx.OnnxBytes.floatTensor;
import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.model;
import static io.partita.formats.onnx.OnnxBytes.node;
import static io.partita.formats.onnx.OnnxBytes.valueInfo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * Resize 10 and Upsample 7/9, the scales-only forms before Resize 11: imported and run on the
 * reference backend, against values worked out by hand from the asymmetric coordinate rule (and,
 * for the 0.6 cases, the outputs of ONNX's own Resize-10 node tests).
 */
class LegacyResizeImportTest {
    private static final int FLOAT = 1;
    private static final float[] ONE_TO_EIGHT = {1, 2, 3, 4, 5, 6, 7, 8};

    private static OnnxModel read(String op, long opset, String mode, long[] xDims, float[] scales, long[] yDims) {
        List<OnnxBytes> attrs = mode == null ? List.of() : List.of(stringAttr("mode", mode));
        return OnnxModels.read(GraphRuntime.referenceOnly().opSchemas(), model(opset, graph(
                list(node(op, List.of("X", "S"), List.of("Y"), attrs.toArray(OnnxBytes[]::new))),
                list(floatTensor("S", new long[] {scales.length}, scales)), list(valueInfo("X", FLOAT, xDims)),
                list(valueInfo("Y", FLOAT, yDims)))).toByteArray(), "legacy.onnx");
    }

    private static OnnxBytes stringAttr(String name, String v) {
        return OnnxBytes.message().string(1, name).int64(20, 3).string(4, v);
    }

    private static float[] run(OnnxModel m, long[] xDims, float[] x) {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = m.graph().toGraph(rt).finalizeGraph();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.DEBUG, Engine.cpu())) {
            Map<Long, Tensor> in = new HashMap<>(m.constantTensors(Engine.cpu(), arena));
            LogicalTensor lt = LogicalTensor.of(m.inputs().get("X"), DataType.F32, xDims);
            Tensor xt = Tensor.allocate(lt, Engine.cpu(), arena);
            xt.copyFrom(x);
            in.put(lt.id(), xt);
            return cg.execute(new Stream(Engine.cpu()), in).get(m.outputs().get("Y")).toFloatArray();
        }
    }

    private static List<OpKind> kinds(OnnxModel m) {
        return m.graph().ops().stream().map(Op::kind).toList();
    }

    @Test
    void resize10NearestTakesTheFloorWhenEnlarging() {
        long[] xd = {1, 1, 2, 2};
        OnnxModel m = read("Resize", 10, "nearest", xd, new float[] {1, 1, 2, 3}, new long[] {1, 1, 4, 6});
        assertEquals(List.of(OpKind.PartitaResize), kinds(m));
        Op op = m.graph().ops().get(0);
        assertEquals("asymmetric", op.stringAttr("coordinate_transformation_mode"));
        assertArrayEquals(new long[] {2, 3}, op.longsAttr("axes"), "axes of scale 1 are left out");
        assertArrayEquals(new float[] {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4},
                run(m, xd, new float[] {1, 2, 3, 4}));
    }

    @Test
    void resize10NearestTakesTheCeilingWhenShrinking() {
        // ONNX's Resize-10 test: out dims floor(2 * 0.6) = 1 and floor(4 * 0.6) = 2; column 1 maps to 1.67 -> 2.
        long[] xd = {1, 1, 2, 4};
        OnnxModel m = read("Resize", 10, "nearest", xd, new float[] {1, 1, 0.6f, 0.6f}, new long[] {1, 1, 1, 2});
        assertEquals("ceil", m.graph().ops().get(0).stringAttr("nearest_mode"));
        assertArrayEquals(new float[] {1, 3}, run(m, xd, ONE_TO_EIGHT));
    }

    @Test
    void resize10NearestWithOneAxisEnlargedAndOneShrunkIsTwoSeparableResizes() {
        long[] xd = {1, 1, 2, 4};
        OnnxModel m = read("Resize", 10, "nearest", xd, new float[] {1, 1, 2, 0.5f}, new long[] {1, 1, 4, 2});
        assertEquals(List.of(OpKind.PartitaResize, OpKind.PartitaResize), kinds(m));
        // rows: 0, 0, 1, 1 (floor of j / 2); columns: 0, 2 (ceil of j / 0.5)
        assertArrayEquals(new float[] {1, 3, 1, 3, 5, 7, 5, 7}, run(m, xd, ONE_TO_EIGHT));
    }

    @Test
    void resize10LinearShrinksWithAsymmetricCoordinates() {
        // ONNX's Resize-10 test: column 1 reads x = 1 / 0.6 = 1.667 between 2 and 3.
        long[] xd = {1, 1, 2, 4};
        OnnxModel m = read("Resize", 10, "linear", xd, new float[] {1, 1, 0.6f, 0.6f}, new long[] {1, 1, 1, 2});
        float[] y = run(m, xd, ONE_TO_EIGHT);
        assertEquals(1f, y[0], 1e-6f);
        assertEquals(2 + 1 / 0.6f - 1, y[1], 1e-5f);
    }

    @Test
    void upsampleLinearEnlargesWithTheLastRowAndColumnRepeated() {
        long[] xd = {1, 1, 2, 2};
        OnnxModel m = read("Upsample", 9, "linear", xd, new float[] {1, 1, 2, 2}, new long[] {1, 1, 4, 4});
        assertArrayEquals(new float[] {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4},
                run(m, xd, new float[] {1, 2, 3, 4}));
    }

    @Test
    void upsample7TakesScalesFromItsAttributeAndNonIntegerScales() {
        long[] xd = {2, 2};
        OnnxModel m = OnnxModels.read(GraphRuntime.referenceOnly().opSchemas(), model(7, graph(
                list(node("Upsample", List.of("X"), List.of("Y"), OnnxBytes.message().string(1, "scales")
                        .int64(20, 6).float32(7, 1).float32(7, 1.5f))), list(), list(valueInfo("X", FLOAT, xd)),
                list(valueInfo("Y", FLOAT, 2, 3)))).toByteArray(), "u7.onnx");
        // columns 0, 1, 2 read x = 0, 0.67, 1.33: floors 0, 0, 1
        assertArrayEquals(new float[] {1, 1, 2, 3, 3, 4}, run(m, xd, new float[] {1, 2, 3, 4}));
    }

    @Test
    void aScaleOfOneEverywhereIsTheInputItself() {
        OnnxModel m = read("Upsample", 9, "nearest", new long[] {1, 3}, new float[] {1, 1}, new long[] {1, 3});
        assertTrue(m.graph().ops().stream().noneMatch(o -> o.kind() == OpKind.PartitaResize), kinds(m).toString());
    }

    @Test
    void badScalesAndModesAreRefusedNamingThem() {
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read("Upsample", 9, "nearest",
                new long[] {1, 4}, new float[] {1, 0.5f}, new long[] {1, 2}));
        assertTrue(e.getMessage().contains("Upsample") && e.getMessage().contains("[1.0, 0.5]")
                && e.getMessage().contains(">= 1"), e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read("Resize", 10, "cubic", new long[] {1, 4},
                new float[] {1, 2}, new long[] {1, 8}));
        assertTrue(e.getMessage().contains("mode 'cubic'") && e.getMessage().contains("nearest or linear"),
                e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read("Resize", 10, null, new long[] {1, 4},
                new float[] {2}, new long[] {2, 8}));
        assertTrue(e.getMessage().contains("scales has 1 values for X of rank 2"), e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read("Resize", 10, null, new long[] {1, 4},
                new float[] {1, 0}, new long[] {1, 0}));
        assertTrue(e.getMessage().contains("> 0"), e.getMessage());
    }
}
