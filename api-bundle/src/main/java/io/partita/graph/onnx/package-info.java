/**
 * ONNX model import: {@link io.partita.graph.onnx.OnnxModels#read} turns an ONNX {@code ModelProto}
 * into a oneDNN-style graph description plus the values of its initializers, and
 * {@link io.partita.graph.onnx.OnnxConformance} runs ONNX node-test folders (model + golden
 * TensorProto inputs/outputs) on a runtime and classifies each as pass, unsupported or fail.
 */
@Export
@Version("0.1.0")
package io.partita.graph.onnx;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
