package io.partita.runtime.schema;

import io.partita.graph.Op;

/**
 * A check of one op beyond arity, attribute types and data types (e.g. attribute lengths that
 * must match each other). Throws {@link io.partita.graph.InvalidGraphException} naming the op.
 */
@FunctionalInterface
public interface OpValidator {
    void validate(Op op);
}
