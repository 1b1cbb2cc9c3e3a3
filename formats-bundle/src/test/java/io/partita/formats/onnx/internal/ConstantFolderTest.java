package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.int64Tensor;
import static io.partita.formats.onnx.OnnxBytes.intAttr;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.model;
import static io.partita.formats.onnx.OnnxBytes.node;
import static io.partita.formats.onnx.OnnxBytes.valueInfo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.formats.onnx.OnnxBytes;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;

class ConstantFolderTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();

    private static final int FLOAT = 1;

    /**
     * The shape computation exporters emit (Shape -> Slice -> Concat -> Reshape) folds at import:
     * the graph keeps one StaticReshape with the computed shape, and no constant inputs.
     */
    @Test
    void shapeChainFoldsIntoAStaticReshape() {
        long[] one = {1};
        OnnxBytes g = graph(list(
                node("Shape", List.of("X"), List.of("s")),
                node("Slice", List.of("s", "start", "end"), List.of("tail")),
                node("Concat", List.of("minus1", "tail"), List.of("shape"), intAttr("axis", 0)),
                node("Reshape", List.of("X", "shape"), List.of("Y"))),
                list(int64Tensor("start", one, 2), int64Tensor("end", one, Long.MAX_VALUE),
                        int64Tensor("minus1", one, -1)),
                list(valueInfo("X", FLOAT, 2, 3, 4)), list(valueInfo("Y", FLOAT, 6, 4)));
        OnnxModel m = OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "fold.onnx");
        List<Op> ops = m.graph().ops();
        assertEquals(List.of(OpKind.StaticReshape), ops.stream().map(Op::kind).toList());
        assertArrayEquals(new long[] {-1, 4}, ops.get(0).longsAttr("shape"));
        assertArrayEquals(new long[] {6, 4}, ops.get(0).output(0).dims());
        assertEquals(0, m.constants().size());
    }

    /** Integer arithmetic on constants truncates toward zero, as ONNX's integer Div. */
    @Test
    void integerDivisionOfConstantsTruncates() {
        long[] two = {2};
        OnnxBytes g = graph(list(
                node("Div", List.of("a", "b"), List.of("q")),
                node("Reshape", List.of("X", "q"), List.of("Y"))),
                list(int64Tensor("a", two, 7, -24), int64Tensor("b", two, 2, -4)),
                list(valueInfo("X", FLOAT, 3, 6)), list(valueInfo("Y", FLOAT, 3, 6)));
        OnnxModel m = OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "div.onnx");
        assertArrayEquals(new long[] {3, 6}, m.graph().ops().get(0).longsAttr("shape"));
    }
}
