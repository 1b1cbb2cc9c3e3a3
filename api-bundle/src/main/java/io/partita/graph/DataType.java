package io.partita.graph;

import java.util.Arrays;

/** Element data types, spelled as in oneDNN graph JSON. */
public enum DataType {
    UNDEF("undef", 0),
    F32("f32", 32),
    BF16("bf16", 16),
    F16("f16", 16),
    S32("s32", 32),
    S8("s8", 8),
    U8("u8", 8),
    S64("s64", 64),
    BOOLEAN("boolean", 8),
    F8_E5M2("f8_e5m2", 8),
    F8_E4M3("f8_e4m3", 8),
    S4("s4", 4),
    U4("u4", 4);

    private final String spelling;
    private final int bits;

    DataType(String spelling, int bits) {
        this.spelling = spelling;
        this.bits = bits;
    }

    public String spelling() {
        return spelling;
    }

    /** Bits per element; 4-bit types pack two elements per byte. */
    public int bits() {
        return bits;
    }

    /** Bytes taken by {@code elements} densely packed elements (4-bit types round up). */
    public long byteSize(long elements) {
        return (elements * bits + 7) / 8;
    }

    public boolean isFloatingPoint() {
        return this == F32 || this == BF16 || this == F16 || this == F8_E5M2 || this == F8_E4M3;
    }

    public boolean isInteger() {
        return this == S32 || this == S8 || this == U8 || this == S64 || this == S4 || this == U4;
    }

    public static DataType fromSpelling(String text) {
        for (DataType t : values()) {
            if (t.spelling.equals(text)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown data type '" + text + "': expected one of "
                + Arrays.stream(values()).map(DataType::spelling).toList());
    }

    @Override
    public String toString() {
        return spelling;
    }
}
