package io.partita.formats.onnx.internal;

import java.util.HashMap;
import java.util.Map;

/** The translator of each supported ONNX op type, with the opset version the op first appeared in. */
final class Translators {
    record Entry(NodeTranslator translator, int since) {
    }

    private static final Map<String, Entry> ENTRIES = build();

    private Translators() {
    }

    private static Map<String, Entry> build() {
        Map<String, Entry> m = new HashMap<>();
        ElementwiseTranslators.register(m);
        LinearTranslators.register(m);
        PoolNormTranslators.register(m);
        ShapeTranslators.register(m);
        return m;
    }

    static Entry find(String opType) {
        return ENTRIES.get(opType);
    }

    static void add(Map<String, Entry> m, String opType, int since, NodeTranslator t) {
        if (m.put(opType, new Entry(t, since)) != null) {
            throw new IllegalStateException("two translators for " + opType);
        }
    }
}
