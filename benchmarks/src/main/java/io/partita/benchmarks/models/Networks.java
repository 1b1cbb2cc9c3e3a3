package io.partita.benchmarks.models;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The network models by name, each built at most once per JVM (ResNet-50's bytes are ~100 MB):
 * the anchors' network cases ({@link #names()}) and the model zoo's classics ({@link ModelZoo}).
 */
public final class Networks {
    private static final Map<String, Supplier<NetworkModel>> BUILDERS = Map.of(
            ResNet50.NAME, ResNet50::build,
            BertLayer.NAME, BertLayer::build);
    private static final Map<String, NetworkModel> BUILT = new ConcurrentHashMap<>();

    private Networks() {
    }

    /** The names, in report order. */
    public static List<String> names() {
        return List.of(ResNet50.NAME, BertLayer.NAME);
    }

    /** The model {@code name}, built on first use. */
    public static NetworkModel get(String name) {
        Supplier<NetworkModel> s = BUILDERS.containsKey(name) ? BUILDERS.get(name) : ModelZoo.builder(name);
        if (s == null) {
            throw new IllegalArgumentException("unknown network " + name + "; known: " + names() + " and the model zoo's "
                    + ModelZoo.names());
        }
        return BUILT.computeIfAbsent(name, n -> s.get());
    }
}
