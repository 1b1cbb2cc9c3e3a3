package io.partita.spi;

import java.util.Set;

/**
 * A backend's claim on a set of ops, named by the fusion pattern it matched
 * (e.g. {@code matmul_bias_relu}); the name shows in partition listings.
 */
public record Claim(Set<Long> opIds, String pattern) {

    public Claim {
        if (opIds == null || opIds.isEmpty()) {
            throw new IllegalArgumentException("a claim needs at least one op");
        }
        opIds = Set.copyOf(opIds);
        pattern = pattern == null || pattern.isBlank() ? "unnamed" : pattern;
    }

    public static Claim of(String pattern, Long... opIds) {
        return new Claim(Set.of(opIds), pattern);
    }
}
