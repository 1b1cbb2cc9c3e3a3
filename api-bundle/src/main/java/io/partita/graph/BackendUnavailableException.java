package io.partita.graph;

/**
 * The backend that compiled a partition has gone away (its bundle stopped or was updated).
 * Partition the graph again to use the backends present now.
 */
public class BackendUnavailableException extends PartitaException {
    private static final long serialVersionUID = 1L;
    private final String backendId;

    public BackendUnavailableException(String backendId, String message) {
        super(message);
        this.backendId = backendId;
    }

    public String backendId() {
        return backendId;
    }
}
