package io.partita.graph;

/** Base of every error the runtime reports. Messages name the op, tensor or setting at fault. */
public class PartitaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PartitaException(String message) {
        super(message);
    }

    public PartitaException(String message, Throwable cause) {
        super(message, cause);
    }
}
