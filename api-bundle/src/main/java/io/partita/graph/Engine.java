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

    // Written out: a record's generated equals/hashCode is bootstrapped on first use, a cost every
    // compile key pays in a fresh JVM
    @Override
    public boolean equals(Object o) {
        return o instanceof Engine e && e.kind == kind && e.index == index;
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + index;
    }

    @Override
    public String toString() {
        return kind.spelling() + (index == 0 && kind == EngineKind.CPU ? "" : "." + index);
    }
}
