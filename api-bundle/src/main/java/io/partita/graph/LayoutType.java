package io.partita.graph;

import java.util.Arrays;

/** How a logical tensor's elements are laid out in memory. */
public enum LayoutType {
    /** Not specified yet. */
    UNDEF("undef"),
    /** Let the backend choose (outputs and constant inputs at compile time). */
    ANY("any"),
    /** Explicit strides per dimension (dense row-major when strides are not given). */
    STRIDED("strided"),
    /** A backend-private layout identified by a layout id. */
    OPAQUE("opaque");

    private final String spelling;

    LayoutType(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }

    public static LayoutType fromSpelling(String text) {
        for (LayoutType t : values()) {
            if (t.spelling.equals(text)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown layout type '" + text + "': expected one of "
                + Arrays.stream(values()).map(LayoutType::spelling).toList());
    }

    @Override
    public String toString() {
        return spelling;
    }
}
