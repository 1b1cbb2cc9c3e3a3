package io.partita.graph;

import java.util.Collection;
import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/** The schema of every op kind a runtime supports ({@link GraphRuntime#opSchemas()}). */
@ProviderType
public interface OpSchemaRegistry {

    /** The schema of a kind, if the runtime supports it. */
    Optional<OpSchema> find(OpKind kind);

    /**
     * The schema of an op's kind.
     *
     * @throws InvalidGraphException naming the op when its kind is not supported
     */
    OpSchema of(Op op);

    Collection<OpSchema> all();
}
