package io.partita.formats.onnx.internal.proto;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Decodes NodeProto and AttributeProto (field numbers from onnx.proto). */
final class NodeDecoder {
    private NodeDecoder() {
    }

    static NodeProto decode(Wire w) {
        String name = "";
        String opType = "";
        String domain = "";
        List<String> inputs = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        List<AttributeProto> attrs = new ArrayList<>();
        while (w.next()) {
            switch (w.field()) {
                case 1 -> inputs.add(w.string("input"));
                case 2 -> outputs.add(w.string("output"));
                case 3 -> name = w.string("name");
                case 4 -> opType = w.string("op_type");
                case 5 -> attrs.add(attribute(w.message("attribute", "attribute[" + attrs.size() + "]")));
                case 7 -> domain = w.string("domain");
                default -> w.skip(); // doc_string, overload, metadata
            }
        }
        if (opType.isEmpty()) {
            throw w.error("node '" + name + "' has no op_type");
        }
        return new NodeProto(name, opType, domain, inputs, outputs, attrs);
    }

    static AttributeProto attribute(Wire w) {
        String name = "";
        int type = 0;
        float f = 0;
        long i = 0;
        byte[] s = null;
        TensorProto t = null;
        Wire.LongList floats = new Wire.LongList();
        Wire.LongList ints = new Wire.LongList();
        List<byte[]> strings = new ArrayList<>();
        String ref = "";
        boolean sawGraphOrOther = false;
        while (w.next()) {
            switch (w.field()) {
                case 1 -> name = w.string("name");
                case 2 -> f = w.float32("f");
                case 3 -> i = w.int64("i");
                case 4 -> s = w.bytes("s");
                case 5 -> t = TensorDecoder.decode(w.message("t", "t"));
                case 7 -> w.fixed32s("floats", floats);
                case 8 -> w.varints("ints", ints);
                case 9 -> strings.add(w.bytes("strings"));
                case 20 -> type = (int) w.int64("type");
                case 21 -> ref = w.string("ref_attr_name");
                default -> {
                    // graphs, tensors, sparse tensors, type protos: kept only as their type number
                    sawGraphOrOther = true;
                    w.skip();
                }
            }
        }
        if (name.isEmpty()) {
            throw w.error("attribute without a name");
        }
        if (type == 0 && !sawGraphOrOther) {
            // IR version 1 files carry no type discriminator: infer it from the field that is set.
            type = t != null ? AttributeProto.TENSOR : s != null ? AttributeProto.STRING
                    : ints.size() > 0 ? AttributeProto.INTS : floats.size() > 0 ? AttributeProto.FLOATS
                    : !strings.isEmpty() ? AttributeProto.STRINGS : f != 0 ? AttributeProto.FLOAT : AttributeProto.INT;
        }
        return new AttributeProto(name, type, f, i, s, t, floats.toFloats(), ints.toArray(), strings, ref);
    }

    static String utf8(byte[] b) {
        return b == null ? "" : new String(b, StandardCharsets.UTF_8);
    }
}
