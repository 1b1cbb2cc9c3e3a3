package io.partita.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import io.partita.benchmarks.anchors.AnchorsCommand;
import io.partita.benchmarks.cache.ConstantCacheHitBenchmark;
import io.partita.benchmarks.primitive.PrimitiveCreationBenchmark;

/**
 * Runs Partita's benchmarks and prints one line per case with the ratio against its anchor
 * measured in the same run. {@code java -jar benchmarks.jar cache} runs the cache hit path with 1
 * and 2 threads; {@code java -jar benchmarks.jar anchors [...]} compares Partita with native oneDNN
 * and ONNX Runtime on matmul, conv and MLP cases (see {@link AnchorsCommand}); {@code primitive}
 * measures compiling a partition whose primitive the DNNL-style backend has cached; {@code dynamic} the graph
 * compiler's dynamic-shape sweep and fused attention ({@link io.partita.benchmarks.dynamic.DynamicShapesBenchmark});
 * {@code acl} the ACL-style backend's cached against on-demand memory manager on a conv and a BERT stack
 * ({@link io.partita.benchmarks.acl.AclBenchmark});
 * {@code models OUTDIR} writes the network models the anchors run (ResNet-50, a BERT-base layer) as ONNX files
 * ({@link io.partita.benchmarks.models.ModelsCommand});
 * {@code memo} the host time per execute with and without memoized recordings
 * ({@link io.partita.benchmarks.memo.MemoBenchmark}); {@code warm} the first compile in a fresh JVM, cold
 * against the warm persistent store ({@link io.partita.benchmarks.warm.WarmStartBenchmark}); {@code spark} batch
 * inference on Spark, Partita's transformer against ONNX Runtime in {@code mapPartitions}, at local[1] and local[2]
 * ({@link io.partita.benchmarks.spark.SparkBenchmark}; Spark's jars on the class path); {@code probe NAME
 * [args]} runs one of the DNNL-style kernel probes ({@link io.partita.benchmarks.probes}; they need
 * {@code --add-modules jdk.incubator.vector} on the java command line); other arguments are passed
 * to JMH.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("anchors")) {
            System.exit(AnchorsCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
        }
        if (args.length > 0 && args[0].equals("models")) {
            System.exit(io.partita.benchmarks.models.ModelsCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
        }
        if (args.length > 1 && args[0].equals("probe")) {
            probe(args[1], java.util.Arrays.copyOfRange(args, 2, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("dynamic")) {
            io.partita.benchmarks.dynamic.DynamicShapesBenchmark.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("acl")) {
            io.partita.benchmarks.acl.AclBenchmark.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("memo")) {
            io.partita.benchmarks.memo.MemoBenchmark.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("warm")) {
            io.partita.benchmarks.warm.WarmStartBenchmark.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("spark")) {
            io.partita.benchmarks.spark.SparkBenchmark.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("primitive")) {
            primitive();
            return;
        }
        if (args.length > 0 && !args[0].equals("cache")) {
            org.openjdk.jmh.Main.main(args);
            return;
        }
        List<String> lines = new ArrayList<>();
        for (int threads : new int[] {1, 2}) {
            ChainedOptionsBuilder o = new OptionsBuilder()
                    .include(ConstantCacheHitBenchmark.class.getName() + ".*")
                    .threads(threads)
                    .forks(1)
                    .warmupIterations(5).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(8).measurementTime(TimeValue.seconds(1))
                    .jvmArgsAppend("--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED");
            Collection<RunResult> results = new Runner(o.build()).run();
            double baseline = score(results, "baselineMapGet");
            for (String m : new String[] {"hit", "handle"}) {
                double s = score(results, m);
                lines.add(String.format(Locale.ROOT,
                        "constant cache %-6s threads=%d  %6.1f ns/op  baseline ConcurrentHashMap.get %5.1f ns/op  ratio %.2f",
                        m, threads, s, baseline, s / baseline));
            }
        }
        System.out.println();
        lines.forEach(System.out::println);
    }

    private static void probe(String name, String[] args) throws Exception {
        switch (name) {
            case "sgemm" -> io.partita.benchmarks.probes.SgemmProbe.main(args);
            case "kernel" -> io.partita.benchmarks.probes.KernelProbe.main(args);
            case "pack" -> io.partita.benchmarks.probes.PackProbe.main(args);
            case "conv" -> io.partita.benchmarks.probes.ConvProbe.main(args);
            case "singleops" -> io.partita.benchmarks.probes.SingleOpsProbe.main(args);
            case "attention" -> io.partita.benchmarks.probes.AttentionProbe.main(args);
            case "timeline" -> io.partita.benchmarks.anchors.TimelineProbe.main(args);
            case "ortprofile" -> io.partita.benchmarks.probes.OrtProfileProbe.main(args);
            default -> throw new IllegalArgumentException("no probe " + name
                    + " (sgemm, kernel, pack, conv, singleops, attention, timeline, ortprofile)");
        }
    }

    /** Compile cost with a cached primitive, against the graph work it includes (1 thread). */
    private static void primitive() throws RunnerException {
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include(PrimitiveCreationBenchmark.class.getName() + ".*")
                .forks(1)
                .warmupIterations(5).warmupTime(TimeValue.seconds(1))
                .measurementIterations(8).measurementTime(TimeValue.seconds(1))
                .jvmArgsAppend("--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                        "-Dpartita.dnnl.warmup=false", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                .build()).run();
        double anchor = score(results, "partitionOnly");
        double cached = score(results, "compileCachedPrimitive");
        double fresh = score(results, "compileNewPrimitive");
        System.out.println();
        System.out.println(String.format(Locale.ROOT,
                "graph build + partition (anchor) %7.1f us%n"
                        + "  + compile, primitive cached  %7.1f us  (compile itself %6.1f us, ratio to anchor %.2f)%n"
                        + "  + compile, new primitive     %7.1f us  (compile itself %6.1f us, ratio to anchor %.2f)",
                anchor, cached, cached - anchor, cached / anchor, fresh, fresh - anchor, fresh / anchor));
    }

    private static double score(Collection<RunResult> results, String method) {
        for (RunResult r : results) {
            if (r.getParams().getBenchmark().endsWith("." + method)) {
                return r.getPrimaryResult().getScore();
            }
        }
        throw new IllegalStateException("no result for " + method);
    }
}
