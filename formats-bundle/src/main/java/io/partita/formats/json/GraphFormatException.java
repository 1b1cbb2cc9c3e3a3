package io.partita.formats.json;

import io.partita.graph.PartitaException;

/** A graph file that is not valid oneDNN graph JSON; the message names the file, place and expected form. */
public class GraphFormatException extends PartitaException {
    private static final long serialVersionUID = 1L;

    public GraphFormatException(String message) {
        super(message);
    }

    public GraphFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
