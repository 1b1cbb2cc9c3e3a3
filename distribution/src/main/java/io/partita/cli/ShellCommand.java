package io.partita.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code partita shell} is handled by the launcher before the container starts; listed here for help. */
@Command(name = "shell", description = "Starts the container with the interactive Gogo shell "
        + "(commands partita:backends, partita:partitions, partita:run).")
final class ShellCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().getOut().println("already running inside the container; use the Gogo shell");
    }
}
