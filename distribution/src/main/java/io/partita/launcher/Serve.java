package io.partita.launcher;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;

/**
 * {@code partita serve [--port P]}: the container without a shell, running until SIGTERM (or
 * Ctrl-C). With {@code --port}, a JMX connector on the loopback interface only (no authentication:
 * whoever can reach localhost:P manages the container) serves the platform MBean server, where the
 * caches and backends have their MBeans ({@code io.partita:*}).
 */
final class Serve {
    private Serve() {
    }

    /** The port of {@code --port P}, 0 without it. */
    static int port(String[] args) throws PartitaLauncher.LaunchException {
        int port = 0;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            String value = null;
            if (a.equals("--port") && i + 1 < args.length) {
                value = args[++i];
            } else if (a.startsWith("--port=")) {
                value = a.substring("--port=".length());
            } else {
                throw new PartitaLauncher.LaunchException("serve: unknown argument '" + a
                        + "'; usage: partita serve [--port P]", 2);
            }
            if (!value.matches("\\d{1,5}") || Integer.parseInt(value) < 1 || Integer.parseInt(value) > 65535) {
                throw new PartitaLauncher.LaunchException("serve: --port '" + value
                        + "' is not a port; expected an integer from 1 to 65535", 2);
            }
            port = Integer.parseInt(value);
        }
        return port;
    }

    /** Starts the JMX connector: {@code service:jmx:rmi:///jndi/rmi://localhost:P/jmxrmi}. */
    static JMXConnectorServer jmx(int port) throws PartitaLauncher.LaunchException {
        RMIServerSocketFactory loopback = new LoopbackSockets();
        try {
            Registry registry = LocateRegistry.createRegistry(port, null, loopback);
            JMXServiceURL url = new JMXServiceURL(url(port).replace("service:jmx:rmi:///",
                    "service:jmx:rmi://localhost:" + port + "/"));
            JMXConnectorServer server = JMXConnectorServerFactory.newJMXConnectorServer(url,
                    Map.of(RMIConnectorServer.RMI_SERVER_SOCKET_FACTORY_ATTRIBUTE, loopback),
                    ManagementFactory.getPlatformMBeanServer());
            server.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.stop();
                    UnicastRemoteObject.unexportObject(registry, true);
                } catch (IOException e) {
                    // exiting anyway
                }
            }, "partita-jmx-stop"));
            return server;
        } catch (IOException e) {
            throw new PartitaLauncher.LaunchException("serve: cannot open the JMX port " + port + " on localhost: "
                    + e.getMessage(), 3);
        }
    }

    static String url(int port) {
        return "service:jmx:rmi:///jndi/rmi://localhost:" + port + "/jmxrmi";
    }

    /**
     * Waits (at most {@code timeoutMs}) until no backend runs a compilation or execution, as their
     * MBeans count them: stopping the container afterwards cuts none short.
     */
    static int drain(long timeoutMs) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        int running;
        do {
            running = 0;
            try {
                Set<ObjectName> names = server.queryNames(new ObjectName("io.partita:type=Backend,*"), null);
                for (ObjectName n : names) {
                    running += ((Number) server.getAttribute(n, "Running")).intValue();
                }
            } catch (JMException | RuntimeException e) {
                return 0; // a backend going away meanwhile: nothing left to wait for
            }
            if (running == 0) {
                return 0;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return running;
            }
        } while (System.nanoTime() < deadline);
        return running;
    }

    /** Server sockets on the loopback interface only; equal instances share a port (RMI's rule). */
    private record LoopbackSockets() implements RMIServerSocketFactory {
        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            return new ServerSocket(port, 0, InetAddress.getLoopbackAddress());
        }
    }
}
