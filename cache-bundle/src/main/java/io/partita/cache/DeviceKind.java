package io.partita.cache;

import java.util.Arrays;
import java.util.Locale;

/** The kinds of memory a cache can hold buffers in, named as engine kinds are ({@code cpu}, {@code gpu}). */
public enum DeviceKind {
    CPU,
    GPU;

    public String spelling() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code cpu} or {@code gpu}. */
    public static DeviceKind fromSpelling(String text) {
        for (DeviceKind k : values()) {
            if (k.spelling().equals(text)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown device kind '" + text + "': expected one of "
                + Arrays.stream(values()).map(DeviceKind::spelling).toList());
    }

    @Override
    public String toString() {
        return spelling();
    }
}
