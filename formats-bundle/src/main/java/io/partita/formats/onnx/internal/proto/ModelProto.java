package io.partita.formats.onnx.internal.proto;

import java.util.Map;

/**
 * A decoded ModelProto.
 *
 * @param opsets the imported operator sets: domain ("" is the default ai.onnx domain) to version
 * @param functions the number of model-local functions (not supported, reported when used)
 */
public record ModelProto(long irVersion, Map<String, Long> opsets, String producerName, GraphProto graph,
        int functions) {
}
