package io.partita.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code partita train-startup} is handled by the launcher script: the JDK writes an AOT cache only for
 * a JVM started with {@code -XX:AOTCacheOutput}, so it cannot happen inside a running container.
 * Listed here for help.
 */
@Command(name = "train-startup", description = "Runs GRAPH [run options] once with the JDK's AOT cache "
        + "recording and stores the cache next to the persistent kernel cache; later partita commands start from "
        + "it (PARTITA_STARTUP_CACHE=off ignores it). Handled by the bin/partita launcher.")
final class TrainStartupCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(arity = "0..*", paramLabel = "GRAPH [run options]", description = "what partita run takes")
    java.util.List<String> args;

    @CommandLine.Unmatched
    java.util.List<String> options;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "train-startup restarts the JVM with an AOT "
                + "cache recording; run it from the bin/partita launcher, not inside a running container");
    }
}
