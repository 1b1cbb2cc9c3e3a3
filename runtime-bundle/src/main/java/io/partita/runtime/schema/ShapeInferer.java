package io.partita.runtime.schema;

/** Infers an op's output dims from its input dims and attributes. */
@FunctionalInterface
public interface ShapeInferer {
    void infer(ShapeContext ctx);
}
