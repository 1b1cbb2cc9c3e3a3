package io.partita.backend.reference.kernel;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.MemoryLimitException;

/**
 * The heap the reference backend holds while it runs a partition: every tensor it reads or
 * computes, as one array of doubles (8 bytes per element), until the partition is done. Checked
 * before each array is made, against the runtime's memory limit and the largest Java array.
 */
public final class RefMemory {
    /** The most elements a reference tensor holds: the largest array the JVM allocates. */
    public static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;
    private static final long BYTES_PER_ELEMENT = Double.BYTES;

    private final long limit;
    private final String where;
    private long held;

    /** @param where what runs, for messages ("partition 3") */
    public RefMemory(long limit, String where) {
        this.limit = limit;
        this.where = where;
    }

    /** Takes room for a tensor's doubles, or refuses naming it, its size and the limit. */
    public void take(long id, DataType type, long[] dims) {
        String item = describe(id, type, dims);
        long n = elements(dims);
        // The memory limit first: it is the one the operator can change.
        long bytes = n > Long.MAX_VALUE / BYTES_PER_ELEMENT ? Long.MAX_VALUE : n * BYTES_PER_ELEMENT;
        long total = bytes > Long.MAX_VALUE - held ? Long.MAX_VALUE : held + bytes;
        if (total > limit) {
            String beside = held == 0 ? "" : " beside " + MemoryLimitException.formatBytes(held) + " of its other tensors";
            throw new MemoryLimitException(item, total, limit, item + " needs " + MemoryLimitException.formatBytes(bytes)
                    + " as doubles while the reference backend runs " + where + beside + "; the memory limit is "
                    + MemoryLimitException.formatBytes(limit) + " (" + MemoryLimitException.HOW_TO_RAISE + ")");
        }
        checkArray(item, n);
        held = total;
    }

    /** Refuses a tensor of more elements than one Java array holds. */
    public static void checkArray(String item, long elements) {
        if (elements > MAX_ELEMENTS) {
            long bytes = elements > Long.MAX_VALUE / BYTES_PER_ELEMENT ? Long.MAX_VALUE : elements * BYTES_PER_ELEMENT;
            throw new MemoryLimitException(item, bytes, MAX_ELEMENTS * BYTES_PER_ELEMENT, item + " has "
                    + (elements == Long.MAX_VALUE ? "more than " + Long.MAX_VALUE : Long.toString(elements))
                    + " elements; the reference backend holds a tensor in one Java array, at most " + MAX_ELEMENTS
                    + " elements");
        }
    }

    /** The element count, {@link Long#MAX_VALUE} when it does not fit in a long. */
    static long elements(long[] dims) {
        try {
            return RefTensor.count(dims);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** "tensor 7 f32[100000,100000,100000]". */
    public static String describe(long id, DataType type, long[] dims) {
        return "tensor " + id + " " + type + LogicalTensor.dimsToString(dims);
    }
}
