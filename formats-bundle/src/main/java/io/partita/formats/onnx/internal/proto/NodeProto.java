package io.partita.formats.onnx.internal.proto;

import java.util.List;

/** A decoded NodeProto; an empty input name means an omitted optional input. */
public record NodeProto(String name, String opType, String domain, List<String> inputs, List<String> outputs,
        List<AttributeProto> attributes) {
}
