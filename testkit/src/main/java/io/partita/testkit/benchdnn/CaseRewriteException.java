package io.partita.testkit.benchdnn;

import io.partita.graph.PartitaException;

/** A case option that cannot be applied; the message quotes it and says what was expected. */
public class CaseRewriteException extends PartitaException {
    private static final long serialVersionUID = 1L;

    public CaseRewriteException(String message) {
        super(message);
    }
}
