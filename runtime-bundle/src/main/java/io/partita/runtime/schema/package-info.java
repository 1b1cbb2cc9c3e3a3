/**
 * The op rules (private): one schema per op kind with ports, attributes, validators and shape
 * inference, behind the API's read-only {@link io.partita.graph.OpSchema} view.
 */
package io.partita.runtime.schema;
