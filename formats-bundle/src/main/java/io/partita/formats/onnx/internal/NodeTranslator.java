package io.partita.formats.onnx.internal;

/**
 * Translates the node being imported ({@link ImportContext#node()}) into Partita ops or constant
 * values, binding every output. Throws {@link io.partita.formats.onnx.UnsupportedOnnxException} for
 * anything it does not express exactly.
 */
@FunctionalInterface
interface NodeTranslator {
    void translate(ImportContext ctx);
}
