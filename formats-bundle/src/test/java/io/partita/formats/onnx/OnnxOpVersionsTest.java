package io.partita.formats.onnx;

import static io.partita.formats.onnx.OnnxBytes.floatAttr;
import static io.partita.formats.onnx.OnnxBytes.floatTensor;
import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.intAttr;
import static io.partita.formats.onnx.OnnxBytes.intsAttr;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.model;
import static io.partita.formats.onnx.OnnxBytes.node;
import static io.partita.formats.onnx.OnnxBytes.valueInfo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.graph.GraphRuntime;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;

/** Each op translated by the semantics of its version at the model's opset. */
class OnnxOpVersionsTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();
    private static final int FLOAT = 1;

    private static OnnxModel read(long opset, OnnxBytes node, long[] in, long[] out) {
        return OnnxModels.read(SCHEMAS, model(opset, graph(list(node), list(), list(valueInfo("x", FLOAT, in)),
                list(valueInfo("y", FLOAT, out)))).toByteArray(), "t.onnx");
    }

    private static List<OpKind> kinds(OnnxModel m) {
        return m.graph().ops().stream().map(Op::kind).toList();
    }

    @Test
    void softmaxBefore13CoercesTo2dAtAxisOne() {
        OnnxModel m = read(11, node("Softmax", List.of("x"), List.of("y")), new long[] {2, 3, 4}, new long[] {2, 3, 4});
        assertEquals(List.of(OpKind.StaticReshape, OpKind.SoftMax, OpKind.StaticReshape), kinds(m));
        assertArrayEquals(new long[] {2, 12}, m.graph().ops().get(0).output(0).dims());
        assertEquals(1L, m.graph().ops().get(1).longAttr("axis"));
    }

    @Test
    void softmaxFrom13IsOneAxisDefaultLast() {
        OnnxModel m = read(13, node("Softmax", List.of("x"), List.of("y")), new long[] {2, 3, 4}, new long[] {2, 3, 4});
        assertEquals(List.of(OpKind.SoftMax), kinds(m));
        assertEquals(2L, m.graph().ops().get(0).longAttr("axis"));
    }

    @Test
    void logSoftmaxBefore13AtTheLastAxisNeedsNoReshape() {
        OnnxModel m = read(6, node("LogSoftmax", List.of("x"), List.of("y"), intAttr("axis", 2)),
                new long[] {2, 3, 4}, new long[] {2, 3, 4});
        assertEquals(List.of(OpKind.LogSoftmax), kinds(m));
    }

    @Test
    void squeezeBefore13TakesAxesAsAttribute() {
        OnnxModel m = read(6, node("Squeeze", List.of("x"), List.of("y"), intsAttr("axes", 1)),
                new long[] {2, 1, 4}, new long[] {2, 4});
        assertArrayEquals(new long[] {2, 4}, m.graph().ops().get(0).output(0).dims());
    }

    @Test
    void legacyBroadcastWithAxisReshapesTheSecondInput() {
        OnnxBytes g = graph(list(node("Add", List.of("x", "b"), List.of("y"), intAttr("broadcast", 1),
                intAttr("axis", 1))), list(floatTensor("b", new long[] {3}, 1, 2, 3)),
                list(valueInfo("x", FLOAT, 2, 3, 4)), list(valueInfo("y", FLOAT, 2, 3, 4)));
        OnnxModel m = OnnxModels.read(SCHEMAS, model(6, g).toByteArray(), "t.onnx");
        assertEquals(List.of(OpKind.StaticReshape, OpKind.Add), kinds(m));
        assertArrayEquals(new long[] {3, 1}, m.graph().ops().get(0).output(0).dims());
    }

    @Test
    void clipBefore11TakesAttributes() {
        OnnxModel m = read(6, node("Clip", List.of("x"), List.of("y"), floatAttr("min", -1), floatAttr("max", 2)),
                new long[] {4}, new long[] {4});
        Op clamp = m.graph().ops().get(0);
        assertEquals(OpKind.Clamp, clamp.kind());
        assertEquals(-1f, clamp.floatAttr("min"));
        assertEquals(2f, clamp.floatAttr("max"));
    }

    @Test
    void dropoutInTestModeIsACopyAndTrainingIsRefused() {
        OnnxModel m = read(6, node("Dropout", List.of("x"), List.of("y"), intAttr("is_test", 1),
                floatAttr("ratio", 0.5f)), new long[] {4}, new long[] {4});
        assertEquals(List.of(OpKind.Reorder), kinds(m));
        UnsupportedOnnxException e = assertThrows(UnsupportedOnnxException.class, () -> read(6,
                node("Dropout", List.of("x"), List.of("y")), new long[] {4}, new long[] {4}));
        assertTrue(e.getMessage().contains("is_test = 0"), e.getMessage());
    }

    @Test
    void batchNormSpatialZeroIsRefused() {
        OnnxBytes g = graph(list(node("BatchNormalization", List.of("x", "s", "b", "m", "v"), List.of("y"),
                intAttr("is_test", 1), intAttr("spatial", 0))),
                list(floatTensor("s", new long[] {2}, 1, 1), floatTensor("b", new long[] {2}, 0, 0),
                        floatTensor("m", new long[] {2}, 0, 0), floatTensor("v", new long[] {2}, 1, 1)),
                list(valueInfo("x", FLOAT, 1, 2, 3)), list(valueInfo("y", FLOAT, 1, 2, 3)));
        UnsupportedOnnxException e = assertThrows(UnsupportedOnnxException.class,
                () -> OnnxModels.read(SCHEMAS, model(6, g).toByteArray(), "t.onnx"));
        assertTrue(e.getMessage().startsWith("unsupported ONNX op BatchNormalization (opset 6)"), e.getMessage());
        assertTrue(e.getMessage().contains("spatial = 0"), e.getMessage());
    }

    @Test
    void aVersionBelowTheTranslatedOnesIsRefusedNamingOpOpsetAndNode() {
        // HardSwish exists from 14: at opset 13 there is no version of it.
        UnsupportedOnnxException e = assertThrows(UnsupportedOnnxException.class, () -> read(13,
                node("HardSwish", List.of("x"), List.of("y")), new long[] {4}, new long[] {4}));
        assertEquals("unsupported ONNX op HardSwish (opset 13) at node 'hardswish_node': the version of "
                + "HardSwish in opset 13 is not translated (versions from 14 are)", e.getMessage());
    }

    @Test
    void preluVersion6SlopeIsPerChannel() {
        OnnxBytes g = graph(list(node("PRelu", List.of("x", "s"), List.of("y"))),
                list(floatTensor("s", new long[] {3}, 0.1f, 0.2f, 0.3f)),
                list(valueInfo("x", FLOAT, 2, 3, 4)), list(valueInfo("y", FLOAT, 2, 3, 4)));
        OnnxModel m = OnnxModels.read(SCHEMAS, model(6, g).toByteArray(), "t.onnx");
        assertEquals(true, m.graph().ops().get(0).boolAttr("per_channel_broadcast"));
        OnnxModel m9 = OnnxModels.read(SCHEMAS, model(9, graph(list(node("PRelu", List.of("x", "s"), List.of("y"))),
                list(floatTensor("s", new long[] {4}, 0.1f, 0.2f, 0.3f, 0.4f)),
                list(valueInfo("x", FLOAT, 2, 3, 4)), list(valueInfo("y", FLOAT, 2, 3, 4)))).toByteArray(), "t.onnx");
        assertEquals(false, m9.graph().ops().get(0).boolAttr("per_channel_broadcast"));
    }

    @Test
    void aGraphOutputThatIsAGraphInputIsACopy() {
        OnnxModel m = OnnxModels.read(SCHEMAS, model(13, graph(list(node("Identity", List.of("x"), List.of("y"))),
                list(), list(valueInfo("x", FLOAT, 4)), list(valueInfo("y", FLOAT, 4)))).toByteArray(), "t.onnx");
        assertEquals(List.of(OpKind.Reorder), kinds(m));
    }
}
