package io.partita.formats.onnx.internal.proto;

/**
 * A protobuf stream that is not a well-formed ONNX message; the message names the source, the
 * message path (e.g. {@code ModelProto.graph.node[3].attribute[1]}) and what was expected.
 */
public final class OnnxFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OnnxFormatException(String message) {
        super(message);
    }

    public OnnxFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
