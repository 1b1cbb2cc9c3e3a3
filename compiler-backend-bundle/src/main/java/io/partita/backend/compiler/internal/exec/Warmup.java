package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.graph.DataType;

/**
 * Gets the fused attention loops compiled by the JIT before the first real execution, on a
 * background thread started when the backend first claims an attention (not with the backend:
 * its vector code shares JIT profiles with the DNNL-style kernels, and a CNN ran 10% slower after
 * it). Until C2 has compiled them they run interpreted: BERT-base's attention partition took
 * 0.5-0.75 s in the first inference against 0.7 ms later, half of the layer's first iteration, and
 * its slow early executions were a third of the layer's tail over 2000 iterations. Small private
 * tensors in two layouts (heads contiguous, and heads interleaved in the rows as a transformer's
 * reshaped projections are), head dims a multiple of the vector width and not; no cache or team is
 * touched.
 */
public final class Warmup {
    private static final Logger LOG = LoggerFactory.getLogger(Warmup.class);
    /** Disables the warm-up (e.g. for tools that measure cold behaviour). */
    public static final String DISABLE_PROPERTY = "partita.compiler.warmup";
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static final int ROUNDS = 400;
    /** How long closing the backend waits for a round in progress (a round takes well under a millisecond). */
    private static final long STOP_WAIT_MS = 5_000;
    private static volatile Thread thread;
    private static volatile boolean stopping;

    private Warmup() {
    }

    /** Starts the warm-up once per process (later calls do nothing). */
    public static void startOnce() {
        if ("false".equalsIgnoreCase(System.getProperty(DISABLE_PROPERTY)) || !STARTED.compareAndSet(false, true)) {
            return;
        }
        Thread t = Thread.ofPlatform().daemon().name("compiler-warmup").priority(Thread.MIN_PRIORITY)
                .unstarted(Warmup::run);
        thread = t;
        t.start();
    }

    /**
     * Ends the warm-up and waits for it: a warm-up still running after its bundle stopped would load
     * classes through a class loader that is gone.
     */
    public static void stop() {
        stopping = true;
        Thread t = thread;
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        try {
            t.join(STOP_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void run() {
        long t0 = System.nanoTime();
        try {
            rounds(ROUNDS);
        } catch (RuntimeException | Error e) {
            if (!stopping) {
                LOG.debug("compiler warm-up stopped: {}", e.toString());
            }
            return;
        }
        if (!stopping) {
            LOG.debug("compiler warm-up done in {} ms", (System.nanoTime() - t0) / 1_000_000);
        }
    }

    /** Runs {@code rounds} small attentions in turn. */
    static void rounds(int rounds) {
        try (Arena arena = Arena.ofConfined()) {
            Case[] cases = {new Case(arena, 2, 37, 64, false), new Case(arena, 3, 29, 64, true),
                new Case(arena, 2, 21, 20, true)};
            for (int r = 0; r < rounds && !stopping; r++) {
                cases[r % cases.length].run();
            }
        }
    }

    /** One attention of {@code heads} heads over {@code s} positions, head dim {@code d}. */
    record Case(FlashAttention.Geometry g, FlashAttention.Buffers b) {
        Case(Arena arena, int heads, int s, int d, boolean interleaved) {
            this(geometry(heads, s, d, interleaved), buffers(arena, heads, s, d));
        }

        void run() {
            FlashAttention.run(g, b, null, true, Parallel.CALLER);
        }

        private static FlashAttention.Geometry geometry(int heads, int s, int d, boolean interleaved) {
            // [1, heads, s, d]: heads apart by s*d with rows of d, or by d within rows of heads*d
            FlashAttention.Access a = interleaved
                    ? new FlashAttention.Access(new long[] {(long) heads * s * d, d}, (long) heads * d, 1, DataType.F32)
                    : new FlashAttention.Access(new long[] {(long) heads * s * d, (long) s * d}, d, 1, DataType.F32);
            return new FlashAttention.Geometry(new long[] {1, heads}, s, s, d, d, a, a, a, a, null,
                    new FlashAttention.Access[0], false);
        }

        private static FlashAttention.Buffers buffers(Arena arena, int heads, int s, int d) {
            long n = (long) heads * s * d;
            MemorySegment q = arena.allocate(4 * n, 64);
            MemorySegment k = arena.allocate(4 * n, 64);
            MemorySegment v = arena.allocate(4 * n, 64);
            for (long i = 0; i < n; i++) {
                q.setAtIndex(ValueLayout.JAVA_FLOAT, i, (i % 13 - 6) / 8f);
                k.setAtIndex(ValueLayout.JAVA_FLOAT, i, (i % 7 - 3) / 4f);
                v.setAtIndex(ValueLayout.JAVA_FLOAT, i, (i % 11) / 10f);
            }
            return new FlashAttention.Buffers(q, k, v, arena.allocate(4 * n, 64), null, new MemorySegment[0],
                    new float[0]);
        }
    }
}
