package io.partita.formats.json;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;

import io.partita.graph.AttrValue;
import io.partita.graph.GraphDescription;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/** Writes oneDNN graph JSON, field for field as oneDNN's dump does. */
final class GraphJsonWriter {
    private static final JsonFactory FACTORY = new JsonFactory();

    private GraphJsonWriter() {
    }

    public static void write(GraphDescription d, OutputStream out) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            g.setPrettyPrinter(new DefaultPrettyPrinter());
            g.writeStartObject();
            g.writeStringField("version", d.version());
            g.writeStringField("engine_kind", d.engineKind().spelling());
            g.writeStringField("fpmath_mode", d.fpMathMode().spelling());
            g.writeStringField("fpmath_mode_apply_to_int", Boolean.toString(d.fpMathApplyToInt()));
            if (!d.inputPorts().isEmpty() || !d.outputPorts().isEmpty()) {
                writeIds(g, "input_ports", d.inputPorts());
                writeIds(g, "output_ports", d.outputPorts());
            }
            g.writeArrayFieldStart("graph");
            for (Op op : d.ops()) {
                writeOp(g, op);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    private static void writeIds(JsonGenerator g, String name, java.util.List<Long> ids) throws IOException {
        g.writeArrayFieldStart(name);
        for (long id : ids) {
            g.writeNumber(id);
        }
        g.writeEndArray();
    }

    private static void writeOp(JsonGenerator g, Op op) throws IOException {
        g.writeStartObject();
        g.writeNumberField("id", op.id());
        g.writeStringField("name", op.name());
        g.writeStringField("kind", op.kind().spelling());
        g.writeObjectFieldStart("attrs");
        for (Map.Entry<String, AttrValue> e : op.attrs().entrySet()) {
            AttrValue v = e.getValue();
            g.writeObjectFieldStart(e.getKey());
            g.writeStringField("type", v.type().spelling());
            g.writeFieldName("value");
            switch (v.type()) {
                case BOOL -> g.writeNumber(v.asBool() ? 1 : 0);
                case S64 -> g.writeNumber(v.asLong());
                case F32 -> g.writeNumber(v.asFloat());
                case STRING -> g.writeString(v.asString());
                case S64_ARRAY -> {
                    g.writeStartArray();
                    for (long x : v.asLongs()) {
                        g.writeNumber(x);
                    }
                    g.writeEndArray();
                }
                case F32_ARRAY -> {
                    g.writeStartArray();
                    for (float x : v.asFloats()) {
                        g.writeNumber(x);
                    }
                    g.writeEndArray();
                }
            }
            g.writeEndObject();
        }
        g.writeEndObject();
        g.writeArrayFieldStart("inputs");
        for (LogicalTensor t : op.inputs()) {
            writeTensor(g, t);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("outputs");
        for (LogicalTensor t : op.outputs()) {
            writeTensor(g, t);
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void writeTensor(JsonGenerator g, LogicalTensor t) throws IOException {
        g.writeStartObject();
        g.writeNumberField("id", t.id());
        g.writeStringField("dtype", t.dataType().spelling());
        g.writeArrayFieldStart("shape");
        long[] dims = t.dims();
        if (dims != null) {
            for (long d : dims) {
                g.writeNumber(d);
            }
        } else {
            g.writeNumber(LogicalTensor.UNKNOWN_DIM); // oneDNN's spelling of an unknown rank
        }
        g.writeEndArray();
        g.writeArrayFieldStart("stride");
        if (t.layoutType() == LayoutType.STRIDED && t.strides() != null) {
            for (long s : t.strides()) {
                g.writeNumber(s);
            }
        }
        g.writeEndArray();
        g.writeStringField("layout_type", t.layoutType().spelling());
        if (t.layoutType() == LayoutType.OPAQUE) {
            g.writeNumberField("layout_id", t.layoutId());
        }
        g.writeStringField("property_type", t.property().spelling());
        g.writeEndObject();
    }
}
