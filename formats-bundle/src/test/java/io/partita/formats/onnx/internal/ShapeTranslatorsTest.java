package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.int64Tensor;
import static io.partita.formats.onnx.OnnxBytes.intAttr;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.model;
import static io.partita.formats.onnx.OnnxBytes.node;
import static io.partita.formats.onnx.OnnxBytes.valueInfo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.formats.onnx.OnnxBytes;
import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.GraphRuntime;
import io.partita.graph.OpSchemaRegistry;

/** Axes are range-checked as 64-bit values, before any narrowing. */
class ShapeTranslatorsTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();
    private static final int FLOAT = 1;

    private static String refused(OnnxBytes node, List<OnnxBytes> inits, long[] outDims) {
        OnnxBytes g = graph(list(node), inits, list(valueInfo("X", FLOAT, 2, 3)), list(valueInfo("Y", FLOAT, outDims)));
        OnnxImportException e = assertThrows(OnnxImportException.class,
                () -> OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "t.onnx"));
        assertEquals(OnnxImportException.class, e.getClass());
        return e.getMessage();
    }

    /** 2^32 narrowed to int was axis 0: the model was accepted with a wrong shape. */
    @Test
    void unsqueezeAxisIsNotTruncated() {
        assertEquals("t.onnx: node 'unsqueeze_node' (Unsqueeze): axis 4294967296 is out of range [-3, 2] for rank 3",
                refused(node("Unsqueeze", List.of("X", "axes"), List.of("Y")),
                        list(int64Tensor("axes", new long[] {1}, 1L << 32)), new long[] {1, 2, 3}));
    }

    @Test
    void flattenAxisIsNotTruncated() {
        assertEquals("t.onnx: node 'flatten_node' (Flatten): axis 4294967297 is out of range [-2, 2] for rank 2",
                refused(node("Flatten", List.of("X"), List.of("Y"), intAttr("axis", (1L << 32) + 1)), list(),
                        new long[] {2, 3}));
    }

    /** ONNX requires int64 axes; a float tensor was read as truncated longs. */
    @Test
    void axesMustBeIntegers() {
        assertEquals("t.onnx: node 'unsqueeze_node' (Unsqueeze): axes (input 1) is f32; expected int64 or int32",
                refused(node("Unsqueeze", List.of("X", "axes"), List.of("Y")),
                        list(OnnxBytes.floatTensor("axes", new long[] {1}, 0)), new long[] {1, 2, 3}));
    }
}
