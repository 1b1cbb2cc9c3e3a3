package io.partita.runtime.schema.ops;

import java.util.function.Consumer;

import io.partita.runtime.schema.OpSchema;

/** Convolution, transposed convolution, pooling and interpolation (forward and backward). */
public final class ConvPoolSchemas {
    private ConvPoolSchemas() {
    }

    public static void register(Consumer<OpSchema> r) {
        // filled in per op
    }
}
