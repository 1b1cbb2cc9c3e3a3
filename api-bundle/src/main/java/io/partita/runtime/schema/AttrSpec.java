package io.partita.runtime.schema;

import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

import io.partita.graph.AttrType;
import io.partita.graph.AttrValue;

/**
 * One attribute of an op schema: name and type as oneDNN spells them, whether it is required,
 * its default, and an optional check on the value with a description of what is expected.
 */
public record AttrSpec(String name, AttrType type, boolean required, AttrValue defaultValue,
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
