package io.partita.formats.onnx.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.formats.onnx.internal.proto.ModelDecoder;
import io.partita.formats.onnx.internal.proto.NodeProto;
import io.partita.formats.onnx.internal.proto.OnnxFormatException;
import io.partita.formats.onnx.internal.proto.TensorDecoder;
import io.partita.formats.onnx.internal.proto.ValueInfoProto;
import io.partita.graph.OpSchemaRegistry;

/** Protobuf decoding plus translation behind {@link OnnxModels} (registered in META-INF/services). */
public final class OnnxDecoder implements OnnxModels.Decoder {

    @Override
    public OnnxModel read(OpSchemaRegistry schemas, byte[] bytes, String source, Map<String, Long> dimValues) {
        try {
            return GraphImporter.importModel(schemas, ModelDecoder.decode(bytes, source), source, dimValues);
        } catch (OnnxFormatException e) {
            throw new OnnxImportException(e.getMessage(), e);
        }
    }

    @Override
    public OnnxTensor readTensor(byte[] bytes, String source) {
        try {
            return TensorValues.toTensor(TensorDecoder.decode(bytes, source), source, "tensor");
        } catch (OnnxFormatException e) {
            throw new OnnxImportException(e.getMessage(), e);
        }
    }

    @Override
    public List<String> nodeOpTypes(byte[] bytes, String source) {
        try {
            List<String> ops = new ArrayList<>();
            for (NodeProto n : ModelDecoder.decode(bytes, source).graph().nodes()) {
                if (!ops.contains(n.opType())) {
                    ops.add(n.opType());
                }
            }
            return ops;
        } catch (OnnxFormatException e) {
            throw new OnnxImportException(e.getMessage(), e);
        }
    }

    @Override
    public Map<String, List<String>> inputDimParams(byte[] bytes, String source) {
        try {
            Map<String, List<String>> out = new java.util.LinkedHashMap<>();
            for (ValueInfoProto in : ModelDecoder.decode(bytes, source).graph().inputs()) {
                if (in.hasShape()) {
                    // Arrays.asList: the names may be null (fixed dims), which List.of refuses
                    out.put(in.name(), java.util.Collections.unmodifiableList(java.util.Arrays.asList(in.dimParams().clone())));
                }
            }
            return out;
        } catch (OnnxFormatException e) {
            throw new OnnxImportException(e.getMessage(), e);
        }
    }
}
