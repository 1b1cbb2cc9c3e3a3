package io.partita.formats.onnx;

import io.partita.graph.PartitaException;

/**
 * An ONNX file that cannot be imported: malformed or truncated protobuf, unknown data type,
 * missing initializer, an opset outside the supported range, a graph that breaks ONNX's rules.
 * The message names the file, the offending item and what was expected.
 */
public class OnnxImportException extends PartitaException {
    private static final long serialVersionUID = 1L;

    public OnnxImportException(String message) {
        super(message);
    }

    public OnnxImportException(String message, Throwable cause) {
        super(message, cause);
    }
}
