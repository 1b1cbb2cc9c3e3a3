package io.partita.formats.onnx.internal.proto;

import java.util.LinkedHashMap;
import java.util.Map;

/** Decodes ModelProto and its OperatorSetIdProto entries (field numbers from onnx.proto). */
public final class ModelDecoder {
    private ModelDecoder() {
    }

    public static ModelProto decode(byte[] bytes, String source) {
        Wire w = Wire.of(bytes, source, "ModelProto");
        long ir = 0;
        Map<String, Long> opsets = new LinkedHashMap<>();
        String producer = "";
        GraphProto graph = null;
        int functions = 0;
        while (w.next()) {
            switch (w.field()) {
                case 1 -> ir = w.int64("ir_version");
                case 2 -> producer = w.string("producer_name");
                case 7 -> graph = GraphDecoder.decode(w.message("graph", "graph"));
                case 8 -> {
                    Wire o = w.message("opset_import", "opset_import[" + opsets.size() + "]");
                    String domain = "";
                    long version = -1;
                    while (o.next()) {
                        switch (o.field()) {
                            case 1 -> domain = o.string("domain");
                            case 2 -> version = o.int64("version");
                            default -> o.skip();
                        }
                    }
                    opsets.put(domain.equals("ai.onnx") ? "" : domain, version);
                }
                case 25 -> {
                    w.skip();
                    functions++;
                }
                default -> w.skip(); // producer_version, domain, model_version, doc_string, metadata, training info
            }
        }
        if (graph == null) {
            throw w.error("no graph (field 7): not an ONNX model, or a truncated one");
        }
        if (ir <= 0) {
            throw w.error("no ir_version (field 1): not an ONNX model");
        }
        return new ModelProto(ir, opsets, producer, graph, functions);
    }
}
