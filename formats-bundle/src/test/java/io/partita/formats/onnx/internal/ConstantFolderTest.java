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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.formats.onnx.OnnxBytes;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.GraphRuntime;
import io.partita.graph.MemoryLimitException;
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

    private static MemoryLimitException refusedFold(String op, List<OnnxBytes> inits) {
        OnnxBytes g = graph(list(
                node(op, List.of("a", "b"), List.of("c")),
                node("Add", List.of("X", "c"), List.of("Y"))),
                inits, list(valueInfo("X", FLOAT, 2)), list(valueInfo("Y", FLOAT, 2)));
        return assertThrows(MemoryLimitException.class,
                () -> OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "huge.onnx"));
    }

    /** A few bytes of shape may ask for a value no Java array holds: refused before any array is made. */
    @Test
    void constantOfShapeBeyondAJavaArrayIsRefused() {
        OnnxBytes g = graph(list(
                node("ConstantOfShape", List.of("shape"), List.of("c")),
                node("Add", List.of("X", "c"), List.of("Y"))),
                list(int64Tensor("shape", new long[] {3}, 100_000, 100_000, 100_000)),
                list(valueInfo("X", FLOAT, 2)), list(valueInfo("Y", FLOAT, 2)));
        MemoryLimitException e = assertThrows(MemoryLimitException.class,
                () -> OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "huge.onnx"));
        assertEquals("the value of huge.onnx: node 'constantofshape_node' (ConstantOfShape), f32[100000,100000,100000], has"
                + " 1000000000000000 elements; a value folded at import is held in one Java array, at most 2147483639"
                + " elements", e.getMessage());
    }

    @Test
    void constantOfShapeBeyondHalfTheHeapIsRefused() {
        OnnxBytes g = graph(list(
                node("ConstantOfShape", List.of("shape"), List.of("c")),
                node("Add", List.of("X", "c"), List.of("Y"))),
                list(int64Tensor("shape", new long[] {2}, 40_000, 50_000)),
                list(valueInfo("X", FLOAT, 2)), list(valueInfo("Y", FLOAT, 2)));
        MemoryLimitException e = assertThrows(MemoryLimitException.class,
                () -> OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "huge.onnx"));
        // 2e9 elements: a double and an f32 each
        assertEquals(24_000_000_000L, e.bytes());
        assertEquals(Runtime.getRuntime().maxMemory() / 2, e.limit());
        assertTrue(e.getMessage().startsWith("the value of huge.onnx: node 'constantofshape_node' (ConstantOfShape),"
                + " f32[40000,50000], needs 22.4 GiB of heap to fold at import; at most half the maximum heap"), e.getMessage());
    }

    /** Broadcasting two small constants can ask for a huge one, too. */
    @Test
    void broadcastingConstantsBeyondAJavaArrayIsRefused() {
        MemoryLimitException e = refusedFold("Mul", list(int64Tensor("a", new long[] {100_000, 1}, new long[100_000]),
                int64Tensor("b", new long[] {1, 100_000}, new long[100_000])));
        assertTrue(e.getMessage().startsWith("the value of huge.onnx: node 'mul_node' (Mul), s64[100000,100000], has"
                + " 10000000000 elements"), e.getMessage());
    }
}
