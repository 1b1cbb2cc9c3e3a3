package io.partita.testkit.benchdnn;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.partita.formats.json.GraphJson;
import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphDescription;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.MemoryLimitException;
import io.partita.graph.Op;
import io.partita.graph.PartitaException;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/**
 * Runs case lines: expands each into its variants, partitions (FUSION), compiles and executes
 * every variant with seeded random inputs on a runtime, and compares the outputs with the
 * reference backend.
 */
public final class CaseRunner {
    private static final String REFERENCE = "reference";

    private final GraphRuntime runtime;
    private final Path graphDir;
    private final boolean compareWithReference;
    private final long maxElements;
    private final io.partita.graph.EngineKind engineKind = io.partita.graph.EngineKind.CPU;

    /**
     * @param graphDir the folder {@code --case} paths are relative to
     * @param compareWithReference whether to check outputs against the reference backend
     * @param maxElements variants whose tensors together hold more elements are skipped (0 = no limit)
     */
    public CaseRunner(GraphRuntime runtime, Path graphDir, boolean compareWithReference, long maxElements) {
        this.runtime = runtime;
        this.graphDir = graphDir;
        this.compareWithReference = compareWithReference;
        this.maxElements = maxElements;
    }

    /** Outcome of one variant. */
    public enum Status {
        /** Ran and (when compared) matched the reference. */
        PASS,
        /** Ran but an output differs from the reference. */
        MISMATCH,
        /** Refused with a clear error: unsupported data type or op, bad rewrite, invalid graph. */
        REFUSED,
        /** Larger than the configured element budget or the runtime's memory limit. */
        SKIPPED
    }

    /** The result of one variant, with the partition count and the message of a failure. */
    public record VariantResult(String label, Status status, int partitions, String message, long nanos) {
    }

    /** The results of a case line. */
    public record LineResult(CaseLine line, List<VariantResult> variants, String error) {
        /** Passed when every variant passed (a skipped variant does not fail the line). */
        public boolean passed() {
            return error == null && !variants.isEmpty()
                    && variants.stream().allMatch(v -> v.status() == Status.PASS || v.status() == Status.SKIPPED)
                    && variants.stream().anyMatch(v -> v.status() == Status.PASS);
        }

        public boolean skipped() {
            return error == null && !variants.isEmpty() && variants.stream().allMatch(v -> v.status() == Status.SKIPPED);
        }

        /** Whether every executed variant made the number of partitions the line expects (0 = unchecked). */
        public boolean partitionCountMatches() {
            int expected = line.expectedPartitions();
            return expected == 0 || variants.stream().filter(v -> v.status() == Status.PASS)
                    .allMatch(v -> v.partitions() == expected);
        }
    }

    public LineResult run(CaseLine line) {
        List<Variant> variants;
        try {
            Path file = graphDir.resolve(line.caseFile());
            // Like benchdnn, the engine comes from the runner, not from the file's engine_kind.
            GraphDescription base = GraphJson.parse(file).withEngineKind(engineKind);
            variants = CaseRewriter.expand(runtime.opSchemas(), line, base);
        } catch (PartitaException e) {
            return new LineResult(line, List.of(), e.getMessage());
        }
        List<VariantResult> results = new ArrayList<>();
        for (Variant v : variants) {
            results.add(run(v));
        }
        return new LineResult(line, results, null);
    }

    public VariantResult run(Variant v) {
        long t0 = System.nanoTime();
        int partitions = -1;
        try {
            Graph g = v.graph().toGraph(runtime);
            g.finalizeGraph();
            long elements = elements(g);
            if (maxElements > 0 && elements > maxElements) {
                return new VariantResult(v.label(), Status.SKIPPED, -1, elements + " elements exceed the budget of "
                        + maxElements, System.nanoTime() - t0);
            }
            List<io.partita.graph.Partition> parts = g.partitions(PartitionPolicy.FUSION);
            partitions = parts.size();
            // Reference partitions compared with the reference would only repeat the same computation.
            boolean compare = compareWithReference
                    && parts.stream().anyMatch(p -> !p.backendId().equals(REFERENCE));
            Engine e = new Engine(g.engineKind(), 0);
            try (Arena arena = Arena.ofShared(); CompiledGraph cg = runtime.compile(g, PartitionPolicy.FUSION, e)) {
                Map<Long, Tensor> in = RandomInputs.forGraph(runtime, g, e, arena, 1234);
                Map<Long, Tensor> out = cg.execute(new Stream(e), in);
                if (compare) {
                    String mismatch = compare(v.graph(), in, out, e);
                    if (mismatch != null) {
                        return new VariantResult(v.label(), Status.MISMATCH, partitions, mismatch, System.nanoTime() - t0);
                    }
                }
            }
            return new VariantResult(v.label(), Status.PASS, partitions, null, System.nanoTime() - t0);
        } catch (MemoryLimitException e) {
            // Like the element budget above: the case is too large for this JVM, not wrong.
            return new VariantResult(v.label(), Status.SKIPPED, partitions, e.getMessage(), System.nanoTime() - t0);
        } catch (UnsupportedFeatureException | InvalidGraphException | InvalidArgumentException
                | CaseRewriteException e) {
            return new VariantResult(v.label(), Status.REFUSED, partitions, e.getMessage(), System.nanoTime() - t0);
        }
    }

    private static long elements(Graph g) {
        long n = 0;
        for (Op op : g.ops()) {
            for (LogicalTensor t : op.outputs()) {
                if (t.isConcrete()) {
                    n += t.elementCount();
                }
            }
        }
        for (LogicalTensor t : g.inputs()) {
            if (t.isConcrete()) {
                n += t.elementCount();
            }
        }
        return n;
    }

    private String compare(GraphDescription d, Map<Long, Tensor> in, Map<Long, Tensor> out, Engine e) {
        GraphRuntime ref = runtime.reference();
        Graph rg = d.toGraph(ref);
        rg.finalizeGraph();
        try (CompiledGraph rcg = ref.compile(rg, PartitionPolicy.DEBUG, e)) {
            // Derived first: its extra reference run would overwrite the expected outputs.
            OutputComparison.ErrorBound bound = OutputComparison.errorBound(rg, rcg, in, e);
            Map<Long, Tensor> expected = rcg.execute(new Stream(e), in);
            for (Map.Entry<Long, Tensor> x : expected.entrySet()) {
                Tensor actual = out.get(x.getKey());
                if (actual == null) {
                    return "output " + x.getKey() + " was not produced";
                }
                OutputComparison.Result r = OutputComparison.compare(x.getValue(), actual, bound);
                if (!r.matches()) {
                    return "output " + x.getKey() + ": " + r.describe();
                }
            }
        }
        return null;
    }
}
