package io.partita.backend.dnnl.internal;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.isa.Isa;
import io.partita.backend.dnnl.internal.ops.MatMulPrimitive;
import io.partita.backend.dnnl.internal.postops.Activation;
import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;
import io.partita.graph.Tensor;

/**
 * Gets the Vector API kernels compiled by the JIT before the first real execution. Until C2 has
 * compiled them they run interpreted, tens of times slower (the first iteration of an MLP took
 * over a second): oneDNN pays its JIT at primitive creation, we pay ours once per process, on a
 * background thread started with the backend, on small private tensors (no cache is touched).
 */
final class Warmup {
    private static final Logger LOG = LoggerFactory.getLogger(Warmup.class);
    /** Disables the warm-up (e.g. for tools that measure cold behaviour). */
    static final String DISABLE_PROPERTY = "partita.dnnl.warmup";
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static final int ROUNDS = 400;
    /** How long closing the backend waits for a round in progress (a round takes milliseconds). */
    private static final long STOP_WAIT_MS = 5_000;
    private static volatile Thread thread;
    private static volatile boolean stopping;

    private Warmup() {
    }

    /** Starts the warm-up once per process (later calls do nothing). */
    static void startOnce() {
        if ("false".equalsIgnoreCase(System.getProperty(DISABLE_PROPERTY)) || !STARTED.compareAndSet(false, true)) {
            return;
        }
        Thread t = Thread.ofPlatform().daemon().name("dnnl-warmup").priority(Thread.MIN_PRIORITY).unstarted(Warmup::run);
        thread = t;
        t.start();
    }

    /**
     * Ends the warm-up and waits for it: called when the backend closes, because a warm-up still
     * running after its bundle stopped would load classes through a class loader that is gone (a
     * NullPointerException inside Felix, printed on the console at exit).
     */
    static void stop() {
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

    /** Whether the warm-up thread is still running. */
    static boolean running() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    private static void run() {
        // Isa is first initialized here, off the activating thread (Vector API and flag reading take ~0.1 s).
        if (!Isa.USABLE) {
            return; // the backend claims nothing, and the kernels would run as plain objects
        }
        long t0 = System.nanoTime();
        try (Arena arena = Arena.ofConfined()) {
            // Odd sizes reach the edge paths of the micro-kernels and the post-op tails as well; 36 rows
            // (14 + 14 + 8) and 18 rows (14 + 4) compile every row-count variant of the micro-kernel.
            Runnable relu = matmul(arena, 36, 131, 150, OpKind.ReLU);
            Runnable gelu = matmul(arena, 18, 131, 150, OpKind.GELU);
            Runnable gemv = matmul(arena, 1, 131, 150, OpKind.ReLU); // one row: the memory-bound kernel
            for (int rep = 0; rep < ROUNDS && !stopping; rep++) {
                (rep % 3 == 0 ? relu : rep % 3 == 1 ? gelu : gemv).run();
            }
        } catch (RuntimeException | Error e) {
            if (stopping) {
                return; // the bundle is stopping: logging could need a class its loader no longer gives
            }
            LOG.debug("dnnl warm-up stopped: {}", e.toString());
            return;
        }
        if (stopping) {
            return;
        }
        LOG.debug("dnnl warm-up done in {} ms", (System.nanoTime() - t0) / 1_000_000);
    }

    /** One [m,k]x[k,n] product with bias and an activation, on the calling thread (no pool, no cache). */
    private static Runnable matmul(Arena arena, int m, int k, int n, OpKind activation) {
        LogicalTensor a = LogicalTensor.of(0, DataType.F32, m, k);
        LogicalTensor b = LogicalTensor.of(1, DataType.F32, k, n);
        LogicalTensor bias = LogicalTensor.of(2, DataType.F32, n);
        LogicalTensor c = LogicalTensor.of(3, DataType.F32, m, n);
        long[] out = {m, n};
        PostOpChain chain = new PostOpChain(out, List.of(
                new PostOpChain.Bin(OpKind.Add, 0, PostOpChain.broadcastStrides(out, bias.dims()), false),
                new PostOpChain.Act(new Activation(activation, 0, 0, false))));
        MatMulPrimitive p = new MatMulPrimitive(new MatMulPrimitive.Desc(a, b, c, false, false, 0, 1, false, chain,
                new int[] {2}));
        Engine e = Engine.cpu();
        Invocation inv = new Invocation(
                List.of(Tensor.allocate(a, e, arena), Tensor.allocate(b, e, arena), Tensor.allocate(bias, e, arena)),
                List.of(Tensor.allocate(c, e, arena)), (CpuTeam) null, (input, form, bytes, producer) -> null);
        return () -> p.execute(inv);
    }
}
