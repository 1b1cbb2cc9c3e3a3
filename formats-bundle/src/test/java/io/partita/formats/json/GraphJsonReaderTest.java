package io.partita.formats.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.partita.formats.json.GraphFormatException;
import io.partita.formats.json.GraphJson;
import io.partita.graph.AttrValue;
import io.partita.graph.GraphDescription;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;
import io.partita.graph.PropertyType;

/** Malformed graph files are refused with the file, the place and the expected form. */
class GraphJsonReaderTest {
    private static final String TENSOR0 =
            "{\"id\": 0, \"dtype\": \"f32\", \"shape\": [2, 3], \"stride\": [3, 1], \"layout_type\": \"strided\", \"property_type\": \"constant\"}";
    private static final String TENSOR1 =
            "{\"id\": 1, \"dtype\": \"f32\", \"shape\": [2, 3], \"stride\": [3, 1], \"layout_type\": \"strided\", \"property_type\": \"undef\"}";

    private static String graph(String op) {
        return "{\"version\": \"3.5.0\", \"engine_kind\": \"cpu\", \"fpmath_mode\": \"strict\", \"graph\": [" + op + "]}";
    }

    private static String relu(String attrs) {
        return "{\"id\": 4, \"name\": \"r\", \"kind\": \"ReLU\", \"attrs\": {" + attrs + "}, \"inputs\": [" + TENSOR0
                + "], \"outputs\": [" + TENSOR1 + "]}";
    }

    private static GraphDescription parse(String json) {
        return GraphJson.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "test.json");
    }

    private static String error(String json) {
        return assertThrows(GraphFormatException.class, () -> parse(json)).getMessage();
    }

    @Test
    void readsAValidGraph() {
        GraphDescription d = parse(graph(relu("")));
        assertEquals(1, d.ops().size());
        assertEquals(OpKind.ReLU, d.ops().get(0).kind());
        LogicalTensor in = d.ops().get(0).input(0);
        assertArrayEquals(new long[] {2, 3}, in.dims());
        assertEquals(PropertyType.CONSTANT, in.property());
        assertEquals("3.5.0", d.version());
    }

    @Test
    void readsEveryAttributeType() {
        GraphDescription d = parse(graph("{\"id\": 1, \"name\": \"x\", \"kind\": \"MatMul\", \"attrs\": {"
                + "\"transpose_a\": {\"type\": \"bool\", \"value\": 1}, \"b\": {\"type\": \"s64[]\", \"value\": [1, -2]},"
                + "\"c\": {\"type\": \"f32[]\", \"value\": [0.5, 2]}, \"d\": {\"type\": \"f32\", \"value\": 1.5},"
                + "\"e\": {\"type\": \"string\", \"value\": \"NXC\"}, \"f\": {\"type\": \"s64\", \"value\": -9223372036854775808}},"
                + "\"inputs\": [], \"outputs\": []}"));
        var attrs = d.ops().get(0).attrs();
        assertEquals(AttrValue.of(true), attrs.get("transpose_a"));
        assertEquals(AttrValue.of(1L, -2L), attrs.get("b"));
        assertEquals(AttrValue.of(0.5f, 2f), attrs.get("c"));
        assertEquals(AttrValue.of(1.5f), attrs.get("d"));
        assertEquals(AttrValue.of("NXC"), attrs.get("e"));
        assertEquals(AttrValue.of(Long.MIN_VALUE), attrs.get("f"));
    }

    @Test
    void notJsonReportsLineAndColumn() {
        String m = error("{\"graph\": [\n  {\"id\": 1,,}]}");
        assertTrue(m.startsWith("test.json:2:"), m);
        assertTrue(m.contains("not valid JSON"), m);
    }

    @Test
    void unknownOpKindIsNamed() {
        String m = error(graph(relu("").replace("\"ReLU\"", "\"Relu6\"")));
        assertTrue(m.contains("graph[0] (op 4).kind: unknown op kind 'Relu6'"), m);
    }

    @Test
    void unknownDataTypeNamesTheTensor() {
        String m = error(graph(relu("").replaceFirst("\"f32\"", "\"f128\"")));
        assertTrue(m.contains("graph[0] (op 4).inputs (tensor 0).dtype: unknown data type 'f128'"), m);
    }

    @Test
    void missingFieldIsNamed() {
        String m = error(graph("{\"id\": 1, \"kind\": \"ReLU\", \"inputs\": []}"));
        assertTrue(m.contains("graph[0] (op 1): missing field 'outputs'"), m);
        assertTrue(error("{\"engine_kind\": \"cpu\"}").contains("expected 'graph' to be an array of ops, got nothing"));
    }

    @Test
    void wronglyTypedValuesAreNamed() {
        assertTrue(error(graph(relu("\"alpha\": {\"type\": \"f32\", \"value\": \"big\"}")))
                .contains("graph[0] (op 4).attrs.alpha.value: expected a number, got \"big\""));
        assertTrue(error(graph(relu("\"x\": {\"type\": \"bool\", \"value\": 2}")))
                .contains("expected a bool as 0 or 1, got 2"));
        assertTrue(error(graph(relu("\"x\": {\"type\": \"s64[]\", \"value\": [1, 2.5]}")))
                .contains("attrs.x.value[1]: expected a 64-bit integer, got 2.5"));
        assertTrue(error(graph(relu("\"x\": {\"type\": \"u8\", \"value\": 1}")))
                .contains("attrs.x.type: unknown attribute type 'u8'"));
        assertTrue(error(graph(relu("")).replace("\"engine_kind\": \"cpu\"", "\"engine_kind\": \"tpu\""))
                .contains("engine_kind: unknown engine kind 'tpu'"));
    }

    @Test
    void badShapesAndStridesAreNamed() {
        assertTrue(error(graph(relu("").replaceFirst("\\[2, 3\\]", "[2, -3]")))
                .contains("(tensor 0): logical tensor 0: dim 1 is -3"));
        assertTrue(error(graph(relu("").replaceFirst("\\[3, 1\\]", "[1]")))
                .contains("(tensor 0).stride: 1 strides for 2 dims"));
    }

    @Test
    void unknownFieldsAreRefused() {
        assertTrue(error(graph(relu("")).replace("\"graph\":", "\"grahp\": [], \"graph\":"))
                .contains("top level: unknown field 'grahp'"));
    }

    /** Found by GraphJsonFuzzTest: Jackson's NumberFormatException for such a number escaped the reader. */
    @Test
    void numberWithAnExponentBeyondIntRangeIsReportedWithItsPlace() {
        String m = error("{\"graph\": [], \"engine_kind\": \"cpu\",\n \"version\": 1e99511627776}");
        assertTrue(m.startsWith("test.json:2:"), m);
        assertTrue(m.contains("not valid JSON") && m.contains("1e99511627776"), m);
    }
}
