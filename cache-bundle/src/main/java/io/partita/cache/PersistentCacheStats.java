package io.partita.cache;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A snapshot of the persistent (on-disk) kernel cache. Entries and bytes are those of the directory
 * (shared by every process using it); hits, misses, stores and rejects are this process's.
 *
 * @param directory null when none is set
 * @param rejects entries found damaged or unsafe, removed, by reason
 * @param problem why the directory is refused or failing right now, or null
 * @param rejections the latest entries this process rejected (at most {@value #RECENT_REJECTIONS}), oldest first
 */
public record PersistentCacheStats(String directory, long capacityMegabytes, Set<DeviceKind> engines, long entries,
        long bytes, long hits, long misses, long stores, Map<Reject, Long> rejects, String problem,
        List<Rejection> rejections) {

    /** How many rejected entries a snapshot names. */
    public static final int RECENT_REJECTIONS = 16;

    /** One rejected entry: its folder, why, and what was found. */
    public record Rejection(String entry, Reject reason, String detail) {
        public String describe() {
            return entry + ": " + reason.spelling() + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")");
        }
    }

    /** A snapshot that names no rejected entry. */
    public PersistentCacheStats(String directory, long capacityMegabytes, Set<DeviceKind> engines, long entries,
            long bytes, long hits, long misses, long stores, Map<Reject, Long> rejects, String problem) {
        this(directory, capacityMegabytes, engines, entries, bytes, hits, misses, stores, rejects, problem, List.of());
    }

    /** Why an entry was refused and removed. */
    public enum Reject {
        /** Its contents do not match the checksum over key.bin and kernel.bin (flipped bytes, tampering). */
        CHECKSUM,
        /** A consistent entry whose key does not belong to the bucket it is in. */
        KEY_MISMATCH,
        /** Written in another format (another Partita version, or not an entry at all). */
        VERSION,
        /** A file is shorter than its header says, or missing. */
        TRUNCATED,
        /** The entry is writable by group or others, owned by another user, or a symbolic link. */
        PERMISSION,
        /** Intact, but the backend that loaded it could not use it (the JVM or the driver refused it). */
        REFUSED;

        public String spelling() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    public PersistentCacheStats {
        engines = Set.copyOf(engines);
        EnumMap<Reject, Long> all = new EnumMap<>(Reject.class);
        for (Reject r : Reject.values()) {
            all.put(r, rejects.getOrDefault(r, 0L));
        }
        rejects = java.util.Collections.unmodifiableMap(all);
        rejections = List.copyOf(rejections);
    }

    public long rejected() {
        return rejects.values().stream().mapToLong(Long::longValue).sum();
    }

    /** One line, e.g. {@code /var/cache/partita, capacity 512 MB (gpu), 12 entries, 3.1 MB, hits 4, ...}. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        if (directory == null) {
            b.append("off (no directory)");
        } else {
            b.append(directory);
            if (capacityMegabytes == 0) {
                b.append(", off (capacity 0)");
            } else {
                b.append(", capacity ").append(capacityMegabytes).append(" MB");
            }
        }
        b.append(" (engines ").append(engines.isEmpty() ? "none"
                : engines.stream().sorted().map(DeviceKind::spelling).collect(Collectors.joining(";"))).append(')');
        b.append(String.format(", %d entries, %.1f KB, hits %d, misses %d, stores %d, rejects %d", entries,
                bytes / 1024.0, hits, misses, stores, rejected()));
        if (rejected() > 0) {
            b.append(rejects.entrySet().stream().filter(e -> e.getValue() > 0)
                    .map(e -> e.getKey().spelling() + " " + e.getValue()).collect(Collectors.joining(", ", " (", ")")));
        }
        if (problem != null) {
            b.append(", refused: ").append(problem);
        }
        return b.toString();
    }
}
