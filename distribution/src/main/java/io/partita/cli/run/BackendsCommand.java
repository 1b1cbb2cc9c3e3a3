package io.partita.cli.run;

import java.io.PrintStream;
import java.util.concurrent.Callable;

import io.partita.graph.BackendInfo;
import io.partita.graph.EngineKind;
import io.partita.graph.GraphRuntime;
import picocli.CommandLine.Command;

/** Lists the backends in the order they are offered graphs. */
@Command(name = "backends", description = "Lists the backends: id, rank, engine kinds, state, version, details.")
public final class BackendsCommand implements Callable<Integer> {
    private final GraphRuntime runtime;
    private final PrintStream out;

    public BackendsCommand(GraphRuntime runtime, PrintStream out) {
        this.runtime = runtime;
        this.out = out;
    }

    @Override
    public Integer call() {
        out.printf("%-12s %12s  %-10s %-7s %-8s %s%n", "backend", "rank", "engines", "state", "version", "details");
        for (BackendInfo b : runtime.backends()) {
            // A multi-line description (the gpu engine lists one device per line) continues under the details column.
            String[] lines = b.description().split("\n");
            out.printf("%-12s %12s  %-10s %-7s %-8s %s%n", b.id(), b.rank() == Integer.MIN_VALUE ? "lowest" : b.rank(),
                    String.join(",", b.engineKinds().stream().map(EngineKind::spelling).sorted().toList()),
                    b.state().name().toLowerCase(java.util.Locale.ROOT), b.version(), lines[0]);
            for (int i = 1; i < lines.length; i++) {
                out.printf("%-54s %s%n", "", lines[i]);
            }
        }
        return 0;
    }
}
