package io.partita.formats.onnx.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The translators of each supported ONNX op type, by the op version each implements. ONNX gives
 * a node the newest version of its op that is not above the model's opset; {@link #find} picks the
 * translator registered at that version. An op is registered at every version of it (in the
 * supported opset range) whose semantics a translator handles, so a version nobody registered is
 * never silently given another version's meaning: a model whose opset is below the lowest
 * registered version of an op is refused for that op.
 */
final class Translators {
    /** A translator and the op version it was registered at (the node's op version). */
    record Entry(NodeTranslator translator, int version) {
    }

    private static final Map<String, NavigableMap<Integer, NodeTranslator>> ENTRIES = build();

    private Translators() {
    }

    private static Map<String, NavigableMap<Integer, NodeTranslator>> build() {
        Map<String, NavigableMap<Integer, NodeTranslator>> m = new HashMap<>();
        ElementwiseTranslators.register(m);
        LinearTranslators.register(m);
        PoolNormTranslators.register(m);
        ShapeTranslators.register(m);
        ActivationTranslators.register(m);
        IndexTranslators.register(m);
        SliceTranslators.register(m);
        QuantTranslators.register(m);
        return m;
    }

    /** Whether any version of the op has a translator. */
    static boolean known(String opType) {
        return ENTRIES.containsKey(opType);
    }

    /** The lowest version of the op with a translator, or -1 when there is none. */
    static int lowestVersion(String opType) {
        NavigableMap<Integer, NodeTranslator> v = ENTRIES.get(opType);
        return v == null ? -1 : v.firstKey();
    }

    /** The translator of the op's version at {@code opset}, or null when none is registered. */
    static Entry find(String opType, long opset) {
        NavigableMap<Integer, NodeTranslator> v = ENTRIES.get(opType);
        if (v == null) {
            return null;
        }
        Map.Entry<Integer, NodeTranslator> e = v.floorEntry((int) Math.min(opset, Integer.MAX_VALUE));
        return e == null ? null : new Entry(e.getValue(), e.getKey());
    }

    /** Registers {@code t} as the translation of the op at each of {@code versions}. */
    static void add(Map<String, NavigableMap<Integer, NodeTranslator>> m, String opType, int[] versions,
            NodeTranslator t) {
        NavigableMap<Integer, NodeTranslator> v = m.computeIfAbsent(opType, k -> new TreeMap<>());
        for (int version : versions) {
            if (v.put(version, t) != null) {
                throw new IllegalStateException("two translators for " + opType + " version " + version);
            }
        }
    }

    /** The versions, for registration: {@code v(1, 6, 13)}. */
    static int[] v(int... versions) {
        return versions;
    }
}
