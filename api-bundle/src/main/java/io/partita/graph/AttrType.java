package io.partita.graph;

import java.util.Arrays;

/** Attribute value types, spelled as in oneDNN graph JSON. */
public enum AttrType {
    BOOL("bool"),
    S64("s64"),
    S64_ARRAY("s64[]"),
    F32("f32"),
    F32_ARRAY("f32[]"),
    STRING("string");

    private final String spelling;

    AttrType(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }

    public static AttrType fromSpelling(String text) {
        for (AttrType t : values()) {
            if (t.spelling.equals(text)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown attribute type '" + text + "': expected one of "
                + Arrays.stream(values()).map(AttrType::spelling).toList());
    }

    @Override
    public String toString() {
        return spelling;
    }
}
