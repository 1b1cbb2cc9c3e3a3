package io.partita.formats.onnx;

import static io.partita.formats.onnx.OnnxBytes.floatAttr;
import static io.partita.formats.onnx.OnnxBytes.floatTensor;
import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.intAttr;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.model;
import static io.partita.formats.onnx.OnnxBytes.node;
import static io.partita.formats.onnx.OnnxBytes.valueInfo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.formats.json.GraphJson;
import io.partita.formats.onnx.OnnxBytes;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.MemoryLimitException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testing.Corpus;

class OnnxModelsTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();

    private static final int FLOAT = 1;

    /** Y = Gemm(X[2,3], W[3,2], B[2]) with alpha 2, W and B initializers. */
    private static OnnxBytes gemmGraph(OnnxBytes... extraAttrs) {
        OnnxBytes[] attrs = new OnnxBytes[extraAttrs.length + 1];
        attrs[0] = floatAttr("alpha", 2f);
        System.arraycopy(extraAttrs, 0, attrs, 1, extraAttrs.length);
        return graph(list(node("Gemm", List.of("X", "W", "B"), List.of("Y"), attrs)),
                list(floatTensor("W", new long[] {3, 2}, 1, 2, 3, 4, 5, 6), floatTensor("B", new long[] {2}, 10, 20)),
                list(valueInfo("X", FLOAT, 2, 3)), list(valueInfo("Y", FLOAT, 2, 2)));
    }

    @Test
    void gemmBecomesMatMulScaleAndBiasWithInitializersAsConstants() {
        OnnxModel m = OnnxModels.read(SCHEMAS, model(17, gemmGraph()).toByteArray(), "gemm.onnx");
        assertEquals(17, m.opset());
        assertEquals(List.of(OpKind.MatMul, OpKind.Multiply, OpKind.Add),
                m.graph().ops().stream().map(Op::kind).toList());
        assertEquals(3, m.constants().size(), "W, B and the alpha scalar");
        for (long id : m.constants().keySet()) {
            LogicalTensor used = m.graph().ops().stream().flatMap(o -> o.inputs().stream()).filter(t -> t.id() == id)
                    .findFirst().orElseThrow();
            assertEquals(PropertyType.CONSTANT, used.property());
        }
        assertEquals(List.of("X"), List.copyOf(m.inputs().keySet()));
        assertEquals(List.of("Y"), List.copyOf(m.outputs().keySet()));

        // Run it: Y = 2 * X W + B.
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = m.graph().toGraph(rt).finalizeGraph();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.DEBUG, Engine.cpu())) {
            Map<Long, Tensor> in = new HashMap<>(m.constantTensors(Engine.cpu(), arena));
            LogicalTensor x = LogicalTensor.of(m.inputs().get("X"), DataType.F32, 2, 3);
            Tensor xt = Tensor.allocate(x, Engine.cpu(), arena);
            xt.copyFrom(new float[] {1, 0, 0, 0, 1, 1});
            in.put(x.id(), xt);
            Tensor y = cg.execute(new Stream(Engine.cpu()), in).get(m.outputs().get("Y"));
            assertArrayEquals(new float[] {2 + 10, 4 + 20, 16 + 10, 20 + 20}, y.toFloatArray());
        }
    }

    @Test
    void convertedGraphJsonReloads() {
        OnnxModel m = OnnxModels.read(SCHEMAS, model(17, gemmGraph()).toByteArray(), "gemm.onnx");
        String json = GraphJson.toJson(m.graph());
        assertEquals(3, GraphJson.parse(new java.io.ByteArrayInputStream(json.getBytes()), "x").ops().size());
    }

    @Test
    void malformedProtobufIsReportedWithTheMessagePath() {
        byte[] garbage = {(byte) 0x3a, (byte) 0x05, 1, 2};
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> OnnxModels.read(SCHEMAS, garbage, "bad.onnx"));
        assertTrue(e.getMessage().contains("bad.onnx") && e.getMessage().contains("malformed"), e.getMessage());
    }

    @Test
    void truncatedFileIsReported() throws Exception {
        byte[] full = Files.readAllBytes(Corpus.root().resolve("onnx-node/test_gemm_all_attributes/model.onnx"));
        byte[] cut = Arrays.copyOf(full, full.length / 2);
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> OnnxModels.read(SCHEMAS, cut, "cut.onnx"));
        assertTrue(e.getMessage().contains("cut.onnx") && e.getMessage().contains("malformed"), e.getMessage());
        assertTrue(e.getMessage().contains("truncated") || e.getMessage().contains("ended unexpectedly"),
                e.getMessage());
    }

    @Test
    void unknownDataTypeNamesTheInitializer() {
        OnnxBytes bad = OnnxBytes.message().int64(1, 2).int64(2, 99).string(8, "W").bytes(9, new byte[8]);
        OnnxBytes g = graph(list(node("Relu", List.of("W"), List.of("Y"))), list(bad), list(),
                list(valueInfo("Y", FLOAT, 2)));
        OnnxImportException e = assertThrows(OnnxImportException.class,
                () -> OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "t.onnx"));
        assertTrue(e.getMessage().contains("initializer 'W'") && e.getMessage().contains("unknown data type 99"),
                e.getMessage());
    }

    @Test
    void rawDataOfTheWrongSizeIsReported() {
        OnnxBytes bad = OnnxBytes.message().int64(1, 3).int64(2, 1).string(8, "W").bytes(9, new byte[8]);
        OnnxBytes g = graph(list(node("Relu", List.of("W"), List.of("Y"))), list(bad), list(),
                list(valueInfo("Y", FLOAT, 3)));
        OnnxImportException e = assertThrows(OnnxImportException.class,
                () -> OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "t.onnx"));
        assertTrue(e.getMessage().contains("8 bytes of raw_data; expected 12"), e.getMessage());
    }

    @Test
    void missingInitializerNamesTheValueAndTheNode() {
        OnnxBytes g = graph(list(node("Gemm", List.of("X", "W"), List.of("Y"))), list(),
                list(valueInfo("X", FLOAT, 2, 3)), list(valueInfo("Y", FLOAT, 2, 2)));
        OnnxImportException e = assertThrows(OnnxImportException.class,
                () -> OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "t.onnx"));
        assertTrue(e.getMessage().contains("'W'") && e.getMessage().contains("gemm_node"), e.getMessage());
    }

    @Test
    void opsetOutsideTheSupportedRangeIsRefused() {
        for (long opset : new long[] {5, 28}) {
            UnsupportedOnnxException e = assertThrows(UnsupportedOnnxException.class,
                    () -> OnnxModels.read(SCHEMAS, model(opset, gemmGraph()).toByteArray(), "t.onnx"));
            assertTrue(e.getMessage().contains("opset " + opset) && e.getMessage().contains("expected 6 to 27"),
                    e.getMessage());
        }
    }

    @Test
    void unsupportedAttributeIsNamedNotDropped() {
        UnsupportedOnnxException e = assertThrows(UnsupportedOnnxException.class,
                () -> OnnxModels.read(SCHEMAS, model(17, gemmGraph(intAttr("fancy", 1))).toByteArray(), "t.onnx"));
        assertEquals("Gemm", e.opType());
        assertEquals(17, e.opset());
        assertTrue(e.getMessage().startsWith("unsupported ONNX op Gemm (opset 17) at node 'gemm_node'"),
                e.getMessage());
        assertTrue(e.getMessage().contains("attribute 'fancy'"), e.getMessage());
    }

    @Test
    void unsupportedOpIsNamedWithOpsetAndNode() {
        OnnxBytes g = graph(list(node("Hardmax", List.of("X"), List.of("Y"))), list(),
                list(valueInfo("X", FLOAT, 2, 3)), list(valueInfo("Y", FLOAT, 2, 3)));
        UnsupportedOnnxException e = assertThrows(UnsupportedOnnxException.class,
                () -> OnnxModels.read(SCHEMAS, model(19, g).toByteArray(), "t.onnx"));
        assertEquals("unsupported ONNX op Hardmax (opset 19) at node 'hardmax_node': no translation to Partita ops",
                e.getMessage());
    }

    @Test
    void goldenTensorFilesDecode() {
        Path dir = Corpus.root().resolve("onnx-node/test_gemm_all_attributes/test_data_set_0");
        OnnxTensor a = OnnxModels.readTensor(dir.resolve("input_0.pb"));
        assertEquals(DataType.F32, a.dataType());
        assertEquals(a.elementCount(), a.toDoubleArray().length);
        assertTrue(a.dims().length == 2 && a.elementCount() > 1, Arrays.toString(a.dims()));
    }

    @Test
    void erfUsesTheExtensionOpAndSaysSo() {
        OnnxBytes g = graph(list(node("Erf", List.of("X"), List.of("Y"))), list(),
                list(valueInfo("X", FLOAT, 4)), list(valueInfo("Y", FLOAT, 4)));
        OnnxModel m = OnnxModels.read(SCHEMAS, model(13, g).toByteArray(), "erf.onnx");
        assertEquals(List.of(OpKind.PartitaErf), m.extensionOps());
    }

    @Test
    void symbolicInputDimsTakeGivenValuesOrAreReported() {
        OnnxBytes g = graph(list(node("Relu", List.of("X"), List.of("Y"))), list(),
                list(OnnxBytes.valueInfoSymbolic("X", FLOAT, "N", 4L)), list(OnnxBytes.valueInfoSymbolic("Y", FLOAT, "N", 4L)));
        byte[] bytes = model(14, g).toByteArray();
        UnsupportedOnnxException e = assertThrows(UnsupportedOnnxException.class, () -> OnnxModels.read(SCHEMAS, bytes, "t.onnx"));
        assertTrue(e.getMessage().contains("dim 0 ('N') is symbolic") && e.getMessage().contains("--dim N=VALUE"),
                e.getMessage());
        OnnxModel m = OnnxModels.read(SCHEMAS, bytes, "t.onnx", Map.of("N", 3L));
        LogicalTensor y = m.graph().ops().get(0).output(0);
        assertArrayEquals(new long[] {3, 4}, y.dims());
        // the names a caller choosing a batch size looks up first: null where a dim is fixed
        assertEquals(Map.of("X", java.util.Arrays.asList("N", null)), OnnxModels.inputDimParams(bytes, "t.onnx"));
    }

    @Test
    void dimValuesForNoSymbolicDimOrNotPositiveAreRefused() {
        OnnxBytes g = graph(list(node("Relu", List.of("X"), List.of("Y"))), list(),
                list(OnnxBytes.valueInfoSymbolic("X", FLOAT, "N", "S")), list(OnnxBytes.valueInfoSymbolic("Y", FLOAT, "N", "S")));
        byte[] bytes = model(14, g).toByteArray();
        OnnxImportException typo = assertThrows(OnnxImportException.class,
                () -> OnnxModels.read(SCHEMAS, bytes, "t.onnx", Map.of("N", 2L, "S", 3L, "Q", 4L)));
        assertEquals("t.onnx: a value is given for dim 'Q', but no graph input has a symbolic dim of that name; its"
                + " symbolic dims are [N, S]", typo.getMessage());
        OnnxImportException negative = assertThrows(OnnxImportException.class,
                () -> OnnxModels.read(SCHEMAS, bytes, "t.onnx", Map.of("N", -3L, "S", 3L)));
        assertEquals("t.onnx: dim 'N' is given -3; expected a positive size", negative.getMessage());
        assertArrayEquals(new long[] {2, 3}, OnnxModels.read(SCHEMAS, bytes, "t.onnx", Map.of("N", 2L, "S", 3L))
                .graph().ops().get(0).output(0).dims());
    }

    /** An input of 10^15 floats imports (nothing is allocated) and is refused when compiled, before it runs. */
    @Test
    void anInputOfAHundredThousandCubedIsRefusedByTheMemoryLimit() {
        OnnxBytes g = graph(list(node("Relu", List.of("X"), List.of("Y"))), list(),
                list(valueInfo("X", FLOAT, 100_000, 100_000, 100_000)), list(valueInfo("Y", FLOAT, 100_000, 100_000, 100_000)));
        OnnxModel m = OnnxModels.read(SCHEMAS, model(17, g).toByteArray(), "cube.onnx");
        GraphRuntime rt = GraphRuntime.referenceOnly();
        rt.setMemoryLimit(8L << 30);
        Graph graph = m.graph().toGraph(rt).finalizeGraph();
        MemoryLimitException e = assertThrows(MemoryLimitException.class,
                () -> rt.compile(graph, PartitionPolicy.FUSION, Engine.cpu()));
        assertEquals("tensor " + m.inputs().get("X") + " f32[100000,100000,100000] needs 3.6 PiB; the memory limit is"
                + " 8.0 GiB (set it with the partita.memory.limit property or GraphRuntime.setMemoryLimit)", e.getMessage());
    }
}
