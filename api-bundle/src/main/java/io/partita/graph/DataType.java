package io.partita.graph;

import java.util.Arrays;

/**
 * Element data types, spelled as in oneDNN graph JSON.
 *
 * <p>{@link #S64}, {@link #F64}, {@link #S16}, {@link #U16} and {@link #U64} are Partita extensions
 * (for ONNX models): oneDNN's op set and JSON files never use them, and only the reference backend
 * runs ops on them. The reference backend computes in double, so s64 and u64 values beyond 2^53 lose
 * their low bits (see {@link ElementCodec}).
 */
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
    U4("u4", 4),
    /** Partita extension: IEEE binary64 (ONNX DOUBLE). */
    F64("f64", 64),
    /** Partita extension: signed 16-bit integer (ONNX INT16). */
    S16("s16", 16),
    /** Partita extension: unsigned 16-bit integer (ONNX UINT16). */
    U16("u16", 16),
    /** Partita extension: unsigned 64-bit integer (ONNX UINT64); exact as double only up to 2^53. */
    U64("u64", 64);

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

    /**
     * Bytes taken by {@code elements} densely packed elements (4-bit types round up).
     *
     * @throws InvalidArgumentException when {@code elements} is negative or the size exceeds 2^63-1 bytes
     */
    public long byteSize(long elements) {
        if (elements < 0) {
            throw new InvalidArgumentException("a size of " + elements + " " + spelling + " elements: expected >= 0");
        }
        if (bits % 8 != 0) {
            // 4-bit types: half a byte each; (elements + 1) / 2 cannot overflow for elements >= 0
            return elements / 2 + (elements & 1);
        }
        try {
            // Multiply by bytes, not bits: elements * bits overflows 8 times sooner than the size does.
            return Math.multiplyExact(elements, bits / 8);
        } catch (ArithmeticException e) {
            throw new InvalidArgumentException(elements + " " + spelling + " elements take more than 2^63-1 bytes");
        }
    }

    public boolean isFloatingPoint() {
        return this == F32 || this == BF16 || this == F16 || this == F8_E5M2 || this == F8_E4M3 || this == F64;
    }

    public boolean isInteger() {
        return this == S32 || this == S8 || this == U8 || this == S64 || this == S4 || this == U4 || this == S16
                || this == U16 || this == U64;
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
