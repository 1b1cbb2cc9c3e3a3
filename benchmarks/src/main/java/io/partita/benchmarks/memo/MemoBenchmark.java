package io.partita.benchmarks.memo;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.partita.benchmarks.Backends;
import io.partita.cache.CacheManager;
import io.partita.cache.CaptureMemo;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.runtime.StandaloneRuntime;
import io.partita.spi.Backend;
import io.partita.testkit.check.RandomInputs;

/**
 * Host time per execute of a graph of 24 small kernels, replaying memoized recordings against
 * planning, creating and binding everything on every call ({@code CaptureMemo.setEnabled}), in the
 * same process on the same compiled graph, in alternating blocks.
 *
 * <ul>
 * <li>gpu: a chain of 24 MatMuls of 64x64 (constant weights) on engine gpu.0, one partition
 * {@code graph_of_24_kernels}. Host time is the calling thread's CPU time
 * ({@code ThreadMXBean.getCurrentThreadCpuTime}): the kernels run on the OpenCL device (PoCL's
 * worker threads on a CPU device), so the caller's CPU time is what the host spends per call
 * (copies included). Wall time is printed beside it.
 * <li>cpu: a chain of 24 elementwise ops on 1x16 tensors, one partition per op (the debug policy),
 * on the CPU backends: the kernels are tiny, so time per call is nearly all host overhead.
 * </ul>
 *
 * Each prints {@code ratio_memo=X}: median host time per call unmemoized over memoized. The gpu case
 * also prints the device's floor ({@link JoclFloor}: the same launches in plain JOCL, no Partita code)
 * and {@code ratio_memo_bound}, the unmemoized time over that floor: the most any memoization could give there.
 * Arguments: {@code [gpu|cpu|both] [calls per block, default 300 on gpu and 3000 on cpu] [blocks,
 * default 10]}; both paths warm up first, in alternating blocks, for at least 3 s and until the backends'
 * background warm-up threads have ended (measuring while the JIT is still busy gave memoized times 3-5x
 * the settled ones). {@code -Dmemo.gpu.n=N} sets the gpu
 * MatMuls' size (default 64).
 */
public final class MemoBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int CHAIN = 24;
    /** Shortest warm-up, and the longest wait for the backends' warm-up threads. */
    private static final long WARMUP_MS = 3_000;
    private static final long WARMUP_CAP_MS = 60_000;

    private MemoBenchmark() {
    }

    public static void main(String[] args) {
        String which = args.length > 0 ? args[0] : "both";
        int blocks = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        if (which.equals("gpu") || which.equals("both")) {
            gpu(args.length > 1 ? Integer.parseInt(args[1]) : 300, blocks);
        }
        if (which.equals("cpu") || which.equals("both")) {
            cpu(args.length > 1 ? Integer.parseInt(args[1]) : 3000, blocks);
        }
    }

    private static void gpu(int calls, int blocks) {
        CacheManager caches = StandaloneRuntime.newCacheManager();
        Backend gpu = Backends.byId("gpu", caches);
        GraphRuntime rt = StandaloneRuntime.of(caches, gpu);
        Engine e = new Engine(EngineKind.GPU, 0);
        Graph g = rt.createGraph(EngineKind.GPU);
        long id = 0;
        int n = Integer.getInteger("memo.gpu.n", 64);
        LogicalTensor x = f32(id++, n, n);
        for (int i = 0; i < CHAIN; i++) {
            LogicalTensor w = f32(id++, n, n).withProperty(PropertyType.CONSTANT);
            LogicalTensor y = f32(id++, n, n);
            g.add(Op.builder(i, OpKind.MatMul).inputs(x, w).output(y).build());
            x = y;
        }
        g.finalizeGraph();
        double unmemoized = run("gpu", rt, g, PartitionPolicy.FUSION, e, calls, blocks, true);
        gpu.close();
        double floor = JoclFloor.medianNanos(n, CHAIN, calls);
        System.out.println(String.format(Locale.ROOT, "memo gpu floor: plain JOCL, one write, %d pre-bound launches"
                + " and one read: host cpu time %.1f us per call (median of %d)  floor_us=%.1f"
                + "  ratio_memo_bound=%.2f", CHAIN, floor / 1e3, calls, floor / 1e3, unmemoized / floor));
    }

    private static void cpu(int calls, int blocks) {
        GraphRuntime rt = GraphRuntime.standalone();
        Engine e = Engine.cpu();
        Graph g = rt.createGraph(EngineKind.CPU);
        OpKind[] kinds = {OpKind.ReLU, OpKind.Tanh, OpKind.Sigmoid, OpKind.Abs};
        long id = 0;
        LogicalTensor x = f32(id++, 1, 16);
        for (int i = 0; i < CHAIN; i++) {
            LogicalTensor y = f32(id++, 1, 16);
            g.add(Op.builder(i, kinds[i % kinds.length]).input(x).output(y).build());
            x = y;
        }
        g.finalizeGraph();
        run("cpu", rt, g, PartitionPolicy.DEBUG, e, calls, blocks, false);
    }

    /** Prints the figures; returns the unmemoized median host time per call (ns). */
    private static double run(String name, GraphRuntime rt, Graph g, PartitionPolicy policy, Engine e, int calls,
            int blocks, boolean cpuTime) {
        List<Partition> parts = g.partitions(policy);
        String shape = parts.size() == 1 ? parts.get(0).pattern() + " (" + parts.get(0).backendId() + ")"
                : parts.size() + " partitions (" + parts.get(0).backendId() + ", ...)";
        boolean was = CaptureMemo.enabled();
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = rt.compile(g, policy, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, e, arena, 7);
            Stream s = new Stream(e);
            double[] off = new double[blocks * calls];
            double[] on = new double[blocks * calls];
            double[] offWall = new double[blocks * calls];
            double[] onWall = new double[blocks * calls];
            // Warm-up of both paths until the JIT has settled: at least WARMUP_MS, and until the backends'
            // own warm-up threads (which compete for the two cores and the compiler queue) have ended.
            long warmStart = System.nanoTime();
            int warmBlocks = 0;
            do {
                for (boolean memo : new boolean[] {false, true}) {
                    CaptureMemo.setEnabled(memo);
                    block(cg, s, in, calls, null, null, 0, cpuTime);
                }
                warmBlocks++;
            } while (warmBlocks < 3 || (System.nanoTime() - warmStart < WARMUP_MS * 1_000_000L
                    || backendWarmupRunning()) && System.nanoTime() - warmStart < WARMUP_CAP_MS * 1_000_000L);
            for (int b = 0; b < blocks; b++) {
                CaptureMemo.setEnabled(false);
                block(cg, s, in, calls, off, offWall, b * calls, cpuTime);
                CaptureMemo.setEnabled(true);
                block(cg, s, in, calls, on, onWall, b * calls, cpuTime);
            }
            double mOff = median(off);
            double mOn = median(on);
            System.out.println(String.format(Locale.ROOT,
                    "memo %s: %s, %d kernels, host %s per execute (median of %d): unmemoized %.1f us, memoized %.1f us"
                            + " (wall %.1f / %.1f us)  ratio_memo=%.2f",
                    name, shape, CHAIN, cpuTime ? "cpu time" : "time", blocks * calls, mOff / 1e3, mOn / 1e3,
                    median(offWall) / 1e3, median(onWall) / 1e3, mOff / mOn));
            return mOff;
        } finally {
            CaptureMemo.setEnabled(was);
        }
    }

    /** Whether a backend's background warm-up thread (named {@code *-warmup}) is still running. */
    private static boolean backendWarmupRunning() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().endsWith("-warmup") && t.isAlive());
    }

    private static void block(CompiledGraph cg, Stream s, Map<Long, Tensor> in, int calls, double[] host,
            double[] wall, int at, boolean cpuTime) {
        for (int i = 0; i < calls; i++) {
            long c0 = cpuTime ? THREADS.getCurrentThreadCpuTime() : 0;
            long t0 = System.nanoTime();
            cg.execute(s, in);
            long t1 = System.nanoTime();
            long c1 = cpuTime ? THREADS.getCurrentThreadCpuTime() : 0;
            if (host != null) {
                host[at + i] = cpuTime ? c1 - c0 : t1 - t0;
                wall[at + i] = t1 - t0;
            }
        }
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

}
