package io.partita.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code partita serve} is handled by the launcher before the container starts; listed here for help. */
@Command(name = "serve", description = "Runs the container without a shell until SIGTERM or Ctrl-C (running executions"
        + " finish, caches are flushed, the container's storage is removed); --port P serves JMX on localhost:P"
        + " (MBeans io.partita:type=ConstantTensorCache|KernelCache|Backend); --console-port C serves the Felix Web"
        + " Console with the Partita page on 127.0.0.1:C (--console-host H to bind elsewhere), with the credentials in"
        + " PARTITA_CONSOLE_USER and PARTITA_CONSOLE_PASSWORD (required: there are no default ones).")
final class ServeCommand implements Runnable {
    @CommandLine.Option(names = "--port", paramLabel = "P", description = "JMX port on localhost (no authentication)")
    int port;

    @CommandLine.Option(names = "--console-port", paramLabel = "C", description = "web console port")
    int consolePort;

    @CommandLine.Option(names = "--console-host", paramLabel = "H", description = "web console address (default 127.0.0.1)")
    String consoleHost;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().getOut().println("already running inside the container");
    }
}
