package io.partita.runtime.schema.ops;

import java.util.function.Consumer;

import io.partita.graph.OpKind;
import io.partita.runtime.schema.OpSchema;

/** Reshapes, transposes, concatenation, reorders, type casts, quantization and graph markers. */
public final class DataMovementSchemas {
    private DataMovementSchemas() {
    }

    public static void register(Consumer<OpSchema> r) {
        r.accept(OpSchema.builder(OpKind.End)
                .input("src", OpSchema.ALL_TYPES, io.partita.runtime.schema.ValueDomain.ANY)
                .build());
    }
}
