package io.partita.runtime.schema.registry;

import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import io.partita.graph.InvalidGraphException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema;
import io.partita.graph.OpSchemaRegistry;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.ops.BinarySchemas;
import io.partita.runtime.schema.ops.ConvPoolSchemas;
import io.partita.runtime.schema.ops.DataMovementSchemas;
import io.partita.runtime.schema.ops.EltwiseSchemas;
import io.partita.runtime.schema.ops.EinsumUnpoolSchemas;
import io.partita.runtime.schema.ops.ExtensionSchemas;
import io.partita.runtime.schema.ops.MatMulSchemas;
import io.partita.runtime.schema.ops.NormReduceSchemas;

/** The schema of every op kind, built once. */
public final class OpSchemas {
    private static final Map<OpKind, OpSchemaImpl> SCHEMAS = build();

    /** The same rules behind the API's read-only view. */
    public static final OpSchemaRegistry REGISTRY = new OpSchemaRegistry() {
        @Override
        public Optional<OpSchema> find(OpKind kind) {
            return Optional.ofNullable(SCHEMAS.get(kind));
        }

        @Override
        public OpSchema of(Op op) {
            return OpSchemas.of(op);
        }

        @Override
        public Collection<OpSchema> all() {
            return List.copyOf(SCHEMAS.values());
        }
    };

    private OpSchemas() {
    }

    private static Map<OpKind, OpSchemaImpl> build() {
        Map<OpKind, OpSchemaImpl> m = new EnumMap<>(OpKind.class);
        Consumer<OpSchemaImpl> add = s -> {
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
        ExtensionSchemas.register(add);
        EinsumUnpoolSchemas.register(add);
        return m;
    }

    /** The schema of a kind, or null if the kind has none (a bug the schema tests catch). */
    public static OpSchemaImpl find(OpKind kind) {
        return SCHEMAS.get(kind);
    }

    /** The schema of an op's kind; an op kind without schema is reported as unsupported by name. */
    public static OpSchemaImpl of(Op op) {
        OpSchemaImpl s = SCHEMAS.get(op.kind());
        if (s == null) {
            throw new InvalidGraphException(op.id(), op.describe() + ": op kind " + op.kind().spelling()
                    + " is not supported");
        }
        return s;
    }

    public static Map<OpKind, OpSchemaImpl> all() {
        return Map.copyOf(SCHEMAS);
    }
}
