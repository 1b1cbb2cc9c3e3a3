package io.partita.cache;

/** A malformed cache setting; the message quotes it and the expected form. The previous setting stays. */
public class InvalidCacheSettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidCacheSettingException(String message) {
        super(message);
    }
}
