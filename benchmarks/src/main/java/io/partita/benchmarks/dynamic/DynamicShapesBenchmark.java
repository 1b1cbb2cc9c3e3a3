package io.partita.benchmarks.dynamic;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.partita.benchmarks.Backends;
import io.partita.cache.CacheManager;
import io.partita.graph.CompiledGraph;
import io.partita.graph.CompiledPartition;
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
 * The graph compiler's figures, one run, ratios against anchors measured in the same process:
 * <ul>
 * <li>(a) BERT-base attention (12 heads of 64, batch 1) over 32 sequence lengths 16..512: one
 * compilation with DYNAMIC_DIM batch and sequence against a graph built, partitioned and compiled
 * per length (what a framework does without dynamic shapes). {@code ratio_compile} is per-shape
 * compile time over dynamic compile time, {@code ratio_total} the same for compile plus
 * {@code --iterations} executions per length.</li>
 * <li>(b) the same attention at fixed lengths, and a BERT-base-sized gated MLP (768 -> 3072 -> 768,
 * SiLU gate, constant weights) at 1 and 128 rows, fused by the graph compiler against one partition
 * per op on the DNNL-style backend: {@code ratio_fused} = per-op time / fused time (medians); for the
 * MLP also its floor on this machine (the products' flops at the measured FMA rate or their weights
 * at the measured read rate) and {@code ratio_fused_bound} = per-op time / floor, the most any fused
 * implementation could reach.</li>
 * <li>(c) the dynamic attention against ONNX Runtime Java running the same block as an ONNX model
 * with symbolic batch and sequence length, same inputs: {@code ratio_vs_ort} = ORT time / Partita
 * time (medians), with the largest output difference.</li>
 * <li>(d) code generation: classes, bytes, milliseconds per generated class.</li>
 * </ul>
 * {@code java -jar benchmarks.jar dynamic [--rounds R] [--iterations I]}
 */
public final class DynamicShapesBenchmark {
    private static final long HEADS = 12;
    private static final long HEAD = 64;
    private static final long WARMUP_NANOS = 2_000_000_000L;
    private static final long MLP_K = 768;
    private static final long MLP_N = 3072;

    private DynamicShapesBenchmark() {
    }

    public static void main(String[] args) {
        int rounds = 3;
        int iterations = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = positive(args, ++i);
                case "--iterations" -> iterations = positive(args, ++i);
                default -> throw new IllegalArgumentException("unknown argument '" + args[i]
                        + "'; expected --rounds N or --iterations N");
            }
        }
        CacheManager caches = StandaloneRuntime.newCacheManager();
        Backend compiler = Backends.byId("compiler", caches);
        Backend dnnl = Backends.byId("dnnl", caches);
        GraphRuntime fused = StandaloneRuntime.of(caches, compiler, dnnl);
        GraphRuntime perOp = StandaloneRuntime.of(StandaloneRuntime.newCacheManager(), Backends.byId("dnnl", caches));
        long[] lengths = new long[32];
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = 16 + i * (512 - 16) / 31;
        }
        System.out.println("(a) dynamic sweep: attention 12x64, batch 1, sequence lengths " + lengths[0] + ".."
                + lengths[lengths.length - 1] + " (" + lengths.length + " shapes), " + iterations
                + " executions per shape, " + rounds + " measured rounds after one warm-up round");
        List<double[]> sweep = new ArrayList<>();
        for (int r = 0; r <= rounds; r++) {
            double[] m = sweep(fused, lengths, iterations, r);
            if (r > 0) {
                sweep.add(m);
                System.out.printf(Locale.ROOT, "  round %d: dynamic compile %.1f ms total %.1f ms | per-shape compile %.1f ms"
                        + " total %.1f ms%n", r, m[0], m[1], m[2], m[3]);
            }
        }
        double dc = median(sweep, 0);
        double dt = median(sweep, 1);
        double sc = median(sweep, 2);
        double st = median(sweep, 3);
        System.out.printf(Locale.ROOT, "dynamic_sweep compile_dynamic_ms=%.1f compile_per_shape_ms=%.1f total_dynamic_ms=%.1f"
                + " total_per_shape_ms=%.1f ratio_compile=%.2f ratio_total=%.2f%n", dc, sc, dt, st, sc / dc, st / dt);

        System.out.println("(b) fused (graph compiler) vs one partition per op (DNNL-style backend)");
        for (long s : new long[] {128, 384}) {
            double f = medianExecution(fused, PartitionPolicy.FUSION, s, rounds * 5, "compiler");
            double u = medianExecution(perOp, PartitionPolicy.DEBUG, s, rounds * 5, "dnnl");
            System.out.printf(Locale.ROOT, "mha_s%d fused_ms=%.2f per_op_ms=%.2f ratio_fused=%.2f%n", s, f, u, u / f);
        }
        // The gated MLP is its three products: a fused loop can only save the rest, so the most it can
        // reach is the per-op time over the products' floor (their flops at the machine's FMA rate or
        // their weights at its read rate, whichever is longer).
        MachineFloor machine = new MachineFloor(Runtime.getRuntime().availableProcessors());
        double gflops = machine.fmaGflops();
        long weightBytes = 4L * 3 * MLP_K * MLP_N;
        double gbs = machine.readGbs(weightBytes);
        System.out.printf(Locale.ROOT, "machine fma_gflops=%.1f read_gbs=%.1f (%d MB, %d threads)%n", gflops, gbs,
                weightBytes >> 20, Runtime.getRuntime().availableProcessors());
        for (long m : new long[] {1, 128}) {
            double f = medianMlp(fused, PartitionPolicy.FUSION, m, rounds * 5, "compiler");
            double u = medianMlp(perOp, PartitionPolicy.DEBUG, m, rounds * 5, "dnnl");
            double flops = 2.0 * m * 3 * MLP_K * MLP_N;
            double floor = Math.max(flops / gflops / 1e6, weightBytes / gbs / 1e6);
            System.out.printf(Locale.ROOT, "gated_mlp_m%d fused_ms=%.2f per_op_ms=%.2f ratio_fused=%.2f floor_ms=%.2f"
                    + " ratio_fused_bound=%.2f%n", m, f, u, u / f, floor, u / floor);
        }
        System.out.println("(c) the same dynamic attention in ONNX Runtime (symbolic batch and sequence, "
                + Runtime.getRuntime().availableProcessors() + " intra-op threads)");
        for (long s : new long[] {128, 384}) {
            OrtComparison.Result r = OrtComparison.run(fused, s, HEADS, HEAD, rounds * 5);
            System.out.printf(Locale.ROOT, "mha_s%d partita_ms=%.2f ort_ms=%.2f max_abs_diff=%.2e ratio_vs_ort=%.2f%n", s,
                    r.partitaMs(), r.ortMs(), r.maxAbsDiff(), r.ortMs() / r.partitaMs());
        }
        String d = compiler.description();
        System.out.println("(d) code generation: " + d);
    }

    /**
     * [dynamic compile ms, dynamic total ms, per-shape compile ms, per-shape total ms] of one sweep.
     * Per shape, the dynamic and the per-shape partition run alternately on the same inputs, so
     * the machine's noise falls on both alike.
     */
    private static double[] sweep(GraphRuntime rt, long[] lengths, int iterations, int round) {
        Engine e = Engine.cpu();
        double[] m = new double[4];
        long t0 = System.nanoTime();
        Graph g = rt.createGraph(EngineKind.CPU);
        build(g, DYNAMIC_DIM, DYNAMIC_DIM, round * 1000L);
        g.finalizeGraph();
        CompiledPartition cp = only(g.partitions(PartitionPolicy.FUSION), "compiler").compile(e);
        m[0] = (System.nanoTime() - t0) / 1e6;
        m[1] = m[0];
        for (long s : lengths) {
            long c0 = System.nanoTime();
            Graph sg = rt.createGraph(EngineKind.CPU);
            build(sg, 1, s, round * 1000L + 100 + s * 10);
            sg.finalizeGraph();
            CompiledPartition scp = only(sg.partitions(PartitionPolicy.FUSION), "compiler").compile(e);
            double c = (System.nanoTime() - c0) / 1e6;
            m[2] += c;
            m[3] += c;
            try (Arena arena = Arena.ofShared()) {
                Execution dyn = new Execution(rt, cp, s, arena, round);
                Execution stat = new Execution(rt, scp, s, arena, round);
                for (int i = 0; i < iterations; i++) {
                    m[1] += dyn.timeMs();
                    m[3] += stat.timeMs();
                }
            }
        }
        return m;
    }

    /** One compiled attention with inputs and output for batch 1, length s. */
    private static final class Execution {
        private final CompiledPartition cp;
        private final List<Tensor> ins;
        private final Tensor out;

        Execution(GraphRuntime rt, CompiledPartition cp, long s, Arena arena, int seed) {
            this.cp = cp;
            Map<Long, Tensor> in = inputs(rt, cp, s, arena, seed);
            ins = cp.inputs().stream().map(t -> in.get(t.id())).toList();
            LogicalTensor o = cp.inferOutputs(ins.stream().map(Tensor::logicalTensor).toList()).get(0);
            out = Tensor.allocate(o, Engine.cpu(), arena);
        }

        double timeMs() {
            long t0 = System.nanoTime();
            cp.execute(new Stream(Engine.cpu()), ins, List.of(out));
            return (System.nanoTime() - t0) / 1e6;
        }
    }

    /** Inputs for length s, keyed by the compiled partition's input ids (whatever their base). */
    private static Map<Long, Tensor> inputs(GraphRuntime rt, CompiledPartition cp, long s, Arena arena, int seed) {
        long base = cp.inputs().get(0).id();
        Graph g = rt.reference().createGraph(EngineKind.CPU);
        build(g, 1, s, base);
        g.finalizeGraph();
        return RandomInputs.forGraph(rt, g, Engine.cpu(), arena, seed);
    }

    private static double medianExecution(GraphRuntime rt, PartitionPolicy policy, long s, int runs, String backend) {
        Graph g = rt.createGraph(EngineKind.CPU);
        build(g, 1, s, 900_000 + s * 100 + (policy == PartitionPolicy.DEBUG ? 50 : 0));
        g.finalizeGraph();
        return median(rt, g, policy, runs, backend);
    }

    private static double medianMlp(GraphRuntime rt, PartitionPolicy policy, long m, int runs, String backend) {
        Graph g = rt.createGraph(EngineKind.CPU);
        buildMlp(g, m, 800_000 + m * 100 + (policy == PartitionPolicy.DEBUG ? 50 : 0));
        g.finalizeGraph();
        return median(rt, g, policy, runs, backend);
    }

    /**
     * Median milliseconds of a graph's execution after a warm-up of at least {@value #WARMUP_NANOS} ns
     * (five runs left the fused kernels to the interpreter and C1 while the DNNL-style backend's own
     * warm-up thread had compiled its kernels already: the m1 MLP measured 1.2-1.4 ms, 0.44 ms warm).
     */
    private static double median(GraphRuntime rt, Graph g, PartitionPolicy policy, int runs, String backend) {
        Engine e = Engine.cpu();
        if (g.partitions(policy).stream().noneMatch(p -> p.backendId().equals(backend))) {
            throw new IllegalStateException("expected partitions of backend " + backend + ", got " + g.partitions(policy));
        }
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = rt.compile(g, policy, e)) {
            Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, e, arena, 7);
            long warm = System.nanoTime();
            for (int i = 0; i < 5 || System.nanoTime() - warm < WARMUP_NANOS; i++) {
                cg.execute(new Stream(e), in); // warm-up: until the JIT has compiled the kernels
            }
            double[] t = new double[runs];
            for (int i = 0; i < runs; i++) {
                long t0 = System.nanoTime();
                cg.execute(new Stream(e), in);
                t[i] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(t);
            return t[runs / 2];
        }
    }

    /** BERT attention on [B,12,S,64] Q, K, V: scores / 8 + mask [B,1,1,S], SoftMax, x V, to [B,S,12,64]. */
    public static void build(Graph g, long b, long s, long base) {
        g.add(Op.builder(base, OpKind.MatMul).inputs(f32(base, b, HEADS, s, HEAD), f32(base + 1, b, HEADS, s, HEAD))
                .attr("transpose_b", true).output(f32(base + 10, b, HEADS, s, s)).build());
        g.add(Op.builder(base + 1, OpKind.Divide)
                .inputs(f32(base + 10, b, HEADS, s, s), f32(base + 2).withProperty(PropertyType.CONSTANT))
                .output(f32(base + 11, b, HEADS, s, s)).build());
        g.add(Op.builder(base + 2, OpKind.Add).inputs(f32(base + 11, b, HEADS, s, s), f32(base + 3, b, 1, 1, s))
                .output(f32(base + 12, b, HEADS, s, s)).build());
        g.add(Op.builder(base + 3, OpKind.SoftMax).input(f32(base + 12, b, HEADS, s, s)).attr("axis", -1L)
                .output(f32(base + 13, b, HEADS, s, s)).build());
        g.add(Op.builder(base + 4, OpKind.MatMul).inputs(f32(base + 13, b, HEADS, s, s), f32(base + 4, b, HEADS, s, HEAD))
                .output(f32(base + 14, b, HEADS, s, HEAD)).build());
        g.add(Op.builder(base + 5, OpKind.StaticTranspose).input(f32(base + 14, b, HEADS, s, HEAD))
                .attr("order", 0L, 2L, 1L, 3L).output(f32(base + 15, b, s, HEADS, HEAD)).build());
    }

    /** Gated MLP of BERT-base size: X [m,768], SiLU(X Wg) * (X Wu) then x Wd [3072,768], constant weights. */
    static void buildMlp(Graph g, long m, long base) {
        long k = MLP_K;
        long n = MLP_N;
        g.add(Op.builder(base, OpKind.MatMul).inputs(f32(base, m, k), weight(base + 1, k, n))
                .output(f32(base + 10, m, n)).build());
        g.add(Op.builder(base + 1, OpKind.Sigmoid).input(f32(base + 10, m, n)).output(f32(base + 11, m, n)).build());
        g.add(Op.builder(base + 2, OpKind.Multiply).inputs(f32(base + 10, m, n), f32(base + 11, m, n))
                .output(f32(base + 12, m, n)).build());
        g.add(Op.builder(base + 3, OpKind.MatMul).inputs(f32(base, m, k), weight(base + 2, k, n))
                .output(f32(base + 13, m, n)).build());
        g.add(Op.builder(base + 4, OpKind.Multiply).inputs(f32(base + 12, m, n), f32(base + 13, m, n))
                .output(f32(base + 14, m, n)).build());
        g.add(Op.builder(base + 5, OpKind.MatMul).inputs(f32(base + 14, m, n), weight(base + 3, n, k))
                .output(f32(base + 15, m, k)).build());
    }

    private static LogicalTensor weight(long id, long... dims) {
        return f32(id, dims).withProperty(PropertyType.CONSTANT);
    }

    private static LogicalTensor f32(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    private static Partition only(List<Partition> parts, String backend) {
        if (parts.size() != 1 || !parts.get(0).backendId().equals(backend)) {
            throw new IllegalStateException("expected one " + backend + " partition, got " + parts);
        }
        return parts.get(0);
    }

    private static double median(List<double[]> rows, int col) {
        double[] v = rows.stream().mapToDouble(r -> r[col]).sorted().toArray();
        return v[v.length / 2];
    }

    private static int positive(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a number");
        }
        try {
            int v = Integer.parseInt(args[i]);
            if (v < 1) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(args[i - 1] + " must be a positive whole number, got '" + args[i] + "'");
        }
    }
}
