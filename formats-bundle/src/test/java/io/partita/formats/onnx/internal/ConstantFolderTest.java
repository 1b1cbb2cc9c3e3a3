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
import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.formats.onnx.UnsupportedOnnxException;
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

    // ---------------------------------------------------------------- found by OnnxModelsFuzzTest

    /** A graph of the given nodes and initializers whose input is X and output Y (f32 [2]). */
    private static byte[] model2(List<OnnxBytes> nodes, List<OnnxBytes> inits) {
        return model(17, graph(nodes, inits, list(valueInfo("X", FLOAT, 2)), list(valueInfo("Y", FLOAT, 2))))
                .toByteArray();
    }

    private static <E extends OnnxImportException> String refused(Class<E> type, List<OnnxBytes> nodes,
            List<OnnxBytes> inits) {
        E e = assertThrows(type, () -> OnnxModels.read(SCHEMAS, model2(nodes, inits), "t.onnx"));
        assertEquals(type, e.getClass());
        return e.getMessage();
    }

    /** An omitted ("") input of a node whose other inputs are constant was read as a null value (NPE). */
    @Test
    void omittedInputOfAFoldedNodeIsReported() {
        String m = refused(OnnxImportException.class, list(node("Cast", List.of(""), List.of("c"), intAttr("to", 1)),
                node("Add", List.of("X", "c"), List.of("Y"))), list());
        assertEquals("t.onnx: node 'cast_node' (Cast): input 0 is required", m);
    }

    /** A binary node with one (constant) input indexed past its input list (IndexOutOfBoundsException). */
    @Test
    void missingInputOfAFoldedBinaryNodeIsReported() {
        String m = refused(OnnxImportException.class, list(node("Mul", List.of("a"), List.of("c")),
                node("Add", List.of("X", "c"), List.of("Y"))), list(int64Tensor("a", new long[] {2}, 1, 2)));
        assertEquals("t.onnx: node 'mul_node' (Mul): input 1 is required", m);
    }

    /** ConstantOfShape allocated its shape's product: negative (NegativeArraySizeException) or huge (OOM). */
    @Test
    void constantOfShapeChecksItsShapeBeforeAllocating() {
        String neg = refused(OnnxImportException.class, list(node("ConstantOfShape", List.of("s"), List.of("c")),
                node("Add", List.of("X", "c"), List.of("Y"))), list(int64Tensor("s", new long[] {2}, -1, 2)));
        assertEquals("t.onnx: node 'constantofshape_node' (ConstantOfShape): the output has dims [-1,2]; "
                + "expected dims >= 0", neg);
        for (long[] huge : new long[][] {{1L << 32, 1L << 32}, {1L << 13, 1L << 12}}) {
            String m = refused(UnsupportedOnnxException.class, list(node("ConstantOfShape", List.of("s"),
                    List.of("c")), node("Add", List.of("X", "c"), List.of("Y"))),
                    list(int64Tensor("s", new long[] {2}, huge)));
            assertTrue(m.startsWith("unsupported ONNX op ConstantOfShape (opset 17) at node 'constantofshape_node': "
                    + "the output of dims [" + huge[0] + "," + huge[1] + "] would be computed at import"), m);
            assertTrue(m.endsWith("elements; at most 16777216 are"), m);
        }
    }

    /** Concat of constants of different ranks, or on an axis past the rank (ArrayIndexOutOfBoundsException). */
    @Test
    void concatOfConstantsChecksAxisAndDims() {
        List<OnnxBytes> inits = list(int64Tensor("a", new long[] {2}, 1, 2), int64Tensor("b", new long[] {1, 2}, 3, 4));
        String ranks = refused(OnnxImportException.class, list(node("Concat", List.of("a", "b"), List.of("c"),
                intAttr("axis", 0)), node("Reshape", List.of("X", "c"), List.of("Y"))), inits);
        assertEquals("t.onnx: node 'concat_node' (Concat): input 1 s64[1,2] does not fit input 0 s64[2]: Concat "
                + "needs one data type and equal dims except on axis 0", ranks);
        String axis = refused(OnnxImportException.class, list(node("Concat", List.of("a", "a"), List.of("c"),
                intAttr("axis", 3)), node("Reshape", List.of("X", "c"), List.of("Y"))), inits);
        assertEquals("t.onnx: node 'concat_node' (Concat): axis 3 is out of range [-1, 0] for rank 1", axis);
    }

    /** Slice of a constant on an axis past its rank (ArrayIndexOutOfBoundsException). */
    @Test
    void sliceOfAConstantChecksItsAxes() {
        long[] one = {1};
        String m = refused(OnnxImportException.class, list(node("Slice", List.of("a", "s", "e", "ax"), List.of("c")),
                node("Reshape", List.of("X", "c"), List.of("Y"))), list(int64Tensor("a", new long[] {2}, 2, 1),
                int64Tensor("s", one, 0), int64Tensor("e", one, 1), int64Tensor("ax", one, 3)));
        assertEquals("t.onnx: node 'slice_node' (Slice): axis 3 is out of range [-1, 0] for rank 1", m);
    }

    /** Reshape of a constant to a shape of another element count gave a value whose bytes did not fit its dims. */
    @Test
    void reshapeOfAConstantKeepsTheElementCount() {
        String m = refused(OnnxImportException.class, list(node("Reshape", List.of("a", "s"), List.of("c")),
                node("Add", List.of("X", "c"), List.of("Y"))), list(OnnxBytes.floatTensor("a", new long[] {2, 3},
                1, 2, 3, 4, 5, 6), int64Tensor("s", new long[] {1}, 4)));
        assertEquals("t.onnx: node 'reshape_node' (Reshape): input of dims [2,3] (6 elements) cannot be reshaped "
                + "to [4]", m);
    }

    /** A Constant whose TENSOR attribute holds no tensor was decoded from null (NullPointerException). */
    @Test
    void tensorAttributeWithoutATensorIsReported() {
        String m = refused(OnnxImportException.class, list(node("Constant", List.of(), List.of("c"),
                OnnxBytes.emptyAttr("value", 4)), node("Add", List.of("X", "c"), List.of("Y"))), list());
        assertEquals("t.onnx: node 'constant_node' (Constant): attribute 'value' is TENSOR but holds no tensor "
                + "(field t)", m);
    }
}
