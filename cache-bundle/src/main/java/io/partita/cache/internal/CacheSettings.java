package io.partita.cache.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.partita.cache.CachePolicy;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Device;
import io.partita.cache.DeviceKind;
import io.partita.cache.InvalidCacheSettingException;

/**
 * Parses cache settings: constant tensor cache capacities {@code KIND[.DEVICE]:MEGABYTES[:POLICY]}
 * and policies {@code KIND[.DEVICE]:POLICY}, entries separated by {@code ;}. A whole value is
 * refused (nothing applied) when any part of it is malformed.
 */
final class CacheSettings {
    static final String CAPACITY_FORM = "KIND[.DEVICE]:MEGABYTES[:POLICY] entries separated by ';', "
            + "KIND cpu or gpu, MEGABYTES a non-negative integer or 'unlimited', POLICY no_evict, lru or cost "
            + "(e.g. cpu:10240;gpu:2048 or gpu.1:512:lru)";
    static final String POLICY_FORM = "KIND[.DEVICE]:POLICY entries separated by ';', KIND cpu or gpu, "
            + "POLICY no_evict, lru or cost (e.g. cpu:lru;gpu.1:cost)";

    private static final Pattern TARGET = Pattern.compile("(cpu|gpu)(?:\\.(\\d{1,6}))?");
    private static final long MAX_MEGABYTES = Long.MAX_VALUE / (1L << 20);

    private CacheSettings() {
    }

    /** Where a setting applies: every device of a kind (device == null) or one device. */
    record Target(DeviceKind kind, Device device) {
        @Override
        public String toString() {
            return device != null ? device.toString() : kind.spelling();
        }
    }

    /** A parsed capacity entry; policy may be null. */
    record Capacity(long bytes, CachePolicy policy) {
    }

    static Map<Target, Capacity> parseCapacities(String source, String value) {
        Map<Target, Capacity> out = new LinkedHashMap<>();
        for (String entry : entries(source, value, CAPACITY_FORM)) {
            String[] parts = entry.split(":", -1);
            if (parts.length < 2 || parts.length > 3) {
                throw bad(source, value, "'" + entry + "' is not KIND[.DEVICE]:MEGABYTES[:POLICY]", CAPACITY_FORM);
            }
            Target t = target(source, value, parts[0], CAPACITY_FORM);
            long bytes = megabytes(source, value, parts[1]);
            CachePolicy p = parts.length == 3 ? policy(source, value, parts[2], CAPACITY_FORM) : null;
            if (out.put(t, new Capacity(bytes, p)) != null) {
                throw bad(source, value, "'" + t + "' is set twice", CAPACITY_FORM);
            }
        }
        return out;
    }

    static Map<Target, CachePolicy> parsePolicies(String source, String value) {
        Map<Target, CachePolicy> out = new LinkedHashMap<>();
        for (String entry : entries(source, value, POLICY_FORM)) {
            String[] parts = entry.split(":", -1);
            if (parts.length != 2) {
                throw bad(source, value, "'" + entry + "' is not KIND[.DEVICE]:POLICY", POLICY_FORM);
            }
            Target t = target(source, value, parts[0], POLICY_FORM);
            if (out.put(t, policy(source, value, parts[1], POLICY_FORM)) != null) {
                throw bad(source, value, "'" + t + "' is set twice", POLICY_FORM);
            }
        }
        return out;
    }

    /** Entries separated by ';' (surrounding blanks allowed, empty entries refused). */
    private static String[] entries(String source, String value, String form) {
        if (value == null || value.isBlank()) {
            throw bad(source, value, "the value is empty", form);
        }
        String[] entries = value.trim().split(";", -1);
        for (int i = 0; i < entries.length; i++) {
            entries[i] = entries[i].trim();
            if (entries[i].isEmpty()) {
                throw bad(source, value, "entry " + (i + 1) + " is empty (stray ';')", form);
            }
        }
        return entries;
    }

    private static Target target(String source, String value, String text, String form) {
        Matcher m = TARGET.matcher(text.trim());
        if (!m.matches()) {
            throw bad(source, value, "'" + text + "' is not a device kind (cpu, gpu) or device (cpu.0, gpu.1)", form);
        }
        DeviceKind kind = DeviceKind.fromSpelling(m.group(1));
        return m.group(2) == null ? new Target(kind, null) : new Target(kind, new Device(kind, Integer.parseInt(m.group(2))));
    }

    private static long megabytes(String source, String value, String text) {
        String t = text.trim();
        if (t.equals("unlimited")) {
            return ConstantTensorCache.UNLIMITED;
        }
        if (!t.matches("\\d+")) {
            throw bad(source, value, "'" + text + "' is not a number of megabytes", CAPACITY_FORM);
        }
        long mb;
        try {
            mb = Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw bad(source, value, "'" + text + "' is too large", CAPACITY_FORM);
        }
        if (mb > MAX_MEGABYTES) {
            throw bad(source, value, "'" + text + "' megabytes is too large (at most " + MAX_MEGABYTES + ")",
                    CAPACITY_FORM);
        }
        return mb << 20;
    }

    private static CachePolicy policy(String source, String value, String text, String form) {
        try {
            return CachePolicy.fromSpelling(text.trim());
        } catch (IllegalArgumentException e) {
            throw bad(source, value, e.getMessage(), form);
        }
    }

    /** Entries of a kernel cache: a non-negative integer. */
    static int entriesCount(String source, String value) {
        String t = value == null ? "" : value.trim();
        if (!t.matches("\\d{1,9}")) {
            throw new InvalidCacheSettingException(source + "='" + value
                    + "' is not a number of entries; expected a non-negative integer (default "
                    + io.partita.cache.KernelCache.DEFAULT_CAPACITY + ")");
        }
        return Integer.parseInt(t);
    }

    static InvalidCacheSettingException bad(String source, String value, String problem, String form) {
        return new InvalidCacheSettingException(source + "='" + value + "': " + problem + "; expected " + form);
    }
}
