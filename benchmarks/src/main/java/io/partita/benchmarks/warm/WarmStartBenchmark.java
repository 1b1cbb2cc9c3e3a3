package io.partita.benchmarks.warm;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.partita.benchmarks.models.BertLayer;
import io.partita.benchmarks.models.Networks;
import io.partita.formats.json.GraphJson;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.CompiledPartition;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;

/**
 * First compile in a fresh JVM, cold against a warm persistent store ({@code ratio_warm}): per round,
 * one child process compiles with an empty store directory (generating code and storing its blobs),
 * a second child compiles the same graph over the same directory (creating the compiled partitions
 * from the stored blobs). Only the target backend's partition compiles are timed, from the first
 * call; everything else in the child (JVM start, graph loading, partitioning) is outside the figure.
 *
 * <pre>java -jar benchmarks.jar warm [--rounds N] [--examples DIR] [--case NAME] [--aot]</pre>
 *
 * With {@code --aot} every child also starts from a JDK AOT cache (what {@code partita train-startup}
 * gives a deployment), recorded first by a training child of the same case over a throwaway store:
 * the figures then show the store's effect once class loading and linking are out of both sides.
 *
 * Cases: the graph compiler's attention and gated MLP (generated classes), its three partitions of the
 * BERT-base layer model (compiled in graph order among the DNNL-style backend's), and the GPU bundle's MLP
 * (OpenCL programs on PoCL, whose own kernel cache is switched off in the children so that a cold
 * compile really builds).
 */
public final class WarmStartBenchmark {
    private static final String PREFIX = "WARM";
    private static final long CHILD_TIMEOUT_MINUTES = 5;
    /** A case file naming a model the benchmarks module builds (seeded) instead of an example file. */
    private static final String NETWORK = "network:";

    /** A graph, the engine to compile it for, and the backend whose compiles are timed. */
    record Case(String name, String file, EngineKind engine, String backend, double target) {
    }

    static final List<Case> CASES = List.of(
            new Case("compiler_attention", "mha_dynamic.json", EngineKind.CPU, "compiler", 5),
            new Case("compiler_gated_mlp", "gated_mlp_dynamic.json", EngineKind.CPU, "compiler", 5),
            // a whole model: three compiler partitions among DNNL-style ones, compiled in graph order
            new Case("compiler_bert_layer", NETWORK + BertLayer.NAME, EngineKind.CPU, "compiler", 5),
            new Case("gpu_mlp", "mlp.json", EngineKind.GPU, "gpu", 10));

    private WarmStartBenchmark() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length > 0 && args[0].equals("child")) {
            child(args[1], Paths.get(args[2]), EngineKind.valueOf(args[3]), args[4]);
            return;
        }
        int rounds = 5;
        Path examples = Paths.get("examples");
        String only = null;
        boolean aot = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(value(args, ++i, "--rounds"));
                case "--examples" -> examples = Paths.get(value(args, ++i, "--examples"));
                case "--case" -> only = value(args, ++i, "--case");
                case "--aot" -> aot = true;
                default -> throw new IllegalArgumentException("warm: unknown argument '" + args[i]
                        + "'; expected --rounds N, --examples DIR, --case NAME, --aot");
            }
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("warm: --rounds must be at least 1, got " + rounds);
        }
        if (!Files.isDirectory(examples)) {
            throw new IllegalArgumentException("warm: no examples folder " + examples.toAbsolutePath()
                    + " (run from the repository root, or give --examples DIR)");
        }
        // The floor of a first compile in a fresh JVM: a DNNL-style partition (nothing generated, nothing
        // loaded from blobs) compiled first in its process, as each case's target partition is. No store
        // can bring a warm compile below what compiling needs without any code generation at all.
        double floorMs = Double.NaN;
        String selected = only;
        if (CASES.stream().anyMatch(c -> c.engine() == EngineKind.CPU && (selected == null || selected.equals(c.name())))) {
            Case floor = new Case("floor_dnnl_mlp", "mlp.json", EngineKind.CPU, "dnnl", 0);
            long[] first = new long[rounds];
            for (int r = 0; r < rounds; r++) {
                Path store = Files.createTempDirectory("partita-warm-");
                try {
                    first[r] = Long.parseLong(runChild(floor, examples.resolve(floor.file()), store.resolve("cache"),
                            List.of()).get("compile_ns"));
                } finally {
                    deleteTree(store);
                }
            }
            floorMs = median(first) / 1e6;
            System.out.printf(Locale.ROOT, "warm %-20s first_compile_ms=%.1f (the DNNL-style MatMul+bias+ReLU partition of"
                    + " mlp.json, first in a fresh JVM: no code generated or loaded) rounds=%d rounds_ms=%s%n",
                    floor.name(), floorMs, rounds, ms(first));
        }
        for (Case c : CASES) {
            if (only != null && !only.equals(c.name())) {
                continue;
            }
            Path graph = c.file().startsWith(NETWORK) ? Paths.get(c.file()) : examples.resolve(c.file());
            Path aotFile = null;
            if (aot) {
                Path training = Files.createTempDirectory("partita-warm-aot-");
                aotFile = training.resolve("child.aot");
                runChild(c, graph, training.resolve("cache"), List.of("-XX:AOTCacheOutput=" + aotFile,
                        "-Xlog:aot=error", "-Xlog:cds=error"));
                if (!Files.isRegularFile(aotFile)) {
                    throw new IllegalStateException(c.name() + ": the training child wrote no AOT cache " + aotFile);
                }
            }
            List<String> jvm = aotFile == null ? List.of()
                    : List.of("-XX:AOTCache=" + aotFile, "-Xlog:aot=error", "-Xlog:cds=error");
            long[] cold = new long[rounds];
            long[] warm = new long[rounds];
            long[] coldCpu = new long[rounds];
            long[] warmCpu = new long[rounds];
            String detail = "";
            for (int r = 0; r < rounds; r++) {
                Path store = Files.createTempDirectory("partita-warm-");
                try {
                    Map<String, String> a = runChild(c, graph, store.resolve("cache"), jvm);
                    Map<String, String> b = runChild(c, graph, store.resolve("cache"), jvm);
                    if (!"0".equals(a.get("from_blobs")) || !a.get("partitions").equals(b.get("from_blobs"))) {
                        throw new IllegalStateException(c.name() + ": expected the first child to compile every "
                                + "partition and the second to create each from blobs; got " + a + " then " + b);
                    }
                    cold[r] = Long.parseLong(a.get("compile_ns"));
                    warm[r] = Long.parseLong(b.get("compile_ns"));
                    coldCpu[r] = Long.parseLong(a.get("compile_cpu_ns"));
                    warmCpu[r] = Long.parseLong(b.get("compile_cpu_ns"));
                    detail = "partitions=" + a.get("partitions") + " blob_bytes=" + a.get("blob_bytes");
                } finally {
                    deleteTree(store);
                }
            }
            if (aotFile != null) {
                deleteTree(aotFile.getParent());
            }
            double coldMs = median(cold) / 1e6;
            double warmMs = median(warm) / 1e6;
            double ratio = coldMs / warmMs;
            // the compiling thread's CPU time: what the compile costs whatever else the machine runs
            double cpuRatio = median(coldCpu) / median(warmCpu);
            // On the CPU, for a graph whose one target partition is the process's first compile (as the
            // floor's): the most any store could give, a warm compile as cheap as the floor.
            String bound = c.engine() == EngineKind.CPU && !Double.isNaN(floorMs) && !aot && partitions(detail) == 1
                    ? String.format(Locale.ROOT, " ratio_warm_bound=%.2f", coldMs / floorMs)
                    : "";
            System.out.printf(Locale.ROOT, "warm %-20s%s cold_ms=%.1f warm_ms=%.1f ratio_warm=%.2f target=%.0f%s"
                    + " cold_cpu_ms=%.1f warm_cpu_ms=%.1f ratio_warm_cpu=%.2f %s rounds=%d cold_rounds_ms=%s"
                    + " warm_rounds_ms=%s%n", c.name(), aot ? " aot=on" : "", coldMs, warmMs, ratio, c.target(), bound,
                    median(coldCpu) / 1e6, median(warmCpu) / 1e6, cpuRatio, detail, rounds, ms(cold), ms(warm));
        }
    }

    /** The target partitions a case's detail names ({@code partitions=N ...}). */
    private static int partitions(String detail) {
        for (String kv : detail.split(" ")) {
            if (kv.startsWith("partitions=")) {
                return Integer.parseInt(kv.substring("partitions=".length()));
            }
        }
        return 1;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException("warm: " + option + " needs a value");
        }
        return args[i];
    }

    /** In the child: loads, partitions and compiles the graph, timing the target backend's compiles. */
    private static void child(String backend, Path file, EngineKind kind, String caseName) {
        GraphRuntime rt = GraphRuntime.standalone();
        String name = file.toString();
        Graph g = name.startsWith(NETWORK)
                ? OnnxModels.read(rt.opSchemas(), Networks.get(name.substring(NETWORK.length())).bytes(), name).graph()
                        .withEngineKind(kind).toGraph(rt)
                : GraphJson.parse(file).withEngineKind(kind).toGraph(rt);
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        Engine engine = new Engine(kind, 0);
        long nanos = 0;
        long cpuNanos = 0;
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        int target = 0;
        int fromBlobs = 0;
        long blobBytes = 0;
        for (Partition p : parts) {
            if (!p.backendId().equals(backend)) {
                p.compile(engine); // in graph order, as partita run compiles; not timed
                continue;
            }
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            CompiledPartition cp = p.compile(engine);
            nanos += System.nanoTime() - t0;
            cpuNanos += threads.getCurrentThreadCpuTime() - c0;
            target++;
            if (cp.fromBlobs()) {
                fromBlobs++;
            }
            blobBytes += cp.cacheBlobs().stream().mapToLong(b -> b.length).sum();
        }
        if (target == 0) {
            throw new IllegalStateException(caseName + ": backend " + backend + " claimed none of "
                    + parts.stream().map(Partition::backendId).toList());
        }
        System.out.println(PREFIX + " compile_ns=" + nanos + " compile_cpu_ns=" + cpuNanos + " partitions=" + target + " from_blobs=" + fromBlobs
                + " blob_bytes=" + blobBytes);
    }

    private static Map<String, String> runChild(Case c, Path graph, Path store, List<String> jvm)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvm);
        cmd.addAll(List.of("--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-cp", io.partita.benchmarks.Backends.classPath(), WarmStartBenchmark.class.getName(), "child",
                c.backend(), graph.toString(), c.engine().name(), c.name()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("PARTITA_PERSISTENT_CACHE_DIR", store.toString());
        pb.environment().put("PARTITA_PERSISTENT_CACHE_CAPACITY", "256");
        pb.environment().put("PARTITA_PERSISTENT_CACHE_ENGINES", "cpu;gpu");
        pb.environment().put("POCL_KERNEL_CACHE", "0"); // PoCL's own cache would make a cold build warm
        pb.redirectErrorStream(true);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process p = pb.start();
        Map<String, String> result = null;
        List<String> other = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith(PREFIX + " ")) {
                    result = new LinkedHashMap<>();
                    for (String kv : line.substring(PREFIX.length() + 1).split(" ")) {
                        String[] f = kv.split("=", 2);
                        result.put(f[0], f.length > 1 ? f[1] : "");
                    }
                } else if (!line.startsWith("WARNING: Using incubator modules") && !line.contains(" INFO ")
                        && !line.startsWith("Picked up JAVA_TOOL_OPTIONS")) {
                    other.add(line);
                }
            }
        }
        if (!p.waitFor(CHILD_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(c.name() + ": child timed out after " + CHILD_TIMEOUT_MINUTES + " min");
        }
        if (p.exitValue() != 0 || result == null) {
            throw new IllegalStateException(c.name() + ": child exited " + p.exitValue() + ":\n"
                    + String.join("\n", other));
        }
        return result;
    }

    private static double median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }

    private static String ms(long[] v) {
        StringBuilder b = new StringBuilder();
        for (long x : v) {
            b.append(b.isEmpty() ? "" : ",").append(String.format(Locale.ROOT, "%.1f", x / 1e6));
        }
        return b.toString();
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
