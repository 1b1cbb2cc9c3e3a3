package io.partita.runtime.schema.ops;

import java.util.function.Consumer;

import io.partita.graph.DataType;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.OpSchema;
import io.partita.runtime.schema.ShapeRules;

/** Binary elementwise ops with broadcasting, and their relatives (BiasAdd, PReLU, Select, ...). */
public final class BinarySchemas {
    private BinarySchemas() {
    }

    public static void register(Consumer<OpSchema> r) {
        r.accept(OpSchema.builder(OpKind.Add)
                .typeVar("T1", DataType.F32, DataType.BF16, DataType.F16, DataType.S32)
                .typeVar("T2", DataType.F32, DataType.BF16, DataType.F16, DataType.S32)
                .typeVar("T3", DataType.F32, DataType.BF16, DataType.F16, DataType.S32)
                .input("src_0", "T1")
                .input("src_1", "T2")
                .output("dst", "T3")
                .attr("auto_broadcast", "numpy", "none", "numpy")
                .shape(ctx -> ctx.setOutput(0, ShapeRules.autoBroadcast(ctx, 0, 1)))
                .build());
    }
}
