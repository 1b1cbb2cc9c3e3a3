package io.partita.cache;

/** Creating a kernel cache value failed; nothing was cached for its key. */
public class KernelCreationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KernelCreationException(String message, Throwable cause) {
        super(message, cause);
    }
}
