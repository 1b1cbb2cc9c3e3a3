package io.partita.formats.json;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.partita.graph.AttrType;
import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.EngineKind;
import io.partita.graph.FpMathMode;
import io.partita.graph.GraphDescription;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PropertyType;

/** Parses oneDNN graph JSON with precise, located error messages. */
final class GraphJsonReader {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private GraphJsonReader() {
    }

    public static GraphDescription read(InputStream in, String source) {
        JsonNode root;
        try (JsonParser parser = MAPPER.createParser(in)) {
            try {
                root = MAPPER.readTree(parser);
            } catch (NumberFormatException e) {
                // Jackson reports a number it cannot hold (an exponent beyond int range) this way.
                JsonLocation loc = parser.currentLocation();
                throw new GraphFormatException(source + ":" + loc.getLineNr() + ":" + loc.getColumnNr()
                        + ": not valid JSON: " + e.getMessage(), e);
            }
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            throw new GraphFormatException(source + (loc != null ? ":" + loc.getLineNr() + ":" + loc.getColumnNr() : "")
                    + ": not valid JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new GraphFormatException(source + ": cannot read: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new GraphFormatException(source + ": expected a JSON object with 'graph', 'engine_kind', 'fpmath_mode'");
        }
        return new GraphJsonReader.Parser(source).document(root);
    }

    private static final class Parser {
        private final String source;

        Parser(String source) {
            this.source = source;
        }

        GraphFormatException error(String where, String message) {
            return new GraphFormatException(source + ": " + where + ": " + message);
        }

        GraphDescription document(JsonNode root) {
            String version = root.has("version") ? text(root.get("version"), "version") : "unknown";
            EngineKind engine = parseEnum("engine_kind", requiredText(root, "engine_kind", "top level"),
                    EngineKind::fromSpelling);
            FpMathMode fpmath = root.has("fpmath_mode")
                    ? parseEnum("fpmath_mode", text(root.get("fpmath_mode"), "fpmath_mode"), FpMathMode::fromSpelling)
                    : FpMathMode.STRICT;
            boolean applyToInt = false;
            if (root.has("fpmath_mode_apply_to_int")) {
                JsonNode n = root.get("fpmath_mode_apply_to_int");
                if (n.isBoolean()) {
                    applyToInt = n.booleanValue();
                } else if (n.isTextual() && ("true".equals(n.textValue()) || "false".equals(n.textValue()))) {
                    applyToInt = Boolean.parseBoolean(n.textValue());
                } else {
                    throw error("fpmath_mode_apply_to_int", "expected \"true\" or \"false\", got " + n);
                }
            }
            List<Long> inPorts = longList(root.get("input_ports"), "input_ports");
            List<Long> outPorts = longList(root.get("output_ports"), "output_ports");
            JsonNode graph = root.get("graph");
            if (graph == null || !graph.isArray()) {
                throw error("top level", "expected 'graph' to be an array of ops, got " + describe(graph));
            }
            List<Op> ops = new ArrayList<>();
            for (int i = 0; i < graph.size(); i++) {
                ops.add(op(graph.get(i), "graph[" + i + "]"));
            }
            for (String key : iterable(root.fieldNames())) {
                if (!List.of("version", "engine_kind", "fpmath_mode", "fpmath_mode_apply_to_int", "input_ports",
                        "output_ports", "graph").contains(key)) {
                    throw error("top level", "unknown field '" + key + "'");
                }
            }
            return new GraphDescription(version, engine, fpmath, applyToInt, inPorts, outPorts, ops);
        }

        private Op op(JsonNode n, String where) {
            if (n == null || !n.isObject()) {
                throw error(where, "expected an op object, got " + describe(n));
            }
            long id = integer(required(n, "id", where), where + ".id");
            String w = where + " (op " + id + ")";
            String kindText = requiredText(n, "kind", w);
            OpKind kind = parseEnum(w + ".kind", kindText, OpKind::fromSpelling);
            if (id < 0) {
                throw error(w + ".id", "expected a non-negative op id, got " + id);
            }
            Op.Builder b = Op.builder(id, kind);
            if (n.has("name")) {
                b.name(text(n.get("name"), w + ".name"));
            }
            JsonNode attrs = n.get("attrs");
            if (attrs != null) {
                if (!attrs.isObject()) {
                    throw error(w + ".attrs", "expected an object of {type, value} entries, got " + describe(attrs));
                }
                for (Map.Entry<String, JsonNode> e : iterable(attrs.fields())) {
                    b.attr(e.getKey(), attr(e.getValue(), w + ".attrs." + e.getKey()));
                }
            }
            for (JsonNode t : array(required(n, "inputs", w), w + ".inputs")) {
                b.input(tensor(t, w + ".inputs"));
            }
            for (JsonNode t : array(required(n, "outputs", w), w + ".outputs")) {
                b.output(tensor(t, w + ".outputs"));
            }
            for (String key : iterable(n.fieldNames())) {
                if (!List.of("id", "name", "kind", "attrs", "inputs", "outputs").contains(key)) {
                    throw error(w, "unknown field '" + key + "'");
                }
            }
            return b.build();
        }

        private AttrValue attr(JsonNode n, String where) {
            if (n == null || !n.isObject()) {
                throw error(where, "expected {\"type\": ..., \"value\": ...}, got " + describe(n));
            }
            AttrType type = parseEnum(where + ".type", requiredText(n, "type", where), AttrType::fromSpelling);
            JsonNode v = required(n, "value", where);
            String vw = where + ".value";
            return switch (type) {
                case BOOL -> {
                    if (v.isBoolean()) {
                        yield AttrValue.of(v.booleanValue());
                    }
                    long x = integer(v, vw);
                    if (x != 0 && x != 1) {
                        throw error(vw, "expected a bool as 0 or 1, got " + x);
                    }
                    yield AttrValue.of(x == 1);
                }
                case S64 -> AttrValue.of(integer(v, vw));
                case F32 -> AttrValue.of(floating(v, vw));
                case STRING -> AttrValue.of(text(v, vw));
                case S64_ARRAY -> {
                    List<JsonNode> items = array(v, vw);
                    long[] a = new long[items.size()];
                    for (int i = 0; i < a.length; i++) {
                        a[i] = integer(items.get(i), vw + "[" + i + "]");
                    }
                    yield AttrValue.of(a);
                }
                case F32_ARRAY -> {
                    List<JsonNode> items = array(v, vw);
                    float[] a = new float[items.size()];
                    for (int i = 0; i < a.length; i++) {
                        a[i] = floating(items.get(i), vw + "[" + i + "]");
                    }
                    yield AttrValue.of(a);
                }
            };
        }

        private LogicalTensor tensor(JsonNode n, String where) {
            if (n == null || !n.isObject()) {
                throw error(where, "expected a logical tensor object, got " + describe(n));
            }
            long id = integer(required(n, "id", where), where + ".id");
            String w = where + " (tensor " + id + ")";
            DataType dt = parseEnum(w + ".dtype", requiredText(n, "dtype", w), DataType::fromSpelling);
            List<JsonNode> shapeNodes = array(required(n, "shape", w), w + ".shape");
            long[] shape = new long[shapeNodes.size()];
            for (int i = 0; i < shape.length; i++) {
                shape[i] = integer(shapeNodes.get(i), w + ".shape[" + i + "]");
            }
            // oneDNN writes a tensor of unknown rank as the single dim INT64_MIN.
            boolean unknownRank = shape.length == 1 && shape[0] == LogicalTensor.UNKNOWN_DIM;
            LayoutType layout = n.has("layout_type")
                    ? parseEnum(w + ".layout_type", text(n.get("layout_type"), w + ".layout_type"), LayoutType::fromSpelling)
                    : LayoutType.STRIDED;
            long[] strides = null;
            if (n.has("stride")) {
                List<JsonNode> s = array(n.get("stride"), w + ".stride");
                strides = new long[s.size()];
                for (int i = 0; i < strides.length; i++) {
                    strides[i] = integer(s.get(i), w + ".stride[" + i + "]");
                }
            }
            PropertyType prop = n.has("property_type")
                    ? parseEnum(w + ".property_type", text(n.get("property_type"), w + ".property_type"),
                            PropertyType::fromSpelling)
                    : PropertyType.UNDEF;
            for (String key : iterable(n.fieldNames())) {
                if (!List.of("id", "dtype", "shape", "stride", "layout_type", "property_type", "layout_id")
                        .contains(key)) {
                    throw error(w, "unknown field '" + key + "'");
                }
            }
            try {
                if (unknownRank) {
                    return LogicalTensor.unknownRank(id, dt).withProperty(prop);
                }
                if (layout == LayoutType.OPAQUE) {
                    long layoutId = n.has("layout_id") ? integer(n.get("layout_id"), w + ".layout_id") : 0;
                    return LogicalTensor.opaque(id, dt, shape, layoutId, prop);
                }
                if (layout == LayoutType.STRIDED && strides != null) {
                    if (strides.length != shape.length) {
                        throw error(w + ".stride", strides.length + " strides for " + shape.length + " dims");
                    }
                    // Files write strides of unknown dims as INT64_MIN; keep them dense-unknown.
                    return LogicalTensor.of(id, dt, shape, layout, strides, prop);
                }
                return LogicalTensor.of(id, dt, shape, layout, null, prop);
            } catch (IllegalArgumentException | InvalidGraphException e) {
                throw error(w, e.getMessage());
            }
        }

        private <E> E parseEnum(String where, String text, java.util.function.Function<String, E> parse) {
            try {
                return parse.apply(text);
            } catch (IllegalArgumentException e) {
                throw error(where, e.getMessage());
            }
        }

        private JsonNode required(JsonNode n, String field, String where) {
            JsonNode v = n.get(field);
            if (v == null || v.isNull()) {
                throw error(where, "missing field '" + field + "'");
            }
            return v;
        }

        private String requiredText(JsonNode n, String field, String where) {
            return text(required(n, field, where), where + "." + field);
        }

        private String text(JsonNode v, String where) {
            if (!v.isTextual()) {
                throw error(where, "expected a string, got " + describe(v));
            }
            return v.textValue();
        }

        private long integer(JsonNode v, String where) {
            if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
                throw error(where, "expected a 64-bit integer, got " + describe(v));
            }
            return v.longValue();
        }

        private float floating(JsonNode v, String where) {
            if (v == null || !v.isNumber()) {
                throw error(where, "expected a number, got " + describe(v));
            }
            return v.floatValue();
        }

        private List<JsonNode> array(JsonNode v, String where) {
            if (v == null || !v.isArray()) {
                throw error(where, "expected an array, got " + describe(v));
            }
            List<JsonNode> items = new ArrayList<>(v.size());
            v.forEach(items::add);
            return items;
        }

        private List<Long> longList(JsonNode v, String where) {
            if (v == null) {
                return List.of();
            }
            List<Long> out = new ArrayList<>();
            List<JsonNode> items = array(v, where);
            for (int i = 0; i < items.size(); i++) {
                out.add(integer(items.get(i), where + "[" + i + "]"));
            }
            return out;
        }

        private static String describe(JsonNode n) {
            if (n == null || n.isMissingNode()) {
                return "nothing";
            }
            String s = n.toString();
            return (n.isContainerNode() ? n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT) + " " : "")
                    + (s.length() > 60 ? s.substring(0, 57) + "..." : s);
        }

        private static <T> Iterable<T> iterable(Iterator<T> it) {
            List<T> l = new ArrayList<>();
            it.forEachRemaining(l::add);
            return l;
        }
    }
}
