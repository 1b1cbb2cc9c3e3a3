/**
 * ONNX to oneDNN op translation (private): one translator per ONNX op, constant folding at
 * import, and the validation of each translated op against the runtime's op rules.
 */
package io.partita.formats.onnx.internal;
