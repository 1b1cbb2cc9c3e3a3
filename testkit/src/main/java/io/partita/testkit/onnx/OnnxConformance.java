package io.partita.testkit.onnx;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.formats.onnx.UnsupportedOnnxException;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.PartitaException;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Tensor;
import io.partita.testkit.check.OutputComparison;

/**
 * Runs ONNX backend node tests (a folder with {@code model.onnx} and
 * {@code test_data_set_N/input_K.pb, output_K.pb}) on a runtime and compares with the golden
 * outputs. Each test is classified: {@link Status#PASS}, {@link Status#UNSUPPORTED} (the importer
 * refused it with a reason: an op, attribute or data type it does not translate), or
 * {@link Status#FAIL} (anything else: an import error, a runtime error, a wrong result).
 *
 * <p>Tolerances by op: data movement and selection are exact; arithmetic allows ~1e-5 relative
 * (the golden outputs come from float32 numpy, the reference backend accumulates in double);
 * transcendental ops allow ~1e-4. A model with several ops takes its loosest op's tolerance.
 */
public final class OnnxConformance {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OnnxConformance.class);

    private OnnxConformance() {
    }

    public enum Status { PASS, UNSUPPORTED, FAIL }

    /**
     * One test's outcome.
     *
     * @param op the op the test is about (from its name; {@code "X (expanded)"} for decompositions)
     * @param backends the backends whose partitions ran (empty when it did not get that far)
     */
    public record CaseResult(String name, String op, Status status, String detail, Set<String> backends) {
    }

    /** All tests' outcomes, with per-op counts. */
    public record Report(List<CaseResult> cases) {
        public Report {
            cases = List.copyOf(cases);
        }

        public long count(Status s) {
            return cases.stream().filter(c -> c.status() == s).count();
        }

        /** Per op: counts of pass, unsupported, fail (sorted by op). */
        public Map<String, long[]> perOp() {
            Map<String, long[]> m = new TreeMap<>();
            for (CaseResult c : cases) {
                m.computeIfAbsent(c.op(), k -> new long[3])[c.status().ordinal()]++;
            }
            return m;
        }

        /** Per op: passing tests in which a backend other than the reference ran at least one partition. */
        public Map<String, Long> passedOnOtherBackends() {
            Map<String, Long> m = new TreeMap<>();
            for (CaseResult c : cases) {
                boolean other = c.backends().stream().anyMatch(b -> !b.equals("reference"));
                if (c.status() == Status.PASS && other) {
                    m.merge(c.op(), 1L, Long::sum);
                }
            }
            return m;
        }

        /**
         * A text table: one line per op, then the totals; column "other backend" counts passing tests
         * with at least one partition on a backend other than the reference.
         */
        public String table() {
            StringBuilder sb = new StringBuilder();
            Map<String, Long> other = passedOnOtherBackends();
            String fmt = "%-32s %5s %11s %5s %14s%n";
            sb.append(String.format(Locale.ROOT, fmt, "op", "pass", "unsupported", "fail", "other backend"));
            for (Map.Entry<String, long[]> e : perOp().entrySet()) {
                long[] v = e.getValue();
                sb.append(String.format(Locale.ROOT, fmt, e.getKey(), v[0], v[1], v[2],
                        other.getOrDefault(e.getKey(), 0L)));
            }
            sb.append(String.format(Locale.ROOT, fmt, "total", count(Status.PASS), count(Status.UNSUPPORTED),
                    count(Status.FAIL), other.values().stream().mapToLong(Long::longValue).sum()));
            return sb.toString();
        }
    }

    /** Runs every test folder under {@code root} (a folder holding model.onnx, or folders of them). */
    public static Report runAll(Path root, GraphRuntime runtime, PartitionPolicy policy) {
        return runAll(root, runtime, policy, null, null);
    }

    /**
     * Runs every test folder under {@code root} with the given absolute / relative tolerances (null:
     * the per-op tolerance of {@link #tolerance(List)}, as without them).
     */
    public static Report runAll(Path root, GraphRuntime runtime, PartitionPolicy policy, Double atol, Double rtol) {
        List<Path> dirs = testFolders(root);
        List<CaseResult> results = new ArrayList<>();
        for (Path d : dirs) {
            results.add(runCase(d, runtime, policy, atol, rtol));
        }
        return new Report(results);
    }

    /** The test folders under root, sorted by name. */
    public static List<Path> testFolders(Path root) {
        if (Files.isRegularFile(root.resolve("model.onnx"))) {
            return List.of(root);
        }
        try (Stream<Path> s = Files.list(root)) {
            return s.filter(p -> Files.isRegularFile(p.resolve("model.onnx"))).sorted().toList();
        } catch (IOException e) {
            throw new OnnxImportException("cannot list test folder " + root + ": " + e, e);
        }
    }

    /** Runs one test folder: every {@code test_data_set_*} in it. */
    public static CaseResult runCase(Path dir, GraphRuntime runtime, PartitionPolicy policy) {
        return runCase(dir, runtime, policy, null, null);
    }

    /**
     * Runs one test folder with the given tolerances (null: per op). A passing test's detail gives
     * its worst absolute and relative error over all outputs and data sets.
     */
    public static CaseResult runCase(Path dir, GraphRuntime runtime, PartitionPolicy policy, Double atol,
            Double rtol) {
        String name = dir.getFileName().toString();
        List<String> opTypes;
        try {
            opTypes = OnnxModels.nodeOpTypes(Files.readAllBytes(dir.resolve("model.onnx")), dir.resolve("model.onnx").toString());
        } catch (IOException | OnnxImportException e) {
            return new CaseResult(name, "?", Status.FAIL, "cannot read model: " + e.getMessage(), Set.of());
        }
        String op = testedOp(name, opTypes);
        Set<String> backends = new LinkedHashSet<>();
        try {
            OnnxModel model = OnnxModels.read(runtime.opSchemas(), dir.resolve("model.onnx"));
            double[] tol = tolerance(opTypes);
            if (atol != null) {
                tol[0] = atol;
            }
            if (rtol != null) {
                tol[1] = rtol;
            }
            boolean given = atol != null || rtol != null;
            double[] worst = new double[2];
            List<Path> sets = dataSets(dir);
            if (sets.isEmpty()) {
                return new CaseResult(name, op, Status.FAIL, "no test_data_set_* folder", backends);
            }
            StringBuilder detail = new StringBuilder();
            for (Path set : sets) {
                String r = runDataSet(model, set, runtime, policy, tol, given, backends, worst);
                if (r != null) {
                    return new CaseResult(name, op, Status.FAIL, set.getFileName() + ": " + r, backends);
                }
            }
            detail.append(sets.size()).append(" data set(s) match").append(String.format(Locale.ROOT,
                    " (worst abs err %.3g, rel err %.3g; atol %.3g, rtol %.3g)", worst[0], worst[1], tol[0], tol[1]));
            return new CaseResult(name, op, Status.PASS, detail.toString(), backends);
        } catch (UnsupportedOnnxException e) {
            return new CaseResult(name, op, Status.UNSUPPORTED, e.getMessage(), backends);
        } catch (PartitaException e) {
            return new CaseResult(name, op, Status.FAIL, e.getClass().getSimpleName() + ": " + e.getMessage(),
                    backends);
        } catch (RuntimeException e) {
            // A bug (in the importer or a backend) fails this test, not the whole run.
            LOG.warn("{}: unexpected {}", name, e.toString(), e);
            return new CaseResult(name, op, Status.FAIL, "unexpected " + e, backends);
        }
    }

    private static List<Path> dataSets(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> Files.isDirectory(p) && p.getFileName().toString().startsWith("test_data_set_"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new OnnxImportException("cannot list " + dir + ": " + e, e);
        }
    }

    /** Null when every output matches; otherwise what differs. */
    private static String runDataSet(OnnxModel model, Path set, GraphRuntime runtime, PartitionPolicy policy,
            double[] tol, boolean given, Set<String> backends, double[] worst) {
        Graph g = model.graph().toGraph(runtime);
        g.finalizeGraph();
        List<String> inputNames = new ArrayList<>(model.inputs().keySet());
        List<String> outputNames = new ArrayList<>(model.outputs().keySet());
        Engine engine = Engine.cpu();
        try (Arena arena = Arena.ofConfined();
                CompiledGraph cg = runtime.compile(g, policy, engine)) {
            for (CompiledGraph.Step s : cg.steps()) {
                backends.add(s.partition().backendId());
            }
            Map<Long, OnnxTensor> values = new TreeMap<>(model.constants());
            for (int i = 0; i < inputNames.size(); i++) {
                Path f = set.resolve("input_" + i + ".pb");
                if (!Files.isRegularFile(f)) {
                    return "missing " + f.getFileName() + " for input '" + inputNames.get(i) + "'";
                }
                values.put(model.inputs().get(inputNames.get(i)), OnnxModels.readTensor(f));
            }
            Map<Long, Tensor> inputs = new TreeMap<>();
            for (LogicalTensor lt : cg.inputs()) {
                OnnxTensor v = values.get(lt.id());
                if (v == null) {
                    return "no value for graph input tensor " + lt.id();
                }
                LogicalTensor dense = lt.layoutType() == LayoutType.STRIDED ? lt : lt.withLayout(LayoutType.STRIDED);
                if (v.dataType() != lt.dataType() || !Arrays.equals(v.dims(), lt.dims())) {
                    return "input '" + v.name() + "' is " + v.dataType() + LogicalTensor.dimsToString(v.dims())
                            + " but the model declares " + lt.dataType() + LogicalTensor.dimsToString(lt.dims());
                }
                inputs.put(lt.id(), v.toTensor(dense, engine, arena));
            }
            Map<Long, Tensor> outputs = cg.execute(new io.partita.graph.Stream(engine), inputs);
            for (int i = 0; i < outputNames.size(); i++) {
                OnnxTensor expected = OnnxModels.readTensor(set.resolve("output_" + i + ".pb"));
                Tensor actual = outputs.get(model.outputs().get(outputNames.get(i)));
                if (actual == null) {
                    return "output '" + outputNames.get(i) + "' not produced";
                }
                LogicalTensor alt = actual.logicalTensor();
                if (alt.dataType() != expected.dataType() || !Arrays.equals(alt.dims(), expected.dims())) {
                    return "output '" + outputNames.get(i) + "' is " + alt.dataType()
                            + LogicalTensor.dimsToString(alt.dims()) + ", expected " + expected.dataType()
                            + LogicalTensor.dimsToString(expected.dims());
                }
                double[] t = OutputComparison.tolerance(expected.dataType());
                OutputComparison.Result r = OutputComparison.compare(expected.toDoubleArray(), actual.toDoubleArray(),
                        Math.max(tol[0], given || expected.dataType() == DataType.F32 || tol[0] == 0 ? 0 : t[0]),
                        Math.max(tol[1], given || expected.dataType() == DataType.F32 || tol[1] == 0 ? 0 : t[1]));
                if (r.elements() > 0 && !Double.isNaN(r.absError())) {
                    worst[0] = Math.max(worst[0], r.absError());
                    worst[1] = Math.max(worst[1], r.relError());
                }
                if (!r.matches()) {
                    return "output '" + outputNames.get(i) + "': " + r.describe();
                }
            }
            return null;
        }
    }


    /** Ops whose results must equal the golden ones exactly: they only move or select values. */
    private static final Set<String> EXACT = Set.of("Transpose", "Reshape", "Concat", "Cast", "CastLike", "Where",
            "MaxPool", "Relu", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Neg", "Shape", "Size", "Slice",
            "Constant", "ConstantOfShape", "Max", "Min", "Abs", "Clip", "Dropout", "GlobalMaxPool", "Gather");
    /** Ops built on exp, erf, tanh, pow, whose float32 libm results differ from exact ones by a few ulps. */
    private static final Set<String> TRANSCENDENTAL = Set.of("Erf", "Gelu", "Tanh", "Sigmoid", "Exp", "Pow",
            "Softmax", "Log", "LogSoftmax", "Elu", "Selu", "Celu", "Softplus", "Mish");

    /** {atol, rtol} for a model: the loosest over its ops. */
    public static double[] tolerance(List<String> opTypes) {
        double atol = 0;
        double rtol = 0;
        for (String op : opTypes) {
            if (TRANSCENDENTAL.contains(op)) {
                atol = Math.max(atol, 1e-6);
                rtol = Math.max(rtol, 1e-4);
            } else if (!EXACT.contains(op)) {
                atol = Math.max(atol, 1e-7);
                rtol = Math.max(rtol, 1e-5);
            }
        }
        return new double[] {atol, rtol};
    }

    private static final List<String> NAMED_OPS = List.of("AveragePool", "BatchNormalization", "Cast", "Concat",
            "Conv", "Div", "Erf", "Gelu", "Gemm", "LayerNormalization", "MatMul", "MaxPool", "Mul", "Pow",
            "ReduceMean", "Relu", "Reshape", "Sigmoid", "Softmax", "Sqrt", "Sub", "Tanh", "Transpose", "Where", "Add");

    /** The op a node test is about: the op its name starts with, else its single node's op, else its last. */
    static String testedOp(String testName, List<String> opTypes) {
        String key = testName.replaceFirst("^test_", "").replace("_", "").toLowerCase(Locale.ROOT);
        String suffix = testName.contains("_expanded") ? " (expanded)" : "";
        for (String op : NAMED_OPS) {
            if (key.startsWith(op.toLowerCase(Locale.ROOT))) {
                return op + suffix;
            }
        }
        for (String op : opTypes) {
            if (key.startsWith(op.toLowerCase(Locale.ROOT))) {
                return op + suffix;
            }
        }
        if (key.startsWith("batchnorm")) {
            return "BatchNormalization";
        }
        return (opTypes.isEmpty() ? "?" : opTypes.get(opTypes.size() - 1)) + suffix;
    }
}
