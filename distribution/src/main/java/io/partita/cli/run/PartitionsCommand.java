package io.partita.cli.run;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import io.partita.graph.GraphRuntime;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Shows how the backends present now partition a graph. */
@Command(name = "partitions", description = "Partitions a graph and lists the partitions.")
public final class PartitionsCommand implements Callable<Integer> {
    private final GraphRuntime runtime;
    private final PrintStream out;

    @Parameters(index = "0", paramLabel = "GRAPH", description = "oneDNN graph JSON file or ONNX model (.onnx)")
    Path file;

    @Option(names = "--policy", defaultValue = "fusion", description = "fusion or debug (default: ${DEFAULT-VALUE})",
            converter = PolicyConverter.class)
    PartitionPolicy policy;

    @Option(names = "--dim", paramLabel = "NAME=VALUE",
            description = "value of a symbolic input dim of an ONNX model (e.g. --dim N=8); repeatable")
    java.util.Map<String, Long> dims;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    public PartitionsCommand(GraphRuntime runtime, PrintStream out) {
        this.runtime = runtime;
        this.out = out;
    }

    @Override
    public Integer call() {
        Dims.check(dims);
        LoadedGraph g = LoadedGraph.load(runtime, file, null, dims);
        g.portWarnings().forEach(w -> spec.commandLine().getErr().println("partita: warning: " + w));
        out.println("graph: " + g.summary());
        List<Partition> parts = g.graph().partitions(policy);
        Report.partitions(out, policy, parts, null);
        return 0;
    }
}
