/**
 * The catalog of every op kind's schema (private), built once from the definitions in
 * {@code runtime.schema.ops}, and shape propagation through a graph with it.
 */
package io.partita.runtime.schema.registry;
