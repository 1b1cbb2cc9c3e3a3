/**
 * The ONNX node-test runner: runs test folders (a model plus golden TensorProto inputs and
 * outputs) on a runtime and classifies each as pass, unsupported or fail, with per-op tolerances.
 */
@Export
@Version("0.1.0")
package io.partita.testkit.onnx;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
