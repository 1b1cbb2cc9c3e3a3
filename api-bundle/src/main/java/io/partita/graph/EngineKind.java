package io.partita.graph;

import java.util.Arrays;
import java.util.Locale;

/** The kind of device a graph, partition or engine targets. */
public enum EngineKind {
    CPU("cpu"),
    GPU("gpu");

    private final String spelling;

    EngineKind(String spelling) {
        this.spelling = spelling;
    }

    /** The name used in oneDNN graph JSON files and configuration values ({@code cpu}, {@code gpu}). */
    public String spelling() {
        return spelling;
    }

    /** Parses {@code cpu} or {@code gpu} (any case). */
    public static EngineKind fromSpelling(String text) {
        for (EngineKind k : values()) {
            if (k.spelling.equals(text == null ? null : text.trim().toLowerCase(Locale.ROOT))) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown engine kind '" + text + "': expected one of "
                + Arrays.stream(values()).map(EngineKind::spelling).toList());
    }

    @Override
    public String toString() {
        return spelling;
    }
}
