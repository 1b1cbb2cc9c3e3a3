package io.partita.cache;

/** Computing a constant tensor failed; the cache holds nothing for its key, so the next caller retries. */
public class ConstantProductionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConstantProductionException(String message, Throwable cause) {
        super(message, cause);
    }
}
