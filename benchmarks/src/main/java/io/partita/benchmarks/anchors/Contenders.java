package io.partita.benchmarks.anchors;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The registry of contenders, from the name given to {@code --contenders} to a factory. Child JVMs
 * look their contender up here by name, so a contender must be registered in this class (not at
 * run time from the parent).
 *
 * <p>{@code anchors} runs every registered contender by default; each case line gets
 * {@code ratio_vs_onednn} and {@code ratio_vs_ort} (Partita's throughput divided by theirs).
 */
public final class Contenders {
    /** The name the report computes ratios for. */
    public static final String PARTITA = "partita";
    public static final String ONEDNN = "onednn";
    public static final String ORT = "ort";
    /**
     * Partita's gpu backend on OpenCL device gpu.0 (PoCL's CPU device here): on request only, since it
     * needs an OpenCL driver; its lines get {@code ratio_gpu_vs_dnnl} (its throughput over the
     * DNNL-style backend's on the CPU).
     */
    public static final String GPU = "gpu";

    private static final Map<String, Contender.Factory> REGISTRY;

    static {
        Map<String, Contender.Factory> m = new LinkedHashMap<>();
        m.put(PARTITA, PartitaContender::new);
        m.put(ONEDNN, OneDnnContender::new);
        m.put(ORT, OrtContender::new);
        m.put(GPU, PartitaContender::gpu);
        REGISTRY = Collections.unmodifiableMap(m);
    }

    /** The contenders {@code anchors} runs when {@code --contenders} is not given. */
    public static java.util.List<String> defaults() {
        return java.util.List.of(PARTITA, ONEDNN, ORT);
    }

    private Contenders() {
    }

    /** Registered contenders by name, in default run order. */
    public static Map<String, Contender.Factory> all() {
        return REGISTRY;
    }

    /**
     * Whether contender {@code name} runs case {@code c}: the onednn contender builds its primitives
     * per op kind and has no model importer, so it skips the network cases (their lines carry only
     * {@code ratio_vs_ort}), nor does the gpu contender (single-op cases only).
     */
    public static boolean runs(String name, Case c) {
        return !((name.equals(ONEDNN) || name.equals(GPU)) && c instanceof Case.Network);
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
