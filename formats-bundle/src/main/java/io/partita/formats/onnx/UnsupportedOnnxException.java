package io.partita.formats.onnx;

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
        this("unsupported ONNX op " + opType + " (opset " + opset + ") at node " + node
                + (reason == null || reason.isEmpty() ? "" : ": " + reason), opType, opset, node);
    }

    private UnsupportedOnnxException(String message, String opType, long opset, String node) {
        super(message);
        this.opType = opType;
        this.opset = opset;
        this.node = node;
    }

    /**
     * Something unsupported that is not a node: a graph input's type or shape, a tensor's data type,
     * sparse or external data ({@code what} is e.g. "graph input 'x'").
     */
    public static UnsupportedOnnxException ofItem(String what, long opset, String reason) {
        return new UnsupportedOnnxException("unsupported ONNX " + what + (opset > 0 ? " (opset " + opset + ")" : "")
                + ": " + reason, what, opset, "");
    }

    /** The ONNX op type (e.g. {@code Conv}), or the item ({@link #ofItem}) for limits outside nodes. */
    public String opType() {
        return opType;
    }

    public long opset() {
        return opset;
    }

    /** The node's name, or its first output's name when the node has none; empty for {@link #ofItem}. */
    public String node() {
        return node;
    }
}
