package io.partita.runtime.schema;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;

import io.partita.graph.InvalidGraphException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.ops.BinarySchemas;
import io.partita.runtime.schema.ops.ConvPoolSchemas;
import io.partita.runtime.schema.ops.DataMovementSchemas;
import io.partita.runtime.schema.ops.EltwiseSchemas;
import io.partita.runtime.schema.ops.MatMulSchemas;
import io.partita.runtime.schema.ops.NormReduceSchemas;

/** The schema of every op kind, built once. */
public final class OpSchemas {
    private static final Map<OpKind, OpSchema> SCHEMAS = build();

    private OpSchemas() {
    }

    private static Map<OpKind, OpSchema> build() {
        Map<OpKind, OpSchema> m = new EnumMap<>(OpKind.class);
        Consumer<OpSchema> add = s -> {
            if (m.put(s.kind(), s) != null) {
                throw new IllegalStateException("two schemas for " + s.kind());
            }
        };
        EltwiseSchemas.register(add);
        BinarySchemas.register(add);
        ConvPoolSchemas.register(add);
        NormReduceSchemas.register(add);
        DataMovementSchemas.register(add);
        MatMulSchemas.register(add);
        return m;
    }

    /** The schema of a kind, or null if the kind has none (a bug the schema tests catch). */
    public static OpSchema find(OpKind kind) {
        return SCHEMAS.get(kind);
    }

    /** The schema of an op's kind; an op kind without schema is reported as unsupported by name. */
    public static OpSchema of(Op op) {
        OpSchema s = SCHEMAS.get(op.kind());
        if (s == null) {
            throw new InvalidGraphException(op.id(), op.describe() + ": op kind " + op.kind().spelling()
                    + " is not supported");
        }
        return s;
    }

    public static Map<OpKind, OpSchema> all() {
        return Map.copyOf(SCHEMAS);
    }
}
