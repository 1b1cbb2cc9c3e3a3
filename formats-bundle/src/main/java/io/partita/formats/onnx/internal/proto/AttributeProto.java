package io.partita.formats.onnx.internal.proto;

import java.util.List;

/**
 * A decoded AttributeProto.
 *
 * @param type the AttributeType number (FLOAT 1, INT 2, STRING 3, TENSOR 4, GRAPH 5, FLOATS 6, INTS 7,
 *     STRINGS 8, TENSORS 9, GRAPHS 10, SPARSE_TENSOR 11, SPARSE_TENSORS 12, TYPE_PROTO 13, TYPE_PROTOS 14)
 * @param refAttrName set inside functions only; never valid in a model's main graph
 */
public record AttributeProto(String name, int type, float f, long i, byte[] s, TensorProto t, float[] floats,
        long[] ints, List<byte[]> strings, String refAttrName) {

    public static final int FLOAT = 1;
    public static final int INT = 2;
    public static final int STRING = 3;
    public static final int TENSOR = 4;
    public static final int GRAPH = 5;
    public static final int FLOATS = 6;
    public static final int INTS = 7;
    public static final int STRINGS = 8;

    /** The attribute type's name, for messages. */
    public static String typeName(int type) {
        return switch (type) {
            case 0 -> "UNDEFINED";
            case FLOAT -> "FLOAT";
            case INT -> "INT";
            case STRING -> "STRING";
            case TENSOR -> "TENSOR";
            case GRAPH -> "GRAPH";
            case FLOATS -> "FLOATS";
            case INTS -> "INTS";
            case STRINGS -> "STRINGS";
            case 9 -> "TENSORS";
            case 10 -> "GRAPHS";
            case 11 -> "SPARSE_TENSOR";
            case 12 -> "SPARSE_TENSORS";
            case 13 -> "TYPE_PROTO";
            case 14 -> "TYPE_PROTOS";
            default -> "type " + type;
        };
    }
}
