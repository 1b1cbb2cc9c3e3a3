package io.partita.benchmarks.acl;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import io.partita.backend.acl.internal.AclBackend;
import io.partita.backend.acl.internal.memory.PoolBudget;
import io.partita.benchmarks.Backends;
import io.partita.cache.CacheManager;
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
 * The ACL-style backend's pooled memory against its on-demand baseline, through the public Graph
 * API on the plain class path, and the same graphs on the DNNL-style backend for reference:
 * <ul>
 * <li>{@code conv_stack}: a ResNet-50-like chain of eight convolutions with bias and ReLU
 * (1x1 and 3x3, three of them stride 2) from 56x56x64 to 7x7x512, batch 1, NCHW f32, constant
 * weights;</li>
 * <li>{@code bert_stack}: a BERT-base feed-forward block, X [128, 768], FC 768→3072 with bias and
 * ReLU, FC 3072→768 with bias, residual Add of X.</li>
 * </ul>
 * Three runtimes per stack, each with caches of its own: acl (only acl and the reference) with the
 * cached memory manager, acl with the on-demand one, and dnnl. After a warm-up they run in
 * rotation, one execution each per round, so the machine's noise falls on all alike; medians are
 * printed with {@code ratio_pooled} = on-demand time / cached time and {@code ratio_acl_dnnl} = acl
 * (cached) time / dnnl time. Per inference in steady state: heap bytes allocated (all threads,
 * {@code com.sun.management.ThreadMXBean}), native pools allocated by the acl memory manager and their
 * bytes; and peak pooled bytes (kept pools) and peak live pool bytes (kept plus in flight).
 * {@code java --add-modules jdk.incubator.vector -jar benchmarks.jar acl [--rounds R] [--warmup-s S] [--dnnl-threads T] [--stacks conv,bert]},
 * or {@code acl --layers [--rounds R] [--warmup-s S]}: each 3x3 stride-1 convolution alone, Winograd against im2col.
 */
public final class AclBenchmark {
    private AclBenchmark() {
    }

    public static void main(String[] args) {
        int rounds = 21;
        double warmupS = 3;
        int dnnlThreads = 1;
        List<String> stacks = List.of("conv", "bert");
        boolean layers = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = (int) number(args, ++i);
                case "--warmup-s" -> warmupS = number(args, ++i);
                case "--dnnl-threads" -> dnnlThreads = (int) number(args, ++i);
                case "--stacks" -> stacks = List.of(args[++i].split(","));
                case "--layers" -> layers = true;
                default -> throw new IllegalArgumentException("unknown argument '" + args[i]
                        + "'; expected --rounds N, --warmup-s S, --dnnl-threads T, --stacks conv,bert or --layers");
            }
        }
        System.out.println("acl benchmark: acl cached vs on-demand memory manager, dnnl for reference ("
                + dnnlThreads + " dnnl thread(s); the acl kernels run on the calling thread), " + rounds
                + " rounds after " + warmupS + " s warm-up, Java " + Runtime.version());
        if (layers) {
            layers(rounds, warmupS);
            return;
        }
        for (String stack : stacks) {
            switch (stack) {
                case "conv" -> run("conv_stack", AclBenchmark::convStack, 2L * convMacs(), rounds, warmupS, dnnlThreads);
                case "bert" -> run("bert_stack", AclBenchmark::bertStack, 2L * 2 * 128 * 768 * 3072, rounds, warmupS,
                        dnnlThreads);
                default -> throw new IllegalArgumentException("no stack " + stack + " (conv, bert)");
            }
        }
    }

    /** One runtime under test: its compiled graph, and the acl backend's pool counters (null for dnnl). */
    private static final class Contender {
        final String name;
        final GraphRuntime rt;
        final PoolBudget pools;
        final Backend backend;
        CompiledGraph cg;
        String partitions;
        final List<Double> ms = new ArrayList<>();
        final List<Long> heap = new ArrayList<>();
        long poolAllocs0, poolBytes0, poolNanos0;
        long poolAllocs, poolBytes, poolNanos;

        Contender(String name, GraphRuntime rt, Backend backend, PoolBudget pools) {
            this.name = name;
            this.rt = rt;
            this.backend = backend;
            this.pools = pools;
        }
    }

    private static void run(String stack, Consumer<Graph> build, long flops, int rounds, double warmupS,
            int dnnlThreads) {
        List<Contender> cs = new ArrayList<>();
        for (boolean cached : new boolean[] {true, false}) {
            CacheManager caches = StandaloneRuntime.newCacheManager();
            AclBackend acl = (AclBackend) Backends.byId("acl", caches);
            acl.setCachedMemory(cached);
            cs.add(new Contender(cached ? "acl_cached" : "acl_on_demand", StandaloneRuntime.of(caches, acl), acl,
                    acl.budget()));
        }
        CacheManager dc = StandaloneRuntime.newCacheManager();
        Backend dnnl = Backends.byId("dnnl", dc);
        GraphRuntime drt = StandaloneRuntime.of(dc, dnnl);
        drt.setThreads(dnnlThreads);
        cs.add(new Contender("dnnl", drt, dnnl, null));
        if (stack.startsWith("conv")) { // the same with every convolution as im2col + GEMM
            CacheManager caches = StandaloneRuntime.newCacheManager();
            AclBackend acl = (AclBackend) Backends.byId("acl", caches);
            acl.setWinograd(false);
            cs.add(new Contender("acl_im2col", StandaloneRuntime.of(caches, acl), acl, acl.budget()));
        }

        Engine e = Engine.cpu();
        Stream s = new Stream(e);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofShared()) {
            Map<Long, Tensor> in = null;
            for (Contender c : cs) {
                Graph g = c.rt.createGraph(EngineKind.CPU);
                build.accept(g);
                g.finalizeGraph();
                Map<String, Integer> byPattern = new TreeMap<>();
                for (Partition p : g.partitions(PartitionPolicy.FUSION)) {
                    byPattern.merge(p.backendId() + ":" + p.pattern(), 1, Integer::sum);
                }
                c.partitions = byPattern.toString();
                if (byPattern.keySet().stream().anyMatch(k -> !k.startsWith(c.backend.id() + ":"))) {
                    System.out.println("  note: " + c.name + " leaves ops to other backends: " + c.partitions);
                }
                if (in == null) {
                    in = RandomInputs.forGraph(c.rt, g, e, arena, 11);
                }
                c.cg = c.rt.compile(g, PartitionPolicy.FUSION, e);
            }
            // outputs of every contender against the first: a benchmark of wrong results is no benchmark
            Map<Long, Tensor> first = cs.get(0).cg.execute(s, in);
            double maxDiff = 0, maxAbs = 0;
            for (Contender c : cs.subList(1, cs.size())) {
                Map<Long, Tensor> out = c.cg.execute(s, in);
                for (Map.Entry<Long, Tensor> x : first.entrySet()) {
                    float[] a = x.getValue().toFloatArray();
                    float[] b = out.get(x.getKey()).toFloatArray();
                    for (int i = 0; i < a.length; i++) {
                        maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
                        maxAbs = Math.max(maxAbs, Math.abs(a[i]));
                    }
                }
            }
            long end = System.nanoTime() + (long) (warmupS * 1e9);
            int warm = 0;
            while (warm < 5 || System.nanoTime() < end) {
                for (Contender c : cs) {
                    c.cg.execute(s, in);
                }
                warm++;
            }
            for (Contender c : cs) {
                if (c.pools != null) {
                    c.poolAllocs0 = c.pools.poolAllocations();
                    c.poolBytes0 = c.pools.poolBytesAllocated();
                    c.poolNanos0 = c.pools.poolNanos();
                }
            }
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < cs.size(); k++) {
                    Contender c = cs.get((k + r) % cs.size()); // rotated: no contender always runs first
                    long h0 = heapAllocated(mx);
                    long t0 = System.nanoTime();
                    c.cg.execute(s, in);
                    long t1 = System.nanoTime();
                    c.heap.add(heapAllocated(mx) - h0);
                    c.ms.add((t1 - t0) / 1e6);
                }
            }
            for (Contender c : cs) {
                if (c.pools != null) {
                    c.poolAllocs = c.pools.poolAllocations() - c.poolAllocs0;
                    c.poolBytes = c.pools.poolBytesAllocated() - c.poolBytes0;
                    c.poolNanos = c.pools.poolNanos() - c.poolNanos0;
                }
            }
            Contender cached = cs.get(0), onDemand = cs.get(1), dn = cs.get(2);
            double mc = median(cached.ms), mo = median(onDemand.ms), md = median(dn.ms);
            System.out.printf(Locale.ROOT, "%s partitions acl=%s dnnl=%s max_diff_over_max_abs=%.1e%n", stack, cached.partitions,
                    dn.partitions, maxDiff / Math.max(maxAbs, Float.MIN_NORMAL));
            System.out.printf(Locale.ROOT, "%s cached_ms=%.2f on_demand_ms=%.2f ratio_pooled=%.2f dnnl_ms=%.2f"
                    + " ratio_acl_dnnl=%.2f acl_gflops=%.1f%n", stack, mc, mo, mo / mc, md, mc / md, flops / mc / 1e6);
            System.out.printf(Locale.ROOT, "%s per_inference heap_bytes cached=%d on_demand=%d dnnl=%d |"
                    + " native_pools cached=%.2f on_demand=%.2f | native_pool_bytes cached=%d on_demand=%d%n", stack,
                    medianLong(cached.heap), medianLong(onDemand.heap), medianLong(dn.heap),
                    (double) cached.poolAllocs / rounds, (double) onDemand.poolAllocs / rounds,
                    cached.poolBytes / rounds, onDemand.poolBytes / rounds);
            // What the on-demand manager spends in its pools per inference (allocating, zeroing, freeing):
            // all that keeping them can save, so on-demand time over on-demand time without it bounds ratio_pooled.
            double poolMs = onDemand.poolNanos / 1e6 / rounds;
            System.out.printf(Locale.ROOT, "%s on_demand_pool_ms=%.3f (mean per inference) ratio_pooled_bound=%.2f%n", stack,
                    poolMs, mo / Math.max(mo - poolMs, Double.MIN_NORMAL));
            System.out.printf(Locale.ROOT, "%s peak_pooled_bytes cached=%d | peak_live_pool_bytes cached=%d"
                    + " on_demand=%d%n", stack, cached.pools.peakPooledBytes(), cached.pools.peakLivePoolBytes(),
                    onDemand.pools.peakLivePoolBytes());
            if (cs.size() > 3) {
                Contender im2col = cs.get(3);
                double mi = median(im2col.ms);
                System.out.printf(Locale.ROOT, "%s partitions acl_im2col=%s im2col_ms=%.2f ratio_winograd=%.2f"
                        + " (cached, im2col time / time with Winograd where claimed)%n", stack, im2col.partitions, mi,
                        mi / mc);
            }
        } finally {
            for (Contender c : cs) {
                if (c.cg != null) {
                    c.cg.close();
                }
                c.backend.close();
            }
        }
    }

    /** 3x3 stride-1 convolutions {cin, cout, size}: ResNet-50's stages and smaller channel counts. */
    private static final int[][] LAYERS = {
        {16, 16, 56}, {32, 32, 56}, {64, 64, 56}, {128, 128, 28}, {256, 256, 14}, {512, 512, 7}, {32, 64, 28}, {256, 256, 7}, {64, 64, 14},
    };

    /** Each 3x3 stride-1 convolution (+ bias, ReLU, NCHW) alone: Winograd against im2col + GEMM, both cached. */
    private static void layers(int rounds, double warmupS) {
        Engine e = Engine.cpu();
        Stream s = new Stream(e);
        for (int[] l : LAYERS) {
            int[] c = {l[0], l[1], 3, 1, l[2]};
            Consumer<Graph> build = g -> {
                LogicalTensor x = f32(0, 1, c[0], c[4], c[4]);
                LogicalTensor y = f32(3, 1, c[1], c[4], c[4]);
                g.add(Op.builder(0, OpKind.Convolution).inputs(x, constant(1, c[1], c[0], 3, 3), constant(2, c[1]))
                        .output(y).attr("strides", 1L, 1L).attr("pads_begin", 1L, 1L).attr("pads_end", 1L, 1L)
                        .attr("dilations", 1L, 1L).attr("groups", 1L).attr("data_format", "NCX")
                        .attr("weights_format", "OIX").build());
                g.add(Op.builder(1, OpKind.ReLU).input(y).output(f32(4, 1, c[1], c[4], c[4])).build());
            };
            List<CompiledGraph> graphs = new ArrayList<>();
            List<Backend> backends = new ArrayList<>();
            List<String> patterns = new ArrayList<>();
            try (Arena arena = Arena.ofShared()) {
                Map<Long, Tensor> in = null;
                for (boolean w : new boolean[] {false, true}) {
                    CacheManager caches = StandaloneRuntime.newCacheManager();
                    AclBackend acl = (AclBackend) Backends.byId("acl", caches);
                    acl.setWinograd(w);
                    backends.add(acl);
                    GraphRuntime rt = StandaloneRuntime.of(caches, acl);
                    Graph g = rt.createGraph(EngineKind.CPU);
                    build.accept(g);
                    g.finalizeGraph();
                    patterns.add(g.partitions(PartitionPolicy.FUSION).get(0).pattern());
                    if (in == null) {
                        in = RandomInputs.forGraph(rt, g, e, arena, 5);
                    }
                    graphs.add(rt.compile(g, PartitionPolicy.FUSION, e));
                }
                long end = System.nanoTime() + (long) (warmupS * 1e9);
                for (int i = 0; i < 3 || System.nanoTime() < end; i++) {
                    for (CompiledGraph cg : graphs) {
                        cg.execute(s, in);
                    }
                }
                List<List<Double>> ms = List.of(new ArrayList<>(), new ArrayList<>());
                for (int r = 0; r < rounds; r++) {
                    for (int k = 0; k < 2; k++) {
                        int j = (k + r) % 2;
                        long t0 = System.nanoTime();
                        graphs.get(j).execute(s, in);
                        ms.get(j).add((System.nanoTime() - t0) / 1e6);
                    }
                }
                double im2col = median(ms.get(0)), wino = median(ms.get(1));
                System.out.printf(Locale.ROOT, "conv3x3 %dx%dx%d->%d %s_ms=%.3f %s_ms=%.3f ratio_winograd=%.2f%n", c[4],
                        c[4], c[0], c[1], patterns.get(0), im2col, patterns.get(1), wino, im2col / wino);
            } finally {
                graphs.forEach(CompiledGraph::close);
                backends.forEach(Backend::close);
            }
        }
    }

    /** Heap bytes allocated so far by all threads (the dnnl pool's too), or by this thread where unsupported. */
    private static long heapAllocated(com.sun.management.ThreadMXBean mx) {
        try {
            long t = mx.getTotalThreadAllocatedBytes();
            if (t >= 0) {
                return t;
            }
        } catch (UnsupportedOperationException e) {
            // fall through
        }
        return mx.getCurrentThreadAllocatedBytes();
    }

    /** The conv stack: {cin, cout, kernel, stride, input size}, each conv with bias and ReLU. */
    private static final int[][] CONVS = {
        {64, 64, 1, 1, 56}, {64, 64, 3, 1, 56}, {64, 128, 3, 2, 56}, {128, 128, 3, 1, 28},
        {128, 256, 3, 2, 28}, {256, 256, 3, 1, 14}, {256, 512, 3, 2, 14}, {512, 512, 1, 1, 7},
    };

    /** Multiply-adds of the conv stack. */
    private static long convMacs() {
        long macs = 0;
        for (int[] c : CONVS) {
            long o = (c[4] + 2L * (c[2] / 2) - c[2]) / c[3] + 1;
            macs += o * o * c[0] * c[1] * c[2] * c[2];
        }
        return macs;
    }

    static void convStack(Graph g) {
        long id = 0;
        long op = 0;
        LogicalTensor x = f32(id++, 1, CONVS[0][0], CONVS[0][4], CONVS[0][4]);
        for (int[] c : CONVS) {
            long k = c[2], pad = k / 2, o = (c[4] + 2 * pad - k) / c[3] + 1;
            LogicalTensor w = constant(id++, c[1], c[0], k, k);
            LogicalTensor b = constant(id++, c[1]);
            LogicalTensor y = f32(id++, 1, c[1], o, o);
            g.add(Op.builder(op++, OpKind.Convolution).inputs(x, w, b).output(y)
                    .attr("strides", (long) c[3], (long) c[3]).attr("pads_begin", pad, pad).attr("pads_end", pad, pad)
                    .attr("dilations", 1L, 1L).attr("groups", 1L).attr("data_format", "NCX")
                    .attr("weights_format", "OIX").build());
            LogicalTensor r = f32(id++, 1, c[1], o, o);
            g.add(Op.builder(op++, OpKind.ReLU).input(y).output(r).build());
            x = r;
        }
    }

    static void bertStack(Graph g) {
        long s = 128, h = 768, f = 3072;
        LogicalTensor x = f32(0, s, h);
        LogicalTensor h1 = f32(3, s, f), r1 = f32(4, s, f), h2 = f32(7, s, h), out = f32(8, s, h);
        g.add(Op.builder(0, OpKind.MatMul).inputs(x, constant(1, h, f), constant(2, f)).output(h1).build());
        g.add(Op.builder(1, OpKind.ReLU).input(h1).output(r1).build());
        g.add(Op.builder(2, OpKind.MatMul).inputs(r1, constant(5, f, h), constant(6, h)).output(h2).build());
        g.add(Op.builder(3, OpKind.Add).inputs(h2, x).output(out).build());
    }

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    private static LogicalTensor constant(long id, long... dims) {
        return f32(id, dims).withProperty(PropertyType.CONSTANT);
    }

    private static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a[a.length / 2];
    }

    private static long medianLong(List<Long> v) {
        long[] a = v.stream().mapToLong(Long::longValue).sorted().toArray();
        return a[a.length / 2];
    }

    private static double number(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a number");
        }
        try {
            double v = Double.parseDouble(args[i]);
            if (!(v > 0)) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException ex) {
            throw new IllegalArgumentException(args[i - 1] + " must be a positive number, got '" + args[i] + "'");
        }
    }
}
