package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.intsAttr;
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

/** Pooling attributes are checked before the padding arithmetic uses them (found by OnnxModelsFuzzTest). */
class SpatialTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();
    private static final int FLOAT = 1;

    private static String refused(OnnxBytes... attrs) {
        OnnxBytes g = graph(list(node("MaxPool", List.of("X"), List.of("Y"), attrs)), list(),
                list(valueInfo("X", FLOAT, 1, 1, 4, 4)), list(valueInfo("Y", FLOAT, 1, 1, 2, 2)));
        OnnxImportException e = assertThrows(OnnxImportException.class,
                () -> OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "t.onnx"));
        assertEquals(OnnxImportException.class, e.getClass());
        return e.getMessage();
    }

    /** auto_pad = SAME_UPPER: the padding is computed at import from the spatial dims. */
    private static OnnxBytes sameUpper() {
        return OnnxBytes.message().string(1, "auto_pad").int64(20, 3).string(4, "SAME_UPPER");
    }

    /** A kernel of another rank than the input's spatial dims was indexed past them (ArrayIndexOutOfBounds). */
    @Test
    void kernelRankMustMatchTheInput() {
        assertEquals("t.onnx: node 'maxpool_node' (MaxPool): kernel [2, 2, 2] has 3 spatial dims but the input has 2",
                refused(intsAttr("kernel_shape", 2, 2, 2), sameUpper()));
    }

    /** A zero stride divided by zero in SAME padding (ArithmeticException). */
    @Test
    void stridesMustBePositive() {
        assertEquals("t.onnx: node 'maxpool_node' (MaxPool): kernel [2, 2], strides [0, 1], dilations [1, 1], "
                + "pads [0, 0, 0, 0]: expected positive kernel, strides and dilations and pads >= 0",
                refused(intsAttr("kernel_shape", 2, 2), intsAttr("strides", 0, 1), sameUpper()));
    }
}
