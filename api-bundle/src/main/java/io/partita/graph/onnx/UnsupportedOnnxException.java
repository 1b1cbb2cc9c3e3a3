package io.partita.graph.onnx;

/**
 * A well-formed model using something this importer does not translate: an op, an attribute or
 * attribute value, a data type. Never silently dropped or approximated: the message reads
 * "unsupported ONNX op X (opset N) at node Y: reason".
 */
public final class UnsupportedOnnxException extends OnnxImportException {
    private static final long serialVersionUID = 1L;
    private final String opType;
    private final long opset;
    private final String node;

    public UnsupportedOnnxException(String opType, long opset, String node, String reason) {
        super("unsupported ONNX op " + opType + " (opset " + opset + ") at node " + node
                + (reason == null || reason.isEmpty() ? "" : ": " + reason));
        this.opType = opType;
        this.opset = opset;
        this.node = node;
    }

    /** The ONNX op type (e.g. {@code Conv}), or a data type / feature name for graph-level limits. */
    public String opType() {
        return opType;
    }

    public long opset() {
        return opset;
    }

    /** The node's name, or its first output's name when the node has none. */
    public String node() {
        return node;
    }
}
