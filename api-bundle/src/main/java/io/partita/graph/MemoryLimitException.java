package io.partita.graph;

import java.util.Locale;

/**
 * A tensor, or the tensors held at once, would take more memory than allowed: the runtime's
 * memory limit ({@link GraphRuntime#memoryLimit()}) or a limit that cannot be raised (a Java
 * array's length). Thrown before anything is allocated, in place of an {@link OutOfMemoryError}.
 */
public class MemoryLimitException extends PartitaException {
    private static final long serialVersionUID = 1L;

    /** How to raise the memory limit, for messages. */
    public static final String HOW_TO_RAISE = "set it with the " + GraphRuntime.MEMORY_LIMIT_PROPERTY
            + " property or GraphRuntime.setMemoryLimit";

    private final String item;
    private final long bytes;
    private final long limit;

    /**
     * Reports an item over the memory limit: "ITEM needs SIZE; the memory limit is LIMIT (how to
     * raise it)".
     *
     * @param item what needs the memory, e.g. "tensor 7 f32[100000,100000,100000]"
     */
    public MemoryLimitException(String item, long bytes, long limit) {
        this(item, bytes, limit, item + " needs " + formatBytes(bytes) + "; the memory limit is " + formatBytes(limit)
                + " (" + HOW_TO_RAISE + ")");
    }

    /** Reports an item over a limit, with a message of the thrower's (naming the item, its size and the limit). */
    public MemoryLimitException(String item, long bytes, long limit, String message) {
        super(message);
        this.item = item;
        this.bytes = bytes;
        this.limit = limit;
    }

    /** What needs the memory (a tensor, a set of tensors). */
    public String item() {
        return item;
    }

    /** The bytes it needs ({@link Long#MAX_VALUE} when that does not fit in a long). */
    public long bytes() {
        return bytes;
    }

    /** The limit it exceeds, in bytes. */
    public long limit() {
        return limit;
    }

    /** A byte count for people: "512 bytes", "3.4 GiB" (binary units, as -Xmx and the limit property). */
    public static String formatBytes(long bytes) {
        if (bytes == Long.MAX_VALUE) {
            return "more than 8 EiB";
        }
        if (bytes < 1024) {
            return bytes + (bytes == 1 ? " byte" : " bytes");
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
