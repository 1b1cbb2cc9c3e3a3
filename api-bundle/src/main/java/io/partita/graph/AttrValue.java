package io.partita.graph;

import java.util.Arrays;
import java.util.Objects;

/** A typed, immutable op attribute value. */
public final class AttrValue {
    private final AttrType type;
    private final Object value;

    private AttrValue(AttrType type, Object value) {
        this.type = type;
        this.value = value;
    }

    public static AttrValue of(boolean v) {
        return new AttrValue(AttrType.BOOL, v);
    }

    public static AttrValue of(long v) {
        return new AttrValue(AttrType.S64, v);
    }

    public static AttrValue of(long... v) {
        return new AttrValue(AttrType.S64_ARRAY, v.clone());
    }

    public static AttrValue of(float v) {
        return new AttrValue(AttrType.F32, v);
    }

    public static AttrValue of(float... v) {
        return new AttrValue(AttrType.F32_ARRAY, v.clone());
    }

    public static AttrValue of(String v) {
        return new AttrValue(AttrType.STRING, Objects.requireNonNull(v, "string attribute value"));
    }

    public AttrType type() {
        return type;
    }

    public boolean asBool() {
        return (Boolean) expect(AttrType.BOOL);
    }

    public long asLong() {
        return (Long) expect(AttrType.S64);
    }

    public long[] asLongs() {
        return ((long[]) expect(AttrType.S64_ARRAY)).clone();
    }

    public float asFloat() {
        return (Float) expect(AttrType.F32);
    }

    public float[] asFloats() {
        return ((float[]) expect(AttrType.F32_ARRAY)).clone();
    }

    public String asString() {
        return (String) expect(AttrType.STRING);
    }

    private Object expect(AttrType wanted) {
        if (type != wanted) {
            throw new IllegalStateException("attribute is of type " + type + ", not " + wanted);
        }
        return value;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AttrValue other) || other.type != type) {
            return false;
        }
        return switch (type) {
            case S64_ARRAY -> Arrays.equals((long[]) value, (long[]) other.value);
            case F32_ARRAY -> Arrays.equals((float[]) value, (float[]) other.value);
            default -> value.equals(other.value);
        };
    }

    @Override
    public int hashCode() {
        return switch (type) {
            case S64_ARRAY -> Arrays.hashCode((long[]) value);
            case F32_ARRAY -> Arrays.hashCode((float[]) value);
            default -> value.hashCode();
        } * 31 + type.hashCode();
    }

    @Override
    public String toString() {
        return switch (type) {
            case S64_ARRAY -> Arrays.toString((long[]) value);
            case F32_ARRAY -> Arrays.toString((float[]) value);
            case STRING -> "\"" + value + "\"";
            default -> String.valueOf(value);
        };
    }
}
