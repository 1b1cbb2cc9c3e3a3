package io.partita.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code partita serve} is handled by the launcher before the container starts; listed here for help. */
@Command(name = "serve", description = "Runs the container without a shell until SIGTERM or Ctrl-C (running executions"
        + " finish, caches are flushed, the container's storage is removed); --port P serves JMX on localhost:P"
        + " (MBeans io.partita:type=ConstantTensorCache|KernelCache|Backend).")
final class ServeCommand implements Runnable {
    @CommandLine.Option(names = "--port", paramLabel = "P", description = "JMX port on localhost (no authentication)")
    int port;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().getOut().println("already running inside the container");
    }
}
