package io.partita.cli.run;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.partita.cache.CacheManager;
import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Loads a graph, partitions and compiles it, runs it with seeded random inputs and reports the
 * first-iteration latency and the steady-state median and p99; {@code --check} compares every
 * output with the reference backend.
 */
@Command(name = "run", description = "Runs a graph and reports partitions and latencies.")
public final class RunCommand implements Callable<Integer> {
    private final GraphRuntime runtime;
    private final PrintStream out;

    @Parameters(index = "0", paramLabel = "GRAPH", description = "oneDNN graph JSON file, or an ONNX model (.onnx: initializers keep their values, other inputs are random)")
    Path file;

    @Option(names = "--iterations", defaultValue = "10", description = "timed iterations after the first (default: ${DEFAULT-VALUE})")
    int iterations;

    @Option(names = "--threads", description = "threads for backends that run multi-threaded (default: all cores)")
    Integer threads;

    @Option(names = "--policy", defaultValue = "fusion", converter = PolicyConverter.class,
            description = "fusion or debug (default: ${DEFAULT-VALUE})")
    PartitionPolicy policy;

    @Option(names = "--engine", defaultValue = "cpu",
            description = "engine to run on: cpu, gpu or gpu:N for the N-th device 'partita backends' lists (default: ${DEFAULT-VALUE},"
                    + " as benchdnn; a file's engine_kind is only its origin)")
    String engine;

    @Option(names = "--check", description = "compare every output with the reference backend; exit 1 on mismatch")
    boolean check;

    @Option(names = "--dim", paramLabel = "NAME=VALUE",
            description = "value of a symbolic input dim of an ONNX model (e.g. --dim N=8); repeatable")
    java.util.Map<String, Long> dims;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the random inputs (default: ${DEFAULT-VALUE})")
    long seed;

    private final CacheManager caches;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    public RunCommand(GraphRuntime runtime, CacheManager caches, PrintStream out) {
        this.runtime = runtime;
        this.caches = caches;
        this.out = out;
    }

    @Override
    public Integer call() {
        if (iterations < 0) {
            throw new BadInputException("--iterations must be >= 0, got " + iterations);
        }
        // Checked before anything is loaded or set: setThreads refuses the same range, but a bad
        // option must not get as far as touching the runtime.
        if (threads != null && (threads < 1 || threads > GraphRuntime.MAX_THREADS)) {
            throw new BadInputException("--threads " + threads + " is out of range; expected 1 to " + GraphRuntime.MAX_THREADS);
        }
        Dims.check(dims);
        return runGraph();
    }

    private int runGraph() {
        if (threads != null) {
            // Backends with per-engine pools size them from this; the reference backend is single-threaded.
            try {
                runtime.setThreads(threads);
            } catch (InvalidArgumentException e) {
                throw new BadInputException("--threads " + threads + ": " + e.getMessage());
            }
        }
        Engine engine = parseEngine(this.engine);
        EngineKind kind = engine.kind();
        LoadedGraph g = LoadedGraph.load(runtime, file, kind, dims);
        g.portWarnings().forEach(w -> spec.commandLine().getErr().println("partita: warning: " + w));
        out.println("graph: " + g.summary());
        if (g.writtenFor() != kind) {
            out.println("note: the file was written for " + g.writtenFor() + "; running on " + kind + " (--engine)");
        }
        List<Partition> parts = g.graph().partitions(policy);
        try (Arena arena = Arena.ofShared(); CompiledGraph cg = runtime.compile(g.graph(), policy, engine)) {
            Report.partitions(out, policy, parts, cg);
            Map<Long, Tensor> inputs = new java.util.LinkedHashMap<>(RandomInputs.forGraph(runtime, g.graph(), engine, arena, seed));
            g.useModelConstants(inputs, engine, arena);
            Stream stream = new Stream(engine);
            ConstantActivity before = ConstantActivity.of(caches, engine);
            long t0 = System.nanoTime();
            Map<Long, Tensor> outputs = cg.execute(stream, inputs);
            stream.waitAll();
            long first = System.nanoTime() - t0;
            ConstantActivity afterFirst = ConstantActivity.of(caches, engine);
            out.println("first iteration: " + Report.ms(first) + afterFirst.since(before).describe());
            long[] samples = new long[iterations];
            ProgressBar bar = new ProgressBar(System.err, "running", iterations);
            for (int i = 0; i < iterations; i++) {
                long s = System.nanoTime();
                cg.execute(stream, inputs);
                stream.waitAll();
                samples[i] = System.nanoTime() - s;
                bar.update(i + 1);
            }
            bar.finish();
            if (iterations > 0) {
                long[] sorted = Report.sortedCopy(samples);
                out.printf("steady state over %d iterations: median %s, p99 %s, min %s, max %s%s%n", iterations,
                        Report.ms(Report.median(sorted)), Report.ms(Report.percentile(sorted, 99)),
                        Report.ms(sorted[0]), Report.ms(sorted[sorted.length - 1]),
                        ConstantActivity.of(caches, engine).since(afterFirst).describe());
            }
            for (LogicalTensor t : cg.outputs()) {
                Tensor o = outputs.get(t.id());
                out.println("output " + t.id() + ": " + (o == null ? "not produced" : Report.dims(o.logicalTensor())));
            }
            int code = check ? check(g, inputs, outputs, engine) : 0;
            CacheCommand.print(caches, out);
            return code;
        }
    }

    /**
     * Parses {@code cpu}, {@code gpu}, {@code gpu:N} (or {@code gpu.N}, as engines print).
     *
     * @throws BadInputException naming the value and the expected forms
     */
    static Engine parseEngine(String text) {
        String t = text == null ? "" : text.trim();
        int sep = Math.max(t.indexOf(':'), t.indexOf('.'));
        String kindText = sep < 0 ? t : t.substring(0, sep);
        EngineKind kind;
        try {
            kind = EngineKind.fromSpelling(kindText);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--engine " + text + ": " + e.getMessage() + " (optionally with a device index, e.g. gpu:1)");
        }
        if (sep < 0) {
            return new Engine(kind, 0);
        }
        String index = t.substring(sep + 1);
        if (!index.matches("[0-9]{1,9}")) {
            throw new BadInputException("--engine " + text + ": the device index '" + index
                    + "' is not a non-negative number; expected e.g. " + kind.spelling() + ":1");
        }
        return new Engine(kind, Integer.parseInt(index));
    }

    /**
     * Runs the same graph on the reference backend alone, on the CPU, and compares every output.
     * Tensors of every engine live in host memory, so the reference reads the same input buffers.
     */
    private int check(LoadedGraph g, Map<Long, Tensor> runInputs, Map<Long, Tensor> outputs, Engine runEngine) {
        GraphRuntime reference = runtime.reference();
        Engine engine = Engine.cpu();
        Map<Long, Tensor> inputs = new java.util.LinkedHashMap<>();
        runInputs.forEach((id, t) -> inputs.put(id, t.engine().equals(engine) ? t : Tensor.of(t.logicalTensor(), engine, t.data())));
        LoadedGraph ref = LoadedGraph.of(reference, g.file(), g.description().withEngineKind(EngineKind.CPU), g.onnx());
        if (runEngine.kind() != EngineKind.CPU) {
            out.println("check: reference backend on " + engine + " (the graph ran on " + runEngine + ")");
        }
        try (CompiledGraph rcg = reference.compile(ref.graph(), PartitionPolicy.DEBUG, engine)) {
            // Derived first: its extra reference run would overwrite the expected outputs.
            OutputComparison.ErrorBound bound = OutputComparison.errorBound(ref.graph(), rcg, inputs, engine);
            Map<Long, Tensor> expected = rcg.execute(new Stream(engine), inputs);
            boolean ok = true;
            for (Map.Entry<Long, Tensor> e : expected.entrySet()) {
                Tensor actual = outputs.get(e.getKey());
                OutputComparison.Result r = actual == null ? null : OutputComparison.compare(e.getValue(), actual, bound);
                boolean match = r != null && r.matches();
                ok &= match;
                out.println("check output " + e.getKey() + ": " + (r == null ? "missing" : r.describe()));
            }
            out.println(ok ? "check: all " + expected.size() + " outputs match the reference backend"
                    : "check: MISMATCH against the reference backend");
            return ok ? 0 : 1;
        }
    }
}
