package io.partita.graph;

/**
 * Arguments to compile, infer or execute that do not fit the partition: unknown tensor ids,
 * dims contradicting the compiled ones, a buffer of the wrong size, a tensor over a dynamic dim.
 */
public class InvalidArgumentException extends PartitaException {
    private static final long serialVersionUID = 1L;

    public InvalidArgumentException(String message) {
        super(message);
    }
}
