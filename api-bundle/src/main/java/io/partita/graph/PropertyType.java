package io.partita.graph;

import java.util.Arrays;

/** Whether a tensor's content changes between executions. */
public enum PropertyType {
    UNDEF("undef"),
    /** Changes between executions. */
    VARIABLE("variable"),
    /** The same content for every execution with the same data handle (weights, scales). */
    CONSTANT("constant"),
    /** A scalar that lives in host memory even for device engines. */
    HOST_SCALAR("host_scalar");

    private final String spelling;

    PropertyType(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }

    public static PropertyType fromSpelling(String text) {
        for (PropertyType t : values()) {
            if (t.spelling.equals(text)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown property type '" + text + "': expected one of "
                + Arrays.stream(values()).map(PropertyType::spelling).toList());
    }

    @Override
    public String toString() {
        return spelling;
    }
}
