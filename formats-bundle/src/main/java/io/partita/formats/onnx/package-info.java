/**
 * ONNX model import: {@link io.partita.formats.onnx.OnnxModels#read} turns an ONNX {@code ModelProto}
 * into a oneDNN-style graph description plus the values of its initializers; TensorProto files
 * (ONNX test data) read into {@link io.partita.formats.onnx.OnnxTensor}s.
 */
@Export
@Version("0.2.0")
package io.partita.formats.onnx;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
