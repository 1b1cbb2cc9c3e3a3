package io.partita.runtime;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.MemoryLimitException;

/**
 * The memory limit of a runtime and the bytes its live compiled graphs have reserved against it.
 * A compiled graph reserves its intermediate and output buffers when it is compiled (they stay
 * allocated until it is closed) and checks its inputs beside them without reserving them: the
 * caller owns the inputs, and a reference graph compiled on the same inputs must not count them
 * twice.
 */
final class MemoryBudget {
    /** Share of the largest heap pool the default allows: the rest is for everything else. */
    static final double HEAP_SHARE = 0.8;

    private static final Pattern SIZE = Pattern.compile("(\\d{1,19})([kmgt]?)");

    private volatile long limit;
    private final AtomicLong reserved = new AtomicLong();

    MemoryBudget(long limit) {
        this.limit = requireValid(limit);
    }

    /** The default limit for this JVM, replaced by {@code propertyValue} when that is given and valid. */
    static MemoryBudget create(String propertyValue, java.util.function.Consumer<String> onMalformed) {
        MemoryBudget b = new MemoryBudget(defaultLimit());
        if (propertyValue != null && !propertyValue.isBlank()) {
            try {
                b.setLimit(parse(GraphRuntime.MEMORY_LIMIT_PROPERTY, propertyValue));
            } catch (InvalidArgumentException e) {
                onMalformed.accept(e.getMessage());
            }
        }
        return b;
    }

    long limit() {
        return limit;
    }

    void setLimit(long bytes) {
        limit = requireValid(bytes);
    }

    /** Bytes reserved by live compiled graphs. */
    long reserved() {
        return reserved.get();
    }

    private static long requireValid(long bytes) {
        if (bytes < 1) {
            throw new InvalidArgumentException("memory limit " + bytes + " bytes is out of range; expected at least 1");
        }
        return bytes;
    }

    /**
     * Reserves a compiled graph's buffers, or refuses naming the largest tensor when they and its
     * inputs do not fit beside what other graphs reserved.
     *
     * @param what what compiles, for the message ("the compiled graph")
     * @return the bytes reserved (release them with {@link #release})
     */
    long reserve(String what, Collection<LogicalTensor> inputs, Collection<LogicalTensor> buffers) {
        long in = sum(inputs);
        long own = sum(buffers);
        if (add(in, own) == 0) {
            return 0; // nothing known yet: dynamic buffers are checked when they are allocated
        }
        LogicalTensor largest = null;
        for (LogicalTensor t : concrete(inputs, buffers)) {
            if (largest == null || bytes(t) > bytes(largest)) {
                largest = t;
            }
        }
        long lim = limit;
        if (bytes(largest) > lim) {
            throw new MemoryLimitException(describe(largest), bytes(largest), lim);
        }
        while (true) {
            long others = reserved.get();
            long total = add(add(in, own), others);
            if (total > lim) {
                String held = others == 0 ? ""
                        : ", beside " + MemoryLimitException.formatBytes(others) + " held by other compiled graphs not closed";
                throw new MemoryLimitException(what, total, lim, what + " needs " + MemoryLimitException.formatBytes(add(in, own))
                        + " of tensors at once (inputs " + MemoryLimitException.formatBytes(in) + ", intermediates and outputs "
                        + MemoryLimitException.formatBytes(own) + held + "; the largest is " + describe(largest) + " with "
                        + MemoryLimitException.formatBytes(bytes(largest)) + "); the memory limit is "
                        + MemoryLimitException.formatBytes(lim) + " (" + MemoryLimitException.HOW_TO_RAISE + ")");
            }
            if (reserved.compareAndSet(others, others + own)) {
                return own;
            }
        }
    }

    /**
     * Reserves one more buffer at execution (its dims known only then), with {@code inputBytes}
     * of inputs held beside it.
     */
    void reserveBuffer(LogicalTensor t, long bytes, long inputBytes) {
        long lim = limit;
        if (bytes > lim) {
            throw new MemoryLimitException(describe(t), bytes, lim);
        }
        while (true) {
            long others = reserved.get();
            long total = add(add(bytes, inputBytes), others);
            if (total > lim) {
                throw new MemoryLimitException(describe(t), bytes, lim, describe(t) + " needs "
                        + MemoryLimitException.formatBytes(bytes) + " beside " + MemoryLimitException.formatBytes(others)
                        + " of buffers of compiled graphs and " + MemoryLimitException.formatBytes(inputBytes)
                        + " of inputs; the memory limit is " + MemoryLimitException.formatBytes(lim) + " ("
                        + MemoryLimitException.HOW_TO_RAISE + ")");
            }
            if (reserved.compareAndSet(others, others + bytes)) {
                return;
            }
        }
    }

    void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    /** "tensor 7 f32[100000,100000,100000]". */
    static String describe(LogicalTensor t) {
        return "tensor " + t.id() + " " + t.dataType() + LogicalTensor.dimsToString(t.dims());
    }

    /** Sum of the buffer sizes of the concrete tensors (a dynamic one is checked when it is allocated). */
    private static long sum(Collection<LogicalTensor> ts) {
        long s = 0;
        for (LogicalTensor t : ts) {
            s = add(s, bytes(t));
        }
        return s;
    }

    private static List<LogicalTensor> concrete(Collection<LogicalTensor> a, Collection<LogicalTensor> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).filter(t -> t.isConcrete() && !t.hasDynamicDim())
                .toList();
    }

    /**
     * The bytes of a tensor's buffer: 0 while a dim is dynamic or unknown (checked at allocation),
     * the dense size while its strides are unknown, at least a long's worth when they overflow.
     */
    static long bytes(LogicalTensor t) {
        if (t == null || !t.isConcrete() || t.hasDynamicDim()) {
            return 0;
        }
        try {
            return t.memSize();
        } catch (IllegalStateException e) {
            try {
                return t.dataType().byteSize(t.elementCount());
            } catch (ArithmeticException overflow) {
                return Long.MAX_VALUE;
            }
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** Saturating: a sum beyond a long is over any limit anyway. */
    static long add(long a, long b) {
        long s = a + b;
        return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s;
    }

    // ------------------------------------------------------------------ the default and the property

    /** The default for this JVM, see {@link #defaultLimit(long, OptionalLong)}. */
    static long defaultLimit() {
        long largestPool = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            long max = p.getType() == MemoryType.HEAP && p.isValid() ? p.getUsage().getMax() : -1;
            largestPool = Math.max(largestPool, max);
        }
        if (largestPool <= 0) {
            largestPool = Runtime.getRuntime().maxMemory();
        }
        return defaultLimit(largestPool, maxDirectMemory(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    }

    /**
     * {@link #HEAP_SHARE} of the largest heap pool, capped by an explicit direct memory limit. The
     * heap pool bounds what the reference backend (and {@code --check}) may hold as doubles: a
     * large array must fit in one pool, which with the parallel collector is the old generation,
     * about two thirds of {@code -Xmx}. Tensors in native memory are allocated through
     * {@link java.lang.foreign.Arena}, which the JVM does not count against
     * {@code -XX:MaxDirectMemorySize}; its default is the heap size, and the same bound keeps
     * native tensors from the machine's physical memory limit, where the kernel would kill the
     * JVM without a word. An explicit {@code -XX:MaxDirectMemorySize} states the native memory
     * the operator grants, so it caps the default.
     */
    static long defaultLimit(long largestHeapPool, OptionalLong maxDirectMemory) {
        long heap = Math.max(1, (long) (largestHeapPool * HEAP_SHARE));
        return maxDirectMemory.isPresent() && maxDirectMemory.getAsLong() > 0
                ? Math.min(heap, maxDirectMemory.getAsLong()) : heap;
    }

    /** The last {@code -XX:MaxDirectMemorySize=SIZE} among JVM arguments (the JVM takes the last). */
    static OptionalLong maxDirectMemory(List<String> jvmArguments) {
        OptionalLong found = OptionalLong.empty();
        String flag = "-XX:MaxDirectMemorySize=";
        for (String a : jvmArguments) {
            if (a.startsWith(flag)) {
                try {
                    found = OptionalLong.of(parse(flag, a.substring(flag.length())));
                } catch (InvalidArgumentException e) {
                    // The JVM would not have started with a malformed value; a form we do not know is ignored.
                }
            }
        }
        return found;
    }

    /**
     * A size as {@code -Xmx} takes it: bytes, or a number with {@code k}, {@code m}, {@code g} or
     * {@code t} (binary multiples, either case).
     *
     * @throws InvalidArgumentException naming {@code property} and the expected form
     */
    static long parse(String property, String value) {
        Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (m.matches()) {
            int shift = switch (m.group(2)) {
                case "k" -> 10;
                case "m" -> 20;
                case "g" -> 30;
                case "t" -> 40;
                default -> 0;
            };
            try {
                long n = Long.parseLong(m.group(1));
                if (n >= 1 && n <= Long.MAX_VALUE >> shift) {
                    return n << shift;
                }
            } catch (NumberFormatException e) {
                // too many digits for a long: reported below
            }
        }
        throw new InvalidArgumentException(property + "='" + value + "' is not a memory size; expected a positive number"
                + " of bytes, optionally with k, m, g or t (binary multiples, as -Xmx), e.g. 8g, 512m or 1073741824,"
                + " at most 8 EiB");
    }
}
