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
 * Defaults: 2 threads, 3 s per length, lengths 128 and 384.
 */
public final class AttentionProbe {
    public static void main(String[] args) {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
        long[] lengths = args.length > 2 ? Arrays.stream(args, 2, args.length).mapToLong(Long::parseLong).toArray()
                : new long[] {128, 384};
        GraphRuntime rt = GraphRuntime.standalone();
        rt.setThreads(threads);
        Engine e = Engine.cpu();
        for (long s : lengths) {
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
}
