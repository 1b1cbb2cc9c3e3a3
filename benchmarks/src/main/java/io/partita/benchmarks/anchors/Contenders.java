package io.partita.benchmarks.anchors;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The registry of contenders, from the name given to {@code --contenders} to a factory. Child JVMs
 * look their contender up here by name, so a contender must be registered in this class (not at
 * run time from the parent).
 *
 * <h2>Adding Partita</h2>
 * Partita's side is not implemented here. To add it, write a {@code PartitaContender implements
 * Contender} in this package (build the graph for the {@link Case} with the constant weights in
 * {@code prepare}, execute it in {@code runOnce}, copy the output out in {@code output}, honour the
 * thread count passed to the factory), add the module it needs to {@code benchmarks/pom.xml}, and
 * add one line below:
 * <pre>{@code
 *     m.put(PARTITA, PartitaContender::new);
 * }</pre>
 * From then on {@code anchors} runs it by default, and each case line gets
 * {@code ratio_vs_onednn} and {@code ratio_vs_ort} (Partita's throughput divided by theirs).
 */
public final class Contenders {
    /** The name the report computes ratios for. */
    public static final String PARTITA = "partita";
    public static final String ONEDNN = "onednn";
    public static final String ORT = "ort";

    private static final Map<String, Contender.Factory> REGISTRY;

    static {
        Map<String, Contender.Factory> m = new LinkedHashMap<>();
        // m.put(PARTITA, PartitaContender::new);   <- the hook for Partita (see the class comment)
        m.put(ONEDNN, OneDnnContender::new);
        m.put(ORT, OrtContender::new);
        REGISTRY = Collections.unmodifiableMap(m);
    }

    private Contenders() {
    }

    /** Registered contenders by name, in default run order. */
    public static Map<String, Contender.Factory> all() {
        return REGISTRY;
    }

    /** The factory registered under {@code name}. */
    public static Contender.Factory factory(String name) {
        Contender.Factory f = REGISTRY.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown contender " + name + "; registered: " + REGISTRY.keySet());
        }
        return f;
    }
}
