package io.partita.cli.run;

/** A file, graph or option the user gave that cannot be used; the message says why. */
public final class BadInputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BadInputException(String message) {
        super(message);
    }
}
