package io.partita.graph;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The rules of one op kind, as the runtime enforces them: ports (arity, data types, value
 * domains), attributes (names, types, defaults, required) and shape inference. Names follow
 * oneDNN's op specifications. Read-only: tools (importers, input generators, case rewriters)
 * consult it; only the runtime defines it.
 */
@ProviderType
public interface OpSchema {

    OpKind kind();

    List<Port> inputs();

    List<Port> outputs();

    /** Attribute specifications by name. */
    Map<String, AttrSpec> attrs();

    /** The port input {@code i} maps to (a variadic last port repeats), or null when there is none. */
    Port inputPort(int i);

    /** The port output {@code i} maps to, or null when there is none. */
    Port outputPort(int i);

    /**
     * Checks an op against this schema in isolation: arity, attribute names, types and values,
     * data types.
     *
     * @return the op with attribute defaults filled in
     * @throws InvalidGraphException naming the op and what is wrong
     */
    Op validate(Op op);

    /**
     * Infers output dims from the given input descriptions and merges them with the declared
     * outputs.
     *
     * @param values known values of small integer inputs (shapes, orders) by tensor id
     * @return the outputs with merged dims
     * @throws InvalidGraphException when a declared dim contradicts the inferred one
     */
    List<LogicalTensor> inferOutputs(Op op, List<LogicalTensor> inputs, Map<Long, long[]> values);

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
    record Port(String name, String typeVar, Set<DataType> types, boolean optional, boolean variadic,
            ValueDomain domain) {
    }

    /**
     * One attribute of an op schema: name and type as oneDNN spells them, whether it is required,
     * its default, and an optional check on the value with a description of what is expected.
     */
    record AttrSpec(String name, AttrType type, boolean required, AttrValue defaultValue,
            Predicate<AttrValue> check, String expected) {

        public static AttrSpec required(String name, AttrType type) {
            return new AttrSpec(name, type, true, null, null, null);
        }

        public static AttrSpec optional(String name, AttrType type) {
            return new AttrSpec(name, type, false, null, null, null);
        }

        public static AttrSpec withDefault(String name, AttrValue def) {
            return new AttrSpec(name, def.type(), false, def, null, null);
        }

        /** The same spec, accepting only the given string values. */
        public AttrSpec oneOf(String... allowed) {
            List<String> list = Arrays.asList(allowed);
            return new AttrSpec(name, type, required, defaultValue, v -> list.contains(v.asString()),
                    "one of " + list);
        }

        /** The same spec with a value check; {@code expected} describes valid values for error messages. */
        public AttrSpec checked(Predicate<AttrValue> valueCheck, String expectedText) {
            return new AttrSpec(name, type, required, defaultValue, valueCheck, expectedText);
        }
    }

    /**
     * The values that make sense on an input port, so generated test inputs exercise the op instead
     * of producing NaNs (e.g. a variance must be positive, an index in range).
     */
    enum ValueDomain {
        /** Any finite value; random inputs draw from [-1, 1] (scaled for integer types). */
        ANY,
        /** Strictly positive values, e.g. Log, Sqrt, variances, divisors. */
        POSITIVE,
        /** Values away from zero, e.g. a divisor that may be negative. */
        NON_ZERO,
        /** Small integers suitable as a shape, axis or order: filled from the graph's context. */
        SHAPE,
        /** Axes a reduction works on: derived from the op's declared input and output dims. */
        AXES,
        /** Scale factors (positive, around 1). */
        SCALE,
        /** Quantization zero points: small integers within the data type. */
        ZERO_POINT,
        /** 0/1 values. */
        BOOLEAN
    }
}
