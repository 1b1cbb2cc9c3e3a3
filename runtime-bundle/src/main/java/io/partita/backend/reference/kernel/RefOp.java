package io.partita.backend.reference.kernel;

/** The reference implementation of one op kind: exact, in double precision. */
@FunctionalInterface
public interface RefOp {
    void compute(RefContext ctx);
}
