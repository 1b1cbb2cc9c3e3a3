/**
 * Decoding of ONNX protobuf messages (ModelProto, GraphProto, NodeProto, AttributeProto,
 * TensorProto, ValueInfoProto) from the wire format with protobuf-java's {@code CodedInputStream}.
 * The message layouts are written here from the field numbers of ONNX's IR specification
 * ({@code onnx.proto}); no generated code. Fields this importer does not use are skipped.
 */
package io.partita.formats.onnx.internal.proto;
