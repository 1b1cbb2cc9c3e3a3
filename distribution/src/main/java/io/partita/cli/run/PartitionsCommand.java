package io.partita.cli.run;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
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

    @Option(names = "--in-shapes", paramLabel = "ID:AxBxC[+ID:AxBxC...]",
            description = "shapes of the graph inputs (benchdnn's spelling, as for run): each partition's tensors are"
                    + " shown with the shapes of the first set; repeatable, every set is checked")
    List<String> inShapes;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    public PartitionsCommand(GraphRuntime runtime, PrintStream out) {
        this.runtime = runtime;
        this.out = out;
    }

    @Override
    public Integer call() {
        Dims.check(dims);
        List<InShapes.ShapeSet> sets = InShapes.parse(inShapes);
        LoadedGraph g = LoadedGraph.load(runtime, file, null, dims);
        g.portWarnings().forEach(w -> spec.commandLine().getErr().println("partita: warning: " + w));
        sets.forEach(s -> InShapes.check(s, g.graph()));
        // Every set is shape-checked against the graph, as run would, before anything is printed.
        List<Graph> concrete = sets.stream()
                .map(s -> InShapes.staticGraph(runtime.reference(), file, g.description(), s)).toList();
        out.println("graph: " + g.summary());
        List<Partition> parts = g.graph().partitions(policy);
        Report.partitions(out, policy, parts, null);
        if (!concrete.isEmpty()) {
            shapes(parts, sets.getFirst(), concrete.getFirst());
        }
        return 0;
    }

    /** Each partition's boundary tensors with the dims a shape set gives them. */
    private void shapes(List<Partition> parts, InShapes.ShapeSet set, Graph concrete) {
        Map<Long, LogicalTensor> tensors = new HashMap<>();
        for (Op op : concrete.ops()) {
            op.inputs().forEach(t -> tensors.putIfAbsent(t.id(), t));
            op.outputs().forEach(t -> tensors.put(t.id(), t));
        }
        out.println("partition tensors with --in-shapes=" + set.canonical() + ":");
        for (Partition p : parts) {
            out.printf("  %4d  %s -> %s%n", p.id(), describe(p.inputs(), tensors), describe(p.outputs(), tensors));
        }
    }

    private static String describe(List<LogicalTensor> ports, Map<Long, LogicalTensor> tensors) {
        return ports.stream().map(t -> t.id() + ":" + Report.dims(tensors.getOrDefault(t.id(), t)))
                .collect(Collectors.joining(" "));
    }
}
