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
import io.partita.graph.Graph;
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
 * output with the reference backend. A graph with dynamic dims is compiled once and run for each
 * {@code --in-shapes} set, with the latencies and the check per set.
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

    @Option(names = "--profile", description = "time every partition: first iteration and steady-state median per"
            + " partition, largest first, with its share of the summed medians")
    boolean profile;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the random inputs (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--in-shapes", paramLabel = "ID:AxBxC[+ID:AxBxC...]",
            description = "shapes of the graph inputs for one execution (benchdnn's spelling), needed for inputs with"
                    + " dynamic dims; repeatable: the graph is compiled once and run for each shape set")
    List<String> inShapes;

    private final CacheManager caches;

    /** The reference-only runtime, one for the command: a graph compiles on the runtime that created it. */
    private GraphRuntime reference;

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
        return runGraph(InShapes.parse(inShapes));
    }

    private int runGraph(List<InShapes.ShapeSet> shapeSets) {
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
        if (shapeSets.isEmpty()) {
            InShapes.requireForDynamic(g.graph(), file);
        }
        shapeSets.forEach(s -> InShapes.check(s, g.graph()));
        // Every set's static graph before anything runs: shapes that do not fit the graph (a mask
        // length unlike the sequence length) are refused up front, not after the earlier sets ran.
        List<Graph> concrete = shapeSets.stream()
                .map(s -> InShapes.staticGraph(reference(), file, g.description(), s)).toList();
        out.println("graph: " + g.summary());
        if (g.writtenFor() != kind) {
            out.println("note: the file was written for " + g.writtenFor() + "; running on " + kind + " (--engine)");
        }
        List<Partition> parts = g.graph().partitions(policy);
        // Compiled once, with the graph's DYNAMIC_DIM dims as they are: each shape set runs this.
        try (CompiledGraph cg = runtime.compile(g.graph(), policy, engine)) {
            Report.partitions(out, policy, parts, cg);
            Report.persistentCompiles(out, caches.persistentCache(), kind, cg);
            int code = 0;
            if (shapeSets.isEmpty()) {
                code = execute(cg, g, g.graph(), false, engine, new long[2]);
            } else {
                long[][] latencies = new long[shapeSets.size()][];
                for (int i = 0; i < shapeSets.size(); i++) {
                    InShapes.ShapeSet set = shapeSets.get(i);
                    out.printf("shape set %d of %d: --in-shapes=%s%n", i + 1, shapeSets.size(), set.canonical());
                    latencies[i] = new long[2];
                    code = Math.max(code, execute(cg, g, concrete.get(i), true, engine, latencies[i]));
                }
                summary(shapeSets, latencies);
            }
            CacheCommand.print(caches, out);
            return code;
        }
    }

    /**
     * One shape set: seeded inputs of {@code inputsFrom}'s shapes (the loaded graph itself, or its
     * static copy for a shape set), the first iteration and the steady state, the outputs, and with
     * {@code --check} the reference's verdict.
     *
     * @param onReference whether {@code inputsFrom} is finalized on the reference runtime (a shape
     *     set's static graph), then also the graph the check compiles
     * @param latency receives the first-iteration time and the steady-state median, in ns
     */
    private int execute(CompiledGraph cg, LoadedGraph g, Graph inputsFrom, boolean onReference, Engine engine,
            long[] latency) {
        try (Arena arena = Arena.ofShared()) {
            // the model's initializers as they are; only the other inputs are drawn
            Map<Long, Tensor> inputs = new java.util.LinkedHashMap<>(RandomInputs.forGraph(runtime, inputsFrom, engine,
                    arena, seed, g.modelConstants(inputsFrom, engine, arena)));
            Stream stream = new Stream(engine);
            ConstantActivity before = ConstantActivity.of(caches, engine);
            PartitionTimes times = profile ? new PartitionTimes(cg.steps().size(), iterations) : null;
            long t0 = System.nanoTime();
            Map<Long, Tensor> outputs = times == null ? cg.execute(stream, inputs) : cg.execute(stream, inputs, times);
            stream.waitAll();
            long first = System.nanoTime() - t0;
            latency[0] = first;
            ConstantActivity afterFirst = ConstantActivity.of(caches, engine);
            out.println("first iteration: " + Report.ms(first) + afterFirst.since(before).describe());
            long[] samples = new long[iterations];
            ProgressBar bar = new ProgressBar(System.err, "running", iterations);
            for (int i = 0; i < iterations; i++) {
                long s = System.nanoTime();
                if (times == null) {
                    cg.execute(stream, inputs);
                } else {
                    times.nextIteration();
                    cg.execute(stream, inputs, times);
                }
                stream.waitAll();
                samples[i] = System.nanoTime() - s;
                bar.update(i + 1);
            }
            bar.finish();
            if (iterations > 0) {
                long[] sorted = Report.sortedCopy(samples);
                latency[1] = Report.median(sorted);
                out.printf("steady state over %d iterations: median %s, p99 %s, min %s, max %s%s%n", iterations,
                        Report.ms(latency[1]), Report.ms(Report.percentile(sorted, 99)),
                        Report.ms(sorted[0]), Report.ms(sorted[sorted.length - 1]),
                        ConstantActivity.of(caches, engine).since(afterFirst).describe());
            }
            if (times != null) {
                times.print(out, cg);
            }
            for (LogicalTensor t : cg.outputs()) {
                Tensor o = outputs.get(t.id());
                out.println("output " + t.id() + ": " + (o == null ? "not produced" : Report.dims(o.logicalTensor())));
            }
            return check ? check(g, onReference ? inputsFrom : null, inputs, outputs, engine) : 0;
        }
    }

    private GraphRuntime reference() {
        if (reference == null) {
            reference = runtime.reference();
        }
        return reference;
    }

    /** One line per shape set: the latencies to compare across shapes. */
    private void summary(List<InShapes.ShapeSet> sets, long[][] latencies) {
        out.printf("latency per shape set (compiled once; median over %d iterations, first iteration):%n", iterations);
        for (int i = 0; i < sets.size(); i++) {
            out.printf("  %-10s %-10s --in-shapes=%s%n", iterations > 0 ? Report.ms(latencies[i][1]) : "-",
                    Report.ms(latencies[i][0]), sets.get(i).canonical());
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
     * Runs the same graph on the reference backend alone, on the CPU, and compares every output;
     * for a shape set, the graph with that set's static shapes ({@code staticGraph}, on the
     * reference runtime). Tensors of every engine live in host memory, so the reference reads the
     * same input buffers.
     */
    private int check(LoadedGraph g, Graph staticGraph, Map<Long, Tensor> runInputs, Map<Long, Tensor> outputs,
            Engine runEngine) {
        GraphRuntime reference = reference();
        Engine engine = Engine.cpu();
        Map<Long, Tensor> inputs = new java.util.LinkedHashMap<>();
        runInputs.forEach((id, t) -> inputs.put(id, t.engine().equals(engine) ? t : Tensor.of(t.logicalTensor(), engine, t.data())));
        Graph refGraph = staticGraph != null ? staticGraph
                : LoadedGraph.of(reference, g.file(), g.description().withEngineKind(EngineKind.CPU), g.onnx()).graph();
        if (runEngine.kind() != EngineKind.CPU) {
            out.println("check: reference backend on " + engine + " (the graph ran on " + runEngine + ")");
        }
        try (CompiledGraph rcg = reference.compile(refGraph, PartitionPolicy.DEBUG, engine)) {
            // Derived first: its extra reference run would overwrite the expected outputs.
            OutputComparison.ErrorBound bound = OutputComparison.errorBound(refGraph, rcg, inputs, engine);
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
