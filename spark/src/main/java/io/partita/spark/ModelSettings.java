package io.partita.spark;

import java.io.Serializable;

import io.partita.graph.Engine;
import io.partita.graph.EngineKind;

/**
 * What decides a compiled graph besides the model file: executors keep one per (model digest, these
 * settings).
 *
 * @param engine {@code cpu}, {@code gpu} or {@code gpu:N}
 * @param miniBatchSize rows per execution when the model leaves the batch dim open
 * @param constantSeed seed of the synthetic constants of a graph JSON file (which carries no values)
 * @param runtime the runtime's settings
 */
public record ModelSettings(String engine, int miniBatchSize, long constantSeed, RuntimeSettings runtime)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The engine named by {@link #engine}, e.g. {@code gpu:1} is the second OpenCL device. */
    public Engine toEngine() {
        return parseEngine(engine);
    }

    static Engine parseEngine(String text) {
        String t = text.trim();
        int colon = t.indexOf(':');
        String kind = colon < 0 ? t : t.substring(0, colon);
        int index = 0;
        if (colon >= 0) {
            try {
                index = Integer.parseInt(t.substring(colon + 1));
            } catch (NumberFormatException e) {
                index = -1;
            }
        }
        EngineKind k;
        try {
            k = EngineKind.fromSpelling(kind);
        } catch (RuntimeException e) {
            k = null;
        }
        if (k == null || index < 0) {
            throw new IllegalArgumentException("engine '" + text + "' is not an engine; expected cpu, gpu or gpu:N");
        }
        return new Engine(k, index);
    }
}
