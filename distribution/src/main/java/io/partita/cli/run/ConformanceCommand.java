package io.partita.cli.run;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.partita.graph.GraphRuntime;
import io.partita.graph.PartitionPolicy;
import io.partita.testkit.onnx.OnnxConformance;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Runs a folder of ONNX node tests (each a folder with model.onnx and test_data_set_N/) and prints
 * per-op pass / unsupported / fail counts. Exit 1 when a test fails.
 */
@Command(name = "conformance", description = "Runs ONNX node tests (model.onnx + test_data_set_*/) against their golden outputs.")
public final class ConformanceCommand implements Callable<Integer> {
    private final GraphRuntime runtime;
    private final PrintStream out;

    @Parameters(index = "0", paramLabel = "DIR", description = "a test folder, or a folder of test folders")
    Path dir;

    @Option(names = "--backend", defaultValue = "all",
            description = "reference (the reference backend alone) or all (every backend present claims what it can; default)")
    String backend;

    @Option(names = "--policy", defaultValue = "fusion", converter = PolicyConverter.class,
            description = "fusion or debug (default: ${DEFAULT-VALUE})")
    PartitionPolicy policy;

    @Option(names = "--atol", paramLabel = "A",
            description = "absolute tolerance for every test (default: per op: 0 for data movement, 1e-7 for "
                    + "arithmetic, 1e-6 for transcendental ops)")
    Double atol;

    @Option(names = "--rtol", paramLabel = "R",
            description = "relative tolerance for every test (default: per op: 0 for data movement, 1e-5 for "
                    + "arithmetic, 1e-4 for transcendental ops)")
    Double rtol;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    public ConformanceCommand(GraphRuntime runtime, PrintStream out) {
        this.runtime = runtime;
        this.out = out;
    }

    @Override
    public Integer call() {
        if (!Files.isDirectory(dir)) {
            throw new BadInputException("no such folder: " + dir);
        }
        GraphRuntime rt = switch (backend) {
            case "reference" -> runtime.reference();
            case "all" -> runtime;
            default -> null;
        };
        if (rt == null) {
            throw new BadInputException("--backend must be reference or all, got '" + backend + "'");
        }
        checkTolerance("--atol", atol);
        checkTolerance("--rtol", rtol);
        if (OnnxConformance.testFolders(dir).isEmpty()) {
            throw new BadInputException("no test folders (with model.onnx) in " + dir);
        }
        OnnxConformance.Report r = OnnxConformance.runAll(dir, rt, backend.equals("reference") ? PartitionPolicy.DEBUG
                : policy, atol, rtol);
        // --verbose is the root command's (inherited) option: one line per test (with its worst error) here.
        boolean verbose = spec.commandLine().getParseResult().hasMatchedOption("--verbose");
        for (OnnxConformance.CaseResult c : r.cases()) {
            if (verbose || c.status() == OnnxConformance.Status.FAIL) {
                out.println(c.status() + " " + c.name() + (c.backends().isEmpty() ? "" : " " + c.backends()) + ": "
                        + c.detail());
            }
        }
        out.print(r.table());
        return r.count(OnnxConformance.Status.FAIL) == 0 ? 0 : 1;
    }

    private static void checkTolerance(String option, Double t) {
        if (t != null && !(t >= 0 && Double.isFinite(t))) {
            throw new BadInputException(option + " must be a finite number >= 0, got " + t);
        }
    }
}
