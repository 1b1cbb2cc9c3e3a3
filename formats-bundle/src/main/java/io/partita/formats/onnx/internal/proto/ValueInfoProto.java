package io.partita.formats.onnx.internal.proto;

/**
 * A decoded ValueInfoProto of a tensor type.
 *
 * @param elemType the ONNX element type number, 0 when absent
 * @param hasShape whether a shape was given (a missing shape means unknown rank)
 * @param dims each dim's value, or -1 when it is symbolic or unknown
 * @param dimParams each dim's symbolic name, or null
 * @param tensorType false when the type is not a tensor (sequence, map, optional, sparse)
 */
public record ValueInfoProto(String name, int elemType, boolean hasShape, long[] dims, String[] dimParams,
        boolean tensorType) {
}
