package io.partita.cache;

import java.util.Objects;

/**
 * A constant tensor cache key: the backend's id and a backend-specific key. Keys are compared by
 * full equality of both parts (the hash only picks a bucket), so a hash collision never returns
 * another backend's or another tensor's buffer. The backend key must be immutable and implement
 * {@code equals}/{@code hashCode} (a record is ideal).
 */
public final class CacheKey {
    private final String backendId;
    private final Object backendKey;
    private final int hash;

    public CacheKey(String backendId, Object backendKey) {
        this.backendId = Objects.requireNonNull(backendId, "backend id");
        this.backendKey = Objects.requireNonNull(backendKey, "backend key");
        this.hash = backendId.hashCode() * 31 + backendKey.hashCode();
    }

    public String backendId() {
        return backendId;
    }

    public Object backendKey() {
        return backendKey;
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof CacheKey k && k.hash == hash && k.backendId.equals(backendId)
                && k.backendKey.equals(backendKey);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return backendId + ":" + backendKey;
    }
}
