package io.partita.runtime.schema.ops;

import java.util.function.Consumer;

import io.partita.graph.DataType;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.OpSchema;
import io.partita.runtime.schema.ShapeRules;

/** Normalizations, softmax variants and reductions (forward and backward). */
public final class NormReduceSchemas {
    private NormReduceSchemas() {
    }

    public static void register(Consumer<OpSchema> r) {
        r.accept(OpSchema.builder(OpKind.SoftMax)
                .typeVar("T1", DataType.F32, DataType.BF16, DataType.F16)
                .typeVar("T2", DataType.F32, DataType.BF16, DataType.F16)
                .typeVar("T3", DataType.F32)
                .input("src", "T1")
                .output("dst", "T2")
                .optionalOutput("stats", "T3")
                .attr("axis", 1L)
                .attr("mode", "none", "none", "inf_as_zero")
                .shape(ctx -> {
                    int rank = ctx.rank(0);
                    if (rank >= 0 && Dims.normalizeAxis(ctx.op().longAttr("axis"), rank) < 0) {
                        throw ctx.error("axis " + ctx.op().longAttr("axis") + " is out of range for rank " + rank);
                    }
                    ShapeRules.sameAsFirstInput(ctx);
                    if (ctx.outputCount() > 1 && rank >= 0) {
                        long[] stats = ctx.dims(0);
                        stats[Dims.normalizeAxis(ctx.op().longAttr("axis"), rank)] = 1;
                        ctx.setOutput(1, stats);
                    }
                })
                .build());
    }
}
