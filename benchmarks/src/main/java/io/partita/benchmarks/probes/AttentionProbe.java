package io.partita.benchmarks.probes;

import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.RandomInputs;

/**
 * Fused attention probe (not a test): the BERT-base attention block of the {@code dynamic}
 * benchmark (12 heads of 64, batch 1) at static sequence lengths, compiled by the standalone
 * runtime (the graph compiler claims it), median of many executions after warm-up, with the
 * GFLOPS of its two products (the score and value MatMuls).
 *
 * <pre>java ... probe attention [threads seconds S...]</pre>
 * Defaults: 2 threads, 3 s per length, lengths 128 and 384. {@code --dynamic} first: the block compiled
 * once with dynamic batch and sequence, executed as a compiled partition at each length.
 */
public final class AttentionProbe {
    public static void main(String[] args) {
        boolean dynamic = args.length > 0 && args[0].equals("--dynamic");
        if (dynamic) {
            args = Arrays.copyOfRange(args, 1, args.length);
        }
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
        long[] lengths = args.length > 2 ? Arrays.stream(args, 2, args.length).mapToLong(Long::parseLong).toArray()
                : new long[] {128, 384};
        GraphRuntime rt = GraphRuntime.standalone();
        rt.setThreads(threads);
        Engine e = Engine.cpu();
        for (long s : lengths) {
            if (dynamic) {
                dynamic(rt, s, seconds);
                continue;
            }
            Graph g = rt.createGraph(EngineKind.CPU);
            io.partita.benchmarks.dynamic.DynamicShapesBenchmark.build(g, 1, s, 1_000_000 + s * 100);
            g.finalizeGraph();
            String backends = g.partitions(PartitionPolicy.FUSION).stream().map(p -> p.backendId()).toList().toString();
            try (Arena arena = Arena.ofShared(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e)) {
                Map<Long, Tensor> in = RandomInputs.forGraph(rt, g, e, arena, 7);
                long end = System.nanoTime() + (long) (seconds * 0.3e9);
                while (System.nanoTime() < end) {
                    cg.execute(new Stream(e), in); // warm-up: the JIT compiles the loops
                }
                double[] t = new double[4096];
                int n = 0;
                end = System.nanoTime() + (long) (seconds * 1e9);
                while ((System.nanoTime() < end || n < 20) && n < t.length) {
                    long t0 = System.nanoTime();
                    cg.execute(new Stream(e), in);
                    t[n++] = (System.nanoTime() - t0) / 1e6;
                }
                Arrays.sort(t, 0, n);
                double median = t[n / 2];
                double flops = 12.0 * 2 * 2 * s * s * 64;
                System.out.printf(Locale.ROOT, "attention_s%d backends=%s runs=%d median_ms=%.3f p10_ms=%.3f gflops=%.1f%n",
                        s, backends, n, median, t[n / 10], flops / median / 1e6);
            }
        }
    }

    private static void dynamic(GraphRuntime rt, long s, double seconds) {
        Engine e = Engine.cpu();
        Graph g = rt.createGraph(EngineKind.CPU);
        long base = 2_000_000 + s * 100;
        io.partita.benchmarks.dynamic.DynamicShapesBenchmark.build(g, io.partita.graph.LogicalTensor.DYNAMIC_DIM,
                io.partita.graph.LogicalTensor.DYNAMIC_DIM, base);
        g.finalizeGraph();
        io.partita.graph.Partition part = g.partitions(PartitionPolicy.FUSION).get(0);
        io.partita.graph.CompiledPartition cp = part.compile(e);
        try (Arena arena = Arena.ofShared()) {
            java.util.List<Tensor> ins = new java.util.ArrayList<>();
            for (io.partita.graph.LogicalTensor t : cp.inputs()) {
                long[] dims = t.dims().clone();
                for (int i = 0; i < dims.length; i++) {
                    if (dims[i] == io.partita.graph.LogicalTensor.DYNAMIC_DIM) {
                        dims[i] = i == 0 ? 1 : s;
                    }
                }
                Tensor x = Tensor.allocate(io.partita.graph.LogicalTensor.of(t.id(), t.dataType(), dims), e, arena);
                float[] v = new float[(int) x.logicalTensor().elementCount()];
                java.util.SplittableRandom r = new java.util.SplittableRandom(t.id());
                for (int i = 0; i < v.length; i++) {
                    v[i] = (float) r.nextGaussian();
                }
                x.copyFrom(v);
                ins.add(x);
            }
            Tensor out = Tensor.allocate(cp.inferOutputs(ins.stream().map(Tensor::logicalTensor).toList()).get(0), e,
                    arena);
            Runnable run = () -> cp.execute(new Stream(e), ins, java.util.List.of(out));
            long end = System.nanoTime() + (long) (seconds * 0.3e9);
            while (System.nanoTime() < end) {
                run.run();
            }
            double[] t = new double[4096];
            int n = 0;
            end = System.nanoTime() + (long) (seconds * 1e9);
            while ((System.nanoTime() < end || n < 20) && n < t.length) {
                long t0 = System.nanoTime();
                run.run();
                t[n++] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(t, 0, n);
            double flops = 12.0 * 2 * 2 * s * s * 64;
            System.out.printf(Locale.ROOT, "attention_dynamic_s%d backend=%s runs=%d median_ms=%.3f p10_ms=%.3f gflops=%.1f%n",
                    s, part.backendId(), n, t[n / 2], t[n / 10], flops / t[n / 2] / 1e6);
        }
    }
}
