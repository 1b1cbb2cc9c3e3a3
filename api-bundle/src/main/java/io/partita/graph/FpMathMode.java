package io.partita.graph;

import java.util.Arrays;

/** The floating-point math mode of a graph: which implicit down-conversions a backend may use. */
public enum FpMathMode {
    STRICT("strict"),
    BF16("bf16"),
    F16("f16"),
    TF32("tf32"),
    ANY("any");

    private final String spelling;

    FpMathMode(String spelling) {
        this.spelling = spelling;
    }

    public String spelling() {
        return spelling;
    }

    public static FpMathMode fromSpelling(String text) {
        for (FpMathMode m : values()) {
            if (m.spelling.equals(text)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown fpmath mode '" + text + "': expected one of "
                + Arrays.stream(values()).map(FpMathMode::spelling).toList());
    }

    @Override
    public String toString() {
        return spelling;
    }
}
