package io.partita.backend.dnnl.internal;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.isa.Isa;
import io.partita.backend.dnnl.internal.ops.BatchNormAffine;
import io.partita.backend.dnnl.internal.ops.ConvPrimitive;
import io.partita.backend.dnnl.internal.ops.MatMulPrimitive;
import io.partita.backend.dnnl.internal.ops.PoolPrimitive;
import io.partita.backend.dnnl.internal.ops.ReducePrimitive;
import io.partita.backend.dnnl.internal.postops.Activation;
import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
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
    private static final int ROUNDS = 1200;
    /** Rounds of {@link #shallowKernels} before {@link #kernels}: some 50 runs of each. */
    private static final int SHALLOW_ROUNDS = 480;
    /** How long closing the backend waits for a round in progress (a round takes milliseconds). */
    private static final long STOP_WAIT_MS = 5_000;
    private static volatile Thread thread;
    private static volatile boolean stopping;
    /**
     * Real executions hold the warm-up back ({@link #yieldToWork}): within 50 ms of one the process
     * is at work, and that work gets its own kernels compiled.
     */
    private static final WorkGate GATE = new WorkGate(50_000_000L, 10);

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

    /**
     * Called by every real execution: while the warm-up runs, it waits whenever executions ran in
     * the last 50 ms. On two vCPUs the warm-up (3.5-3.8 s of kernels) took a core's share from the
     * inference threads and from the JIT compiling their own kernels: a 64x1024x1024 product
     * measured 3 s after start had medians of 0.69-0.77 ms against 0.64 ms once the warm-up was over.
     */
    static void yieldToWork() {
        GATE.mark();
    }

    private static boolean waitForIdle() {
        return GATE.awaitIdle(() -> stopping);
    }

    /** Whether the warm-up thread is still running. */
    static boolean running() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    private static void run() {
        try {
            warm();
        } finally {
            GATE.close();
        }
    }

    private static void warm() {
        // Isa is first initialized here, off the activating thread (Vector API and flag reading take ~0.1 s).
        if (!Isa.USABLE) {
            return; // the backend claims nothing, and the kernels would run as plain objects
        }
        long t0 = System.nanoTime();
        try (Arena arena = Arena.ofConfined()) {
            // shallow first: each kernel method reaches C2 through its call count, before any long loop
            // asks for an on-stack-replacement compile of it (see shallowKernels)
            List<Runnable> shallow = shallowKernels(arena);
            for (int rep = 0; rep < SHALLOW_ROUNDS && waitForIdle(); rep++) {
                shallow.get(rep % shallow.size()).run();
            }
            // Odd sizes reach the edge paths of the micro-kernels and the post-op tails as well; 36 rows
            // (14 + 14 + 8) and 18 rows (14 + 4) compile every row-count variant of the micro-kernel.
            List<Runnable> kernels = kernels(arena);
            for (int rep = 0; rep < ROUNDS && waitForIdle(); rep++) {
                kernels.get(rep % kernels.size()).run();
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

    /**
     * The routes of {@link #kernels} with reductions 45 to 48 deep, and the pools, run first. HotSpot
     * compiles a method with C2 either because it was called often or, on a long loop, by on-stack
     * replacement (OSR) of the running frame; deep reductions ask for the second first. On a 2-vCPU
     * machine the micro-kernel's OSR compile took 0.8 s of the one C2 thread (against 0.2 s for the
     * normal compile), and one was thrown away when a class loaded meanwhile, so ResNet-50's first
     * iteration waited for the queue behind them (-XX:+PrintCompilation). At 48 steps a loop's
     * back-edge count stays below the OSR threshold until the call count reaches C2's (600 calls).
     * Not shallower: C2 shapes a loop by the trip counts profiled before it compiles, and with
     * reductions at most 27 deep ResNet-50's steady state was 2% slower in four of four alternating
     * anchors runs; at 45-48 no difference showed (4 pairs), and the first iteration took
     * 1.19-1.27 s against 1.38-2.34 s without this phase (5 pairs).
     */
    static List<Runnable> shallowKernels(Arena arena) {
        return List.of(
                matmul(arena, 36, 48, 150, OpKind.ReLU),
                matmul(arena, 18, 48, 150, OpKind.GELU),
                // the one-row and pooling kernels run once per panel and per plane row: more of those,
                // so that they too reach C2's call count in this phase
                matmul(arena, 1, 48, 600, OpKind.ReLU),
                conv(arena, 48, 8, 8, 32, 1, 1, 0),
                conv(arena, 48, 16, 16, 32, 1, 2, 0),
                conv(arena, 5, 4, 48, 16, 3, 1, 1),
                conv(arena, 5, 7, 7, 32, 3, 1, 1),
                conv(arena, 5, 14, 14, 16, 3, 2, 1),
                maxPool(arena, 32, 18, 18),
                globalMean(arena, 40, 7, 7));
    }

    /** What the warm-up runs, in turn: small products and convolutions on tensors of {@code arena}. */
    static List<Runnable> kernels(Arena arena) {
        return List.of(
                matmul(arena, 36, 131, 150, OpKind.ReLU),
                matmul(arena, 18, 131, 150, OpKind.GELU),
                matmul(arena, 1, 131, 150, OpKind.ReLU), // one row: the memory-bound kernel
                // K beyond one K block, no post-ops: the kernels' accumulate path (partial sums read
                // back) and the bias-free stores. Without it a transformer's FFN-down product (K 3072)
                // trapped out of its compiled kernels in the first iteration: 0.9-1.2 s instead of 4 ms.
                matmul(arena, 18, 1100, 40, null),
                // one row with K beyond one block: a classifier head's GEMV (ResNet-50's 2048 -> 1000),
                // whose K-block loop the 131-deep row above never reaches
                matmul(arena, 1, 1100, 40, OpKind.ReLU),
                // Convolutions with a ResNet block's bias + residual + ReLU, one per route below 512
                // bits: 1x1 at stride 1 and 2 (image GEMM, through the channel GEMM), a row of 48
                // (plane GEMM, likewise), 7x7 and a stride-2 3x3 (pixel rows); at 512 bits they reach
                // the plane kernels. Without them a CNN's first iteration ran every convolution
                // interpreted or in C1.
                conv(arena, 16, 8, 8, 32, 1, 1, 0),
                // K past one pass of the channel GEMM: the staged GEMM, its K blocks accumulated
                conv(arena, 1040, 4, 4, 8, 1, 1, 0),
                conv(arena, 16, 16, 16, 32, 1, 2, 0),
                conv(arena, 8, 4, 48, 16, 3, 1, 1),
                conv(arena, 16, 7, 7, 32, 3, 1, 1),
                conv(arena, 16, 14, 14, 16, 3, 2, 1),
                // the CNN stem's 3x3/2 max pool (its stride-2 row path) and global average pooling as
                // ReduceMean: without them ResNet-50's pool took 217-271 ms in the first iteration and
                // 21-32 ms in the next two, its ReduceMean 11-18 and 2-3 ms (0.3 and 0.08 ms compiled)
                maxPool(arena, 8, 18, 18),
                globalMean(arena, 40, 7, 7));
    }

    /**
     * One [m,k]x[k,n] product with bias and an activation (none of them when {@code activation} is
     * null), on the calling thread (no pool, no cache).
     */
    private static Runnable matmul(Arena arena, int m, int k, int n, OpKind activation) {
        LogicalTensor a = LogicalTensor.of(0, DataType.F32, m, k);
        LogicalTensor b = LogicalTensor.of(1, DataType.F32, k, n);
        LogicalTensor bias = LogicalTensor.of(2, DataType.F32, n);
        LogicalTensor c = LogicalTensor.of(3, DataType.F32, m, n);
        long[] out = {m, n};
        PostOpChain chain = activation == null ? PostOpChain.EMPTY : new PostOpChain(out, List.of(
                new PostOpChain.Bin(OpKind.Add, 0, PostOpChain.broadcastStrides(out, bias.dims()), false),
                new PostOpChain.Act(new Activation(activation, 0, 0, false))));
        MatMulPrimitive p = new MatMulPrimitive(new MatMulPrimitive.Desc(a, b, c, false, false, 0, 1, false, chain,
                activation == null ? new int[0] : new int[] {2}));
        Engine e = Engine.cpu();
        Invocation inv = new Invocation(
                activation == null ? List.of(Tensor.allocate(a, e, arena), Tensor.allocate(b, e, arena))
                        : List.of(Tensor.allocate(a, e, arena), Tensor.allocate(b, e, arena), Tensor.allocate(bias, e, arena)),
                List.of(Tensor.allocate(c, e, arena)), (CpuTeam) null, (input, form, bytes, producer) -> null);
        return () -> p.execute(inv);
    }

    /** A 3x3 stride-2 max pool (padding 1) of c channels at h x w, NCHW, on the calling thread. */
    private static Runnable maxPool(Arena arena, int c, int h, int w) {
        int oh = (h + 2 - 3) / 2 + 1;
        int ow = (w + 2 - 3) / 2 + 1;
        LogicalTensor src = LogicalTensor.of(0, DataType.F32, 1, c, h, w);
        LogicalTensor dst = LogicalTensor.of(1, DataType.F32, 1, c, oh, ow);
        PoolPrimitive p = new PoolPrimitive(new PoolPrimitive.Desc(true, false, src.dims(), src.strides(), dst.dims(),
                new int[] {1, 3, 3}, new int[] {1, 2, 2}, new int[] {1, 1, 1}, new int[] {0, 1, 1}, false, 0,
                PostOpChain.EMPTY, new int[0]));
        return run(arena, p, List.of(src), dst);
    }

    /** The mean over the spatial dims of c channels at h x w (global average pooling), on the calling thread. */
    private static Runnable globalMean(Arena arena, int c, int h, int w) {
        LogicalTensor src = LogicalTensor.of(0, DataType.F32, 1, c, h, w);
        LogicalTensor dst = LogicalTensor.of(1, DataType.F32, 1, c, 1, 1);
        ReducePrimitive p = new ReducePrimitive(new ReducePrimitive.Desc(src.dims(), src.strides(),
                new boolean[] {false, false, true, true}, true, 0, PostOpChain.EMPTY, new int[0]));
        return run(arena, p, List.of(src), dst);
    }

    /** Runs {@code p} on fresh tensors of {@code arena} for its inputs and one output, with no pool or cache. */
    private static Runnable run(Arena arena, Primitive p, List<LogicalTensor> inputs, LogicalTensor output) {
        Engine e = Engine.cpu();
        Invocation inv = new Invocation(inputs.stream().map(t -> Tensor.allocate(t, e, arena)).toList(),
                List.of(Tensor.allocate(output, e, arena)), (CpuTeam) null, (input, form, bytes, producer) -> null);
        return () -> p.execute(inv);
    }

    /**
     * One NCHW convolution of c channels at h x w to k channels (r x r, stride, symmetric padding),
     * with bias, a residual add and ReLU, on the calling thread; the weights are a plain input.
     */
    private static Runnable conv(Arena arena, int c, int h, int w, int k, int r, int stride, int pad) {
        int oh = (h + 2 * pad - r) / stride + 1;
        int ow = (w + 2 * pad - r) / stride + 1;
        LogicalTensor src = LogicalTensor.of(0, DataType.F32, 1, c, h, w);
        LogicalTensor wei = LogicalTensor.of(1, DataType.F32, k, c, r, r);
        LogicalTensor bias = LogicalTensor.of(2, DataType.F32, k);
        LogicalTensor res = LogicalTensor.of(3, DataType.F32, 1, k, oh, ow);
        LogicalTensor dst = LogicalTensor.of(4, DataType.F32, 1, k, oh, ow);
        long[] out = dst.dims();
        PostOpChain chain = new PostOpChain(out, List.of(
                new PostOpChain.Bin(OpKind.Add, 0, new long[] {0, 1, 0, 0}, false),
                new PostOpChain.Bin(OpKind.Add, 1, PostOpChain.broadcastStrides(out, out), false),
                new PostOpChain.Act(new Activation(OpKind.ReLU, 0, 0, false))));
        ConvPrimitive p = new ConvPrimitive(new ConvPrimitive.Desc(src, wei, dst, false, false, 1,
                new long[] {stride, stride}, new long[] {1, 1}, new long[] {pad, pad}, 0, 1, false, chain,
                new int[] {2, 3}, new BatchNormAffine[0], null));
        Engine e = Engine.cpu();
        Invocation inv = new Invocation(
                List.of(Tensor.allocate(src, e, arena), Tensor.allocate(wei, e, arena), Tensor.allocate(bias, e, arena),
                        Tensor.allocate(res, e, arena)),
                List.of(Tensor.allocate(dst, e, arena)), (CpuTeam) null, (input, form, bytes, producer) -> null);
        return () -> p.execute(inv);
    }
}
