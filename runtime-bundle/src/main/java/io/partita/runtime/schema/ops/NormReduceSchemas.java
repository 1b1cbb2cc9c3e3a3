package io.partita.runtime.schema.ops;

import java.util.function.Consumer;

import io.partita.runtime.schema.OpSchemaImpl;

/**
 * Normalizations, softmax variants and reductions (forward and backward). The schemas live in
 * three files, one per concern: {@link NormalizationSchemas} (BatchNorm*, LayerNorm*, GroupNorm,
 * RMSNorm), {@link SoftmaxSchemas} (SoftMax, LogSoftmax and their backward ops) and
 * {@link ReductionSchemas} (Reduce*).
 */
public final class NormReduceSchemas {
    private NormReduceSchemas() {
    }

    public static void register(Consumer<OpSchemaImpl> r) {
        NormalizationSchemas.register(r);
        SoftmaxSchemas.register(r);
        ReductionSchemas.register(r);
    }
}
