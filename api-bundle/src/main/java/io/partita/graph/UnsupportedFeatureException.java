package io.partita.graph;

/** A valid request that no available implementation supports, e.g. "unsupported data type s4 in op 3". */
public class UnsupportedFeatureException extends PartitaException {
    private static final long serialVersionUID = 1L;

    public UnsupportedFeatureException(String message) {
        super(message);
    }
}
