package io.partita.cli.gogo;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import io.partita.cli.PartitaCommand;
import io.partita.cache.CacheManager;
import io.partita.graph.GraphRuntime;

/**
 * {@code partita:backends}, {@code partita:partitions GRAPH}, {@code partita:run GRAPH [options]},
 * {@code partita:cache [capacity|policy|kernel TARGET VALUE]}, {@code partita:harness CASES [options]},
 * {@code partita:convert MODEL.onnx OUT.json [options]}, {@code partita:conformance DIR [options]}: the
 * CLI's commands in the Gogo shell (same options, same output, same one-line errors). Gogo's {@code help}
 * lists them.
 */
@Component(service = PartitaShellCommands.class, property = {
    "osgi.command.scope=partita",
    "osgi.command.function=backends",
    "osgi.command.function=partitions",
    "osgi.command.function=run",
    "osgi.command.function=cache",
    "osgi.command.function=harness",
    "osgi.command.function=convert",
    "osgi.command.function=conformance"
})
public class PartitaShellCommands {

    @Reference
    private GraphRuntime runtime;

    @Reference
    private CacheManager caches;

    public void cache(String... args) {
        invoke("cache", args);
    }

    public void backends() {
        invoke("backends");
    }

    public void partitions(String... args) {
        invoke("partitions", args);
    }

    public void run(String... args) {
        invoke("run", args);
    }

    public void harness(String... args) {
        invoke("harness", args);
    }

    public void convert(String... args) {
        invoke("convert", args);
    }

    public void conformance(String... args) {
        invoke("conformance", args);
    }

    private int invoke(String command, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        // Gogo redirects System.out/err per session, so the output reaches the shell.
        return PartitaCommand.execute(runtime, caches, System.out, System.err, all);
    }
}
