package io.partita.formats.onnx.internal.proto;

import java.util.List;

/** A decoded GraphProto (nodes in the file's order, which ONNX requires to be topological). */
public record GraphProto(String name, List<NodeProto> nodes, List<TensorProto> initializers, int sparseInitializers,
        List<ValueInfoProto> inputs, List<ValueInfoProto> outputs, List<ValueInfoProto> valueInfo) {
}
