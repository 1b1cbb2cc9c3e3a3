package io.partita.backend.dnnl.internal.primitive;

/**
 * The selected, specialised computation for one descriptor: immutable, created once per
 * descriptor (kept in the primitive cache) and executed by many threads at once.
 */
@FunctionalInterface
public interface Primitive {
    void execute(Invocation inv);
}
