package io.partita.graph;

import java.util.OptionalLong;

/**
 * A graph, op, attribute or shape that breaks the op set's rules: unknown op kind, missing or
 * mistyped attribute, wrong arity, cycle, contradicting shapes. The message names the op and
 * what was expected.
 */
public class InvalidGraphException extends PartitaException {
    private static final long serialVersionUID = 1L;
    private final Long opId;

    public InvalidGraphException(String message) {
        super(message);
        this.opId = null;
    }

    public InvalidGraphException(long opId, String message) {
        super(message);
        this.opId = opId;
    }

    public InvalidGraphException(String message, Throwable cause) {
        super(message, cause);
        this.opId = null;
    }

    /** The id of the op at fault, when one op is. */
    public OptionalLong opId() {
        return opId == null ? OptionalLong.empty() : OptionalLong.of(opId);
    }
}
