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
 * {@code partita serve [--port P] [--console-port C [--console-host H]]}: the container without a
 * shell, running until SIGTERM (or Ctrl-C). With {@code --port}, a JMX connector on the loopback
 * interface only (no authentication: whoever can reach localhost:P manages the container) serves
 * the platform MBean server, where the caches and backends have their MBeans ({@code io.partita:*}).
 * With {@code --console-port}, the Felix Web Console and its Partita page, on the loopback
 * interface by default and only with credentials from the environment.
 */
final class Serve {
    private Serve() {
    }

    /** Environment variables holding the web console's credentials (it has no default ones). */
    static final String CONSOLE_USER_ENV = "PARTITA_CONSOLE_USER";
    static final String CONSOLE_PASSWORD_ENV = "PARTITA_CONSOLE_PASSWORD";
    /** Shortest console password accepted. */
    static final int MIN_PASSWORD = 8;
    private static final String USAGE = "usage: partita serve [--port P] [--console-port C [--console-host H]]";

    /**
     * What {@code serve} was asked for: the JMX port (0: none) and the web console (null: off).
     */
    record Options(int jmxPort, Console console) {
    }

    /**
     * The Felix Web Console with the Partita page: on {@code host:port}, behind HTTP basic
     * authentication with the given credentials.
     */
    record Console(String host, int port, String user, String password) {
        /** The Partita page's address. */
        String url() {
            String h = host.contains(":") ? "[" + host + "]" : host;
            return "http://" + h + ":" + port + "/system/console/partita";
        }

        @Override
        public String toString() {
            return "Console[" + host + ":" + port + ", user " + user + "]"; // never the password
        }
    }

    /**
     * Reads {@code serve}'s arguments and, for the console, its credentials from the environment.
     * The console binds to the loopback interface unless {@code --console-host} says otherwise,
     * and refuses to start without credentials: a management page must not open with a default
     * password.
     */
    static Options options(String[] args, Map<String, String> env) throws PartitaLauncher.LaunchException {
        int port = 0;
        int consolePort = 0;
        String consoleHost = null;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (!name.equals("--port") && !name.equals("--console-port") && !name.equals("--console-host")) {
                throw new PartitaLauncher.LaunchException("serve: unknown argument '" + a + "'; " + USAGE, 2);
            }
            String value;
            if (a.contains("=")) {
                value = a.substring(a.indexOf('=') + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new PartitaLauncher.LaunchException("serve: " + name + " needs a value; " + USAGE, 2);
            }
            switch (name) {
                case "--port" -> port = port(name, value);
                case "--console-port" -> consolePort = port(name, value);
                default -> consoleHost = host(value);
            }
        }
        if (consolePort == 0) {
            if (consoleHost != null) {
                throw new PartitaLauncher.LaunchException("serve: --console-host needs --console-port; " + USAGE, 2);
            }
            return new Options(port, null);
        }
        if (consolePort == port) {
            throw new PartitaLauncher.LaunchException("serve: --console-port " + consolePort
                    + " is also the JMX --port; expected two different ports", 2);
        }
        String user = env.get(CONSOLE_USER_ENV);
        String password = env.get(CONSOLE_PASSWORD_ENV);
        if (user == null || user.isBlank() || password == null || password.isEmpty()) {
            throw new PartitaLauncher.LaunchException("serve: the web console has no default credentials; set "
                    + CONSOLE_USER_ENV + " and " + CONSOLE_PASSWORD_ENV + " (at least " + MIN_PASSWORD
                    + " characters) to turn it on", 2);
        }
        if (password.length() < MIN_PASSWORD) {
            throw new PartitaLauncher.LaunchException("serve: " + CONSOLE_PASSWORD_ENV + " has " + password.length()
                    + " characters; expected at least " + MIN_PASSWORD, 2);
        }
        if (user.chars().anyMatch(c -> c == ':' || Character.isISOControl(c))) {
            throw new PartitaLauncher.LaunchException("serve: " + CONSOLE_USER_ENV + " '" + user
                    + "' contains ':' or a control character; expected a plain user name (HTTP basic authentication)", 2);
        }
        return new Options(port, new Console(consoleHost == null ? "127.0.0.1" : consoleHost, consolePort, user.strip(),
                password));
    }

    private static int port(String option, String value) throws PartitaLauncher.LaunchException {
        if (!value.matches("\\d{1,5}") || Integer.parseInt(value) < 1 || Integer.parseInt(value) > 65535) {
            throw new PartitaLauncher.LaunchException("serve: " + option + " '" + value
                    + "' is not a port; expected an integer from 1 to 65535", 2);
        }
        return Integer.parseInt(value);
    }

    private static String host(String value) throws PartitaLauncher.LaunchException {
        try {
            InetAddress address = InetAddress.getByName(value);
            if (java.net.NetworkInterface.getByInetAddress(address) == null && !address.isAnyLocalAddress()) {
                throw new PartitaLauncher.LaunchException("serve: --console-host '" + value + "' (" + address.getHostAddress()
                        + ") is not an address of this machine; expected one of its interfaces' addresses,"
                        + " or 0.0.0.0 for all", 2);
            }
            return address.getHostAddress();
        } catch (IOException e) {
            throw new PartitaLauncher.LaunchException("serve: --console-host '" + value
                    + "' cannot be resolved; expected a host name or address of this machine", 2);
        }
    }

    /**
     * Framework properties that turn the console on: Felix HTTP's host and port, and the Web
     * Console's credentials. The password goes in as the console's {@code {sha-256}} hash form:
     * framework properties are readable by every bundle and shown on the console's own pages.
     */
    static Map<String, String> consoleProperties(Console c) {
        return Map.of(
                "org.apache.felix.http.host", c.host(),
                "org.osgi.service.http.port", String.valueOf(c.port()),
                "org.apache.felix.http.jetty.sendServerHeader", "false",
                "felix.webconsole.username", c.user(),
                "felix.webconsole.password", passwordHash(c.password()),
                "felix.webconsole.realm", "Partita");
    }

    static String passwordHash(String password) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(password.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return "{sha-256}" + java.util.Base64.getEncoder().encodeToString(digest);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Fails with a clear message when the console's port is taken, before the container starts. */
    static void checkConsolePort(Console c) throws PartitaLauncher.LaunchException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new java.net.InetSocketAddress(c.host(), c.port()));
        } catch (IOException e) {
            throw new PartitaLauncher.LaunchException("serve: cannot open the web console on " + c.host() + ":" + c.port()
                    + ": " + e.getMessage() + "; expected a free port", 3);
        }
    }

    /** Waits until the console's port accepts connections (Jetty starts asynchronously). */
    static boolean awaitConsole(Console c, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        String host = c.host().equals("0.0.0.0") || c.host().equals("::") ? "127.0.0.1" : c.host();
        while (System.nanoTime() < deadline) {
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(new java.net.InetSocketAddress(host, c.port()), 500);
                return true;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        return false;
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
