package io.partita.graph;

import java.util.Locale;

/**
 * Blobs given to {@link Partition#compileFromBlobs} were refused; nothing was compiled from them and
 * nothing of them runs. Compile the partition from scratch instead (and replace the stored blobs).
 */
public class CacheBlobException extends PartitaException {
    private static final long serialVersionUID = 1L;

    /** Why the blobs were refused. */
    public enum Reason {
        /** The blob id given is not the id of this partition, shapes, engine, backend and versions. */
        ID_MISMATCH,
        /** The blobs do not match their seal: truncated, reordered, altered, or not blobs of a compiled partition. */
        DAMAGED,
        /** The partition's backend does not compile from blobs (it gives none). */
        UNSUPPORTED,
        /** Intact blobs the backend could not use (the JVM's verifier or a driver refused them). */
        REFUSED;

        public String spelling() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    private final Reason reason;

    public CacheBlobException(Reason reason, String message) {
        super(message);
        this.reason = java.util.Objects.requireNonNull(reason, "reason");
    }

    public CacheBlobException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = java.util.Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
