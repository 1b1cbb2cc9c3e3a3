package io.partita.cache.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The properties of one Config Admin PID as a component applies them.
 *
 * <ul>
 * <li>A value is coerced to its property's type: a FileInstall {@code .cfg} file gives every value
 * as text, so {@code threads = 4} is the integer 4 here, as the metatype declares it.</li>
 * <li>{@link #update} applies only the properties whose value differs from the one seen in the
 * previous update: editing one line of a file does not re-apply the others over values set since
 * through the Java API (nor flush what re-applying would flush).</li>
 * <li>A property that disappears (or becomes empty), and every property when the configuration is
 * deleted, gets its default back through its reset action.</li>
 * <li>A value that cannot be coerced, or that its setter refuses, is logged (ERROR) naming PID, key,
 * value and expected form; the previous setting stays.</li>
 * </ul>
 *
 * Properties not declared here (service.pid, component.name, ...) are ignored.
 */
public final class ConfigProperties {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigProperties.class);

    private final String pid;
    private final Map<String, Property> properties = new LinkedHashMap<>();
    private volatile String lastRefusal;

    private record Property(String key, String expected, Coercion coercion, Consumer<Object> set, Runnable reset) {
    }

    @FunctionalInterface
    private interface Coercion {
        /** The typed value, or null when the value has not the expected form. */
        Object coerce(Object raw);
    }

    /** What was last seen (raw, normalized to text) and whether it is applied. */
    private final Map<String, String> seen = new LinkedHashMap<>();

    public ConfigProperties(String pid) {
        this.pid = Objects.requireNonNull(pid, "pid");
    }

    public String pid() {
        return pid;
    }

    /** An integer property in {@code [min, max]}; a {@code .cfg} file's text {@code "4"} is 4. */
    public ConfigProperties integer(String key, int min, int max, IntConsumer set, Runnable reset) {
        return add(key, "an integer from " + min + " to " + max, raw -> {
            Long v = toLong(raw);
            return v != null && v >= min && v <= max ? (Object) v.intValue() : null;
        }, v -> set.accept((Integer) v), reset);
    }

    /** A long property in {@code [min, max]}. */
    public ConfigProperties longInteger(String key, long min, long max, LongConsumer set, Runnable reset) {
        return add(key, "an integer from " + min + " to " + max, raw -> {
            Long v = toLong(raw);
            return v != null && v >= min && v <= max ? v : null;
        }, v -> set.accept((Long) v), reset);
    }

    /** A boolean property: {@code true} or {@code false} (any case). */
    public ConfigProperties bool(String key, Consumer<Boolean> set, Runnable reset) {
        return add(key, "true or false", raw -> {
            if (raw instanceof Boolean b) {
                return b;
            }
            if (raw instanceof String s) {
                String t = s.strip();
                if (t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false")) {
                    return Boolean.parseBoolean(t);
                }
            }
            return null;
        }, v -> set.accept((Boolean) v), reset);
    }

    /**
     * A text property whose setter validates it (throwing an {@link IllegalArgumentException} or
     * another runtime exception whose message says what is wrong); {@code expected} describes the form.
     */
    public ConfigProperties text(String key, String expected, Consumer<String> set, Runnable reset) {
        return add(key, expected, raw -> raw instanceof String s ? s.strip() : null, v -> set.accept((String) v), reset);
    }

    private synchronized ConfigProperties add(String key, String expected, Coercion c, Consumer<Object> set,
            Runnable reset) {
        if (properties.containsKey(key)) {
            throw new IllegalArgumentException(pid + ": property " + key + " is declared twice");
        }
        properties.put(key, new Property(key, expected, c, set, reset));
        return this;
    }

    private static Long toLong(Object raw) {
        if (raw instanceof Integer || raw instanceof Long || raw instanceof Short || raw instanceof Byte) {
            return ((Number) raw).longValue();
        }
        if (raw instanceof String s) {
            String t = s.strip();
            if (t.matches("[+-]?\\d{1,18}")) {
                return Long.parseLong(t);
            }
        }
        return null;
    }

    /**
     * Applies a configuration: the component's properties as DS hands them to {@code @Activate} /
     * {@code @Modified} (null or without a property: its default). Returns the refusals, each
     * also logged.
     */
    public synchronized List<String> update(Map<String, ?> config) {
        List<String> refusals = new ArrayList<>();
        for (Property p : properties.values()) {
            Object raw = config == null ? null : config.get(p.key());
            String text = raw == null ? null : display(raw);
            boolean absent = text == null || text.isBlank();
            String before = seen.get(p.key());
            if (absent) {
                if (before != null) {
                    seen.remove(p.key());
                    try {
                        p.reset().run();
                        LOG.info("{} {} removed: default restored", pid, p.key());
                    } catch (RuntimeException e) {
                        refusals.add(refuse(p, "(default)", e.getMessage()));
                    }
                }
                continue;
            }
            if (text.equals(before)) {
                continue; // unchanged since the last configuration: not applied again
            }
            seen.put(p.key(), text);
            Object v = p.coercion().coerce(raw);
            if (v == null) {
                refusals.add(refuse(p, text, null));
                continue;
            }
            try {
                p.set().accept(v);
                LOG.info("{} {} = {}", pid, p.key(), text);
            } catch (RuntimeException e) {
                refusals.add(refuse(p, text, e.getMessage()));
            }
        }
        return refusals;
    }

    private String refuse(Property p, String value, String reason) {
        String m = "refused " + pid + " " + p.key() + " = '" + value + "': expected " + p.expected()
                + (reason != null ? " (" + reason + ")" : "") + "; the previous setting stays";
        lastRefusal = m;
        LOG.error(m);
        return m;
    }

    private static String display(Object raw) {
        if (raw instanceof Object[] a) {
            return java.util.Arrays.toString(a);
        }
        return raw.toString();
    }

    /** The last refusal's message, for management tools. */
    public Optional<String> lastRefusal() {
        return Optional.ofNullable(lastRefusal);
    }
}
