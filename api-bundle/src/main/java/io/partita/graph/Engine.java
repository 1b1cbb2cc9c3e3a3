package io.partita.graph;

/**
 * A device of some {@link EngineKind}, identified by its index among the devices of that kind.
 * Engines are values: two engines of the same kind and index are the same device.
 */
public record Engine(EngineKind kind, int index) {

    public Engine {
        if (kind == null) {
            throw new IllegalArgumentException("engine kind must not be null");
        }
        if (index < 0) {
            throw new IllegalArgumentException("engine index must be >= 0, got " + index);
        }
    }

    /** The first CPU engine. */
    public static Engine cpu() {
        return new Engine(EngineKind.CPU, 0);
    }

    @Override
    public String toString() {
        return kind.spelling() + (index == 0 && kind == EngineKind.CPU ? "" : "." + index);
    }
}
