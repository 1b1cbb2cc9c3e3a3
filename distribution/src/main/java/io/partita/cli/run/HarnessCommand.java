package io.partita.cli.run;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import io.partita.graph.GraphRuntime;
import io.partita.graph.PartitaException;
import io.partita.testkit.benchdnn.CaseLine;
import io.partita.testkit.benchdnn.CaseRunner;
import io.partita.testkit.benchdnn.HarnessFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Runs benchdnn graph-driver case lines (a batch file, or the corpus's harness-cases.tsv): every
 * variant is partitioned, compiled, executed and compared with the reference backend.
 */
@Command(name = "harness", description = "Runs benchdnn graph case lines and reports how many pass.")
public final class HarnessCommand implements Callable<Integer> {
    private final GraphRuntime runtime;
    private final PrintStream out;

    @Parameters(index = "0", paramLabel = "CASES", description = "batch file or harness-cases.tsv")
    Path file;

    @Option(names = "--inputs", description = "folder the --case paths are relative to (default: the CASES file's folder)")
    Path inputs;

    @Option(names = "--filter", description = "only lines whose harness or text match this regular expression")
    String filter;

    @Option(names = "--max-elements", defaultValue = "0",
            description = "skip variants whose tensors hold more elements in total (0: no limit)")
    long maxElements;

    @Option(names = "--jobs", defaultValue = "1", description = "lines run in parallel (default: ${DEFAULT-VALUE})")
    int jobs;

    @Option(names = "--no-check", description = "do not compare outputs with the reference backend")
    boolean noCheck;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    public HarnessCommand(GraphRuntime runtime, PrintStream out) {
        this.runtime = runtime;
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(file)) {
            throw new BadInputException("no such case file: " + file);
        }
        if (jobs < 1) {
            throw new BadInputException("--jobs must be >= 1, got " + jobs);
        }
        Pattern p = null;
        if (filter != null) {
            try {
                p = Pattern.compile(filter);
            } catch (PatternSyntaxException e) {
                throw new BadInputException("--filter '" + filter + "' is not a regular expression: "
                        + e.getDescription() + " near index " + e.getIndex());
            }
        }
        List<CaseLine> lines;
        try {
            lines = HarnessFile.read(file);
        } catch (PartitaException e) {
            throw new BadInputException(e.getMessage());
        }
        if (p != null) {
            Pattern filterPattern = p;
            lines = lines.stream().filter(l -> filterPattern.matcher(l.harness() + "\t" + l.text()).find()).toList();
        }
        // --verbose is the root command's (inherited) option: every variant here.
        boolean verbose = spec.commandLine().getParseResult().hasMatchedOption("--verbose");
        Path dir = inputs != null ? inputs : file.toAbsolutePath().getParent();
        CaseRunner runner = new CaseRunner(runtime, dir, !noCheck, maxElements);
        ExecutorService pool = Executors.newFixedThreadPool(jobs);
        List<Future<CaseRunner.LineResult>> futures = new ArrayList<>();
        for (CaseLine l : lines) {
            futures.add(pool.submit(() -> runner.run(l)));
        }
        int passed = 0;
        int failed = 0;
        int skipped = 0;
        int countChecked = 0;
        int countMatched = 0;
        int variants = 0;
        ProgressBar bar = new ProgressBar(System.err, "cases", lines.size());
        for (int i = 0; i < futures.size(); i++) {
            CaseRunner.LineResult r = futures.get(i).get();
            bar.update(i + 1);
            variants += r.variants().size();
            String verdict = r.passed() ? "PASS" : r.skipped() ? "SKIP" : "FAIL";
            if (r.passed()) {
                passed++;
            } else if (r.skipped()) {
                skipped++;
            } else {
                failed++;
            }
            if (r.passed() && r.line().expectedPartitions() > 0) {
                countChecked++;
                if (r.partitionCountMatches()) {
                    countMatched++;
                }
            }
            if (verbose || !r.passed()) {
                out.printf("%s %s:%d %s%n", verdict, r.line().harness(), r.line().lineNumber(), r.line().text());
                if (r.error() != null) {
                    out.println("     " + r.error());
                }
                for (CaseRunner.VariantResult v : r.variants()) {
                    if (verbose || v.status() != CaseRunner.Status.PASS) {
                        out.printf("     %-8s %s%s%n", v.status().name().toLowerCase(Locale.ROOT),
                                v.label().isEmpty() ? "(as in the file)" : v.label(),
                                v.message() == null ? " (" + v.partitions() + " partitions, " + Report.ms(v.nanos()) + ")"
                                        : ": " + v.message());
                    }
                }
            }
        }
        bar.finish();
        pool.shutdown();
        out.printf("case lines: %d, passed %d, failed %d, skipped %d (%d variants)%n", lines.size(), passed, failed,
                skipped, variants);
        out.printf("partition counts: %d of %d passed lines make the number of partitions oneDNN expects%n",
                countMatched, countChecked);
        return failed == 0 ? 0 : 1;
    }
}
