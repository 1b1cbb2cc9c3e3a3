package io.partita.formats.onnx;

import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.int64Tensor;
import static io.partita.formats.onnx.OnnxBytes.intsAttr;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.message;
import static io.partita.formats.onnx.OnnxBytes.model;
import static io.partita.formats.onnx.OnnxBytes.node;
import static io.partita.formats.onnx.OnnxBytes.valueInfo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;

/**
 * ONNX's DOUBLE, INT16, UINT16 and UINT64 as Partita's extension types, Einsum as PartitaEinsum and
 * MaxUnpool as PartitaMaxUnpool; a malformed equation or attribute is refused naming the node's op.
 */
class OnnxEinsumUnpoolImportTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();
    private static final int FLOAT = 1;
    private static final int UINT16 = 4;
    private static final int INT16 = 5;
    private static final int INT64 = 7;
    private static final int DOUBLE = 11;
    private static final int UINT32 = 12;
    private static final int UINT64 = 13;

    private static OnnxModel read(long opset, List<OnnxBytes> nodes, List<OnnxBytes> inits, List<OnnxBytes> inputs,
            List<OnnxBytes> outputs) {
        return OnnxModels.read(SCHEMAS, model(opset, graph(nodes, inits, inputs, outputs)).toByteArray(), "t.onnx");
    }

    private static OnnxBytes stringAttr(String name, String v) {
        return message().string(1, name).int64(20, 3).bytes(4, v.getBytes(StandardCharsets.UTF_8));
    }

    /** A node of the given op with inputs a and b and output y, all of one ONNX element type. */
    private static Op binaryNode(String opType, int type, long[] a, long[] b) {
        OnnxModel m = read(13, list(node(opType, List.of("a", "b"), List.of("y"))), list(),
                list(valueInfo("a", type, a), valueInfo("b", type, b)), list(valueInfo("y", type, a)));
        return m.graph().ops().get(0);
    }

    @Test
    void extensionTypesImportAndPickTheirOps() {
        Op add = binaryNode("Add", DOUBLE, new long[] {2, 3}, new long[] {3});
        assertEquals(OpKind.Add, add.kind());
        assertEquals(DataType.F64, add.output(0).dataType());
        assertEquals(DataType.U64, binaryNode("Mul", UINT64, new long[] {4}, new long[] {4}).input(1).dataType());
        for (int type : new int[] {UINT64, INT16, UINT16, DOUBLE}) {
            assertEquals(OpKind.PartitaMinimum, binaryNode("Min", type, new long[] {4}, new long[] {4}).kind(),
                    "ONNX type " + type);
        }
    }

    @Test
    void uint32IsStillRefusedAsUnsupported() {
        UnsupportedOnnxException e = assertThrows(UnsupportedOnnxException.class, () -> read(13,
                list(node("Min", List.of("a", "b"), List.of("y"))), list(),
                list(valueInfo("a", UINT32, 4), valueInfo("b", UINT32, 4)), list(valueInfo("y", UINT32, 4))));
        assertTrue(e.getMessage().contains("'a'") && e.getMessage().contains("data type UINT32 has no Partita data type"),
                e.getMessage());
    }

    @Test
    void einsumBecomesPartitaEinsumWithTheEquation() {
        OnnxModel m = read(12, list(node("Einsum", List.of("x", "w"), List.of("y"),
                stringAttr("equation", "bij, bjk -> bik"))), list(),
                list(valueInfo("x", DOUBLE, 5, 2, 3), valueInfo("w", DOUBLE, 5, 3, 4)),
                list(valueInfo("y", DOUBLE, 5, 2, 4)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.PartitaEinsum, op.kind());
        assertEquals("bij, bjk -> bik", op.stringAttr("equation"));
        assertArrayEquals(new long[] {5, 2, 4}, op.output(0).dims());
        assertEquals(List.of(OpKind.PartitaEinsum), m.extensionOps());
    }

    @Test
    void malformedEinsumEquationsAreRefusedNamingTheBadPart() {
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(12,
                list(node("Einsum", List.of("x"), List.of("y"), stringAttr("equation", "ij->jj"))), list(),
                list(valueInfo("x", FLOAT, 2, 3)), list(valueInfo("y", FLOAT, 3, 3))));
        assertTrue(e.getMessage().contains("Einsum") && e.getMessage().contains("output term 'jj' repeats label 'j'"),
                e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read(12,
                list(node("Einsum", List.of("x", "z"), List.of("y"), stringAttr("equation", "ij->i"))), list(),
                list(valueInfo("x", FLOAT, 2, 3), valueInfo("z", FLOAT, 3)), list(valueInfo("y", FLOAT, 2))));
        assertTrue(e.getMessage().contains("1 input term(s) but the op has 2 input(s)"), e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read(12,
                list(node("Einsum", List.of("x"), List.of("y"), stringAttr("equation", "...ij->...i"))), list(),
                list(valueInfo("x", FLOAT, 3)), list(valueInfo("y", FLOAT, 3))));
        assertTrue(e.getMessage().contains("needs rank >= 2 but input 0 has rank 1"), e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read(12,
                list(node("Einsum", List.of("x"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 3)), list(valueInfo("y", FLOAT, 3))));
        assertTrue(e.getMessage().contains("attribute equation is required"), e.getMessage());
    }

    @Test
    void maxUnpoolSplitsPadsAndTakesAnOutputShape() {
        OnnxModel m = read(11, list(node("MaxUnpool", List.of("x", "i", "s"), List.of("y"),
                intsAttr("kernel_shape", 2, 2), intsAttr("strides", 2, 2), intsAttr("pads", 0, 1, 0, 1))),
                list(int64Tensor("s", new long[] {4}, 1, 1, 5, 5)),
                list(valueInfo("x", FLOAT, 1, 1, 2, 2), valueInfo("i", INT64, 1, 1, 2, 2)),
                list(valueInfo("y", FLOAT, 1, 1, 5, 5)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.PartitaMaxUnpool, op.kind());
        assertArrayEquals(new long[] {2, 2}, op.longsAttr("kernel"));
        assertArrayEquals(new long[] {0, 1}, op.longsAttr("pads_begin"));
        assertArrayEquals(new long[] {0, 1}, op.longsAttr("pads_end"));
        assertArrayEquals(new long[] {1, 1, 5, 5}, op.output(0).dims());
    }

    @Test
    void maxUnpoolRefusesPadsOfTheWrongLengthAndAMissingKernel() {
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(11,
                list(node("MaxUnpool", List.of("x", "i"), List.of("y"), intsAttr("kernel_shape", 2, 2),
                        intsAttr("pads", 0, 0))), list(),
                list(valueInfo("x", FLOAT, 1, 1, 2, 2), valueInfo("i", INT64, 1, 1, 2, 2)),
                list(valueInfo("y", FLOAT, 1, 1, 4, 4))));
        assertTrue(e.getMessage().contains("MaxUnpool") && e.getMessage().contains("pads [0, 0] has 2 values; expected 4"),
                e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read(11,
                list(node("MaxUnpool", List.of("x", "i"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 1, 1, 2, 2), valueInfo("i", INT64, 1, 1, 2, 2)),
                list(valueInfo("y", FLOAT, 1, 1, 4, 4))));
        assertTrue(e.getMessage().contains("attribute kernel_shape is required"), e.getMessage());
    }
}
