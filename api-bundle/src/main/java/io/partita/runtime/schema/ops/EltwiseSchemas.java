package io.partita.runtime.schema.ops;

import java.util.function.Consumer;

import io.partita.graph.DataType;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.OpSchema;
import io.partita.runtime.schema.ShapeRules;

/** Unary elementwise ops (forward and backward). */
public final class EltwiseSchemas {
    private EltwiseSchemas() {
    }

    public static void register(Consumer<OpSchema> r) {
        r.accept(OpSchema.builder(OpKind.ReLU)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .output("dst", "T")
                .shape(ShapeRules::sameAsFirstInput)
                .build());
    }
}
