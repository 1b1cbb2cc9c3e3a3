package io.partita.runtime.schema;

import java.util.Set;

import io.partita.graph.DataType;

/**
 * An input or output port of an op schema.
 *
 * @param name the port name in oneDNN's op specification (src, weights, bias, dst, ...)
 * @param typeVar a type variable shared by ports that must have the same data type, or null
 * @param types the data types the port accepts
 * @param optional whether the port may be absent (only trailing ports)
 * @param variadic whether the port repeats (only the last port, e.g. Concat's inputs)
 * @param domain the values random test inputs for this port should take
 */
public record Port(String name, String typeVar, Set<DataType> types, boolean optional, boolean variadic,
        ValueDomain domain) {
}
