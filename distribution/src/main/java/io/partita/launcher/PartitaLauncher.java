package io.partita.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.util.tracker.ServiceTracker;

import io.partita.cli.config.FileInstallProblems;

/**
 * Starts the Partita Felix container from the plain class path. {@code partita shell} runs the
 * interactive Gogo shell; every other command starts the container without a shell, hands the
 * arguments to the CLI bundle's command service, prints its output and exits with its code.
 */
public final class PartitaLauncher {
    /** The service property the CLI bundle's command runner carries. */
    static final String CLI_FILTER = "(&(objectClass=" + ToIntFunction.class.getName() + ")(partita.cli=true))";
    private static final long SERVICE_WAIT_MS = 30_000;
    private static final long BACKEND_WAIT_MS = 10_000;
    /** The capability a backend bundle declares, and the service it registers. */
    static final String BACKEND_CAPABILITY = "io.partita.backend";
    static final String BACKEND_SERVICE = "io.partita.spi.Backend";

    /** Held so the level set on it is not lost to garbage collection. */
    private static final java.util.logging.Logger SPIFLY_LOG = java.util.logging.Logger.getLogger("org.apache.aries.spifly");
    /** FileInstall's java.util.logging logger ({@code felix.fileinstall.log.default=jul}). */
    private static final java.util.logging.Logger FILEINSTALL_LOG = java.util.logging.Logger.getLogger("fileinstall");

    private PartitaLauncher() {
    }

    /** The running container, for the shutdown hook. */
    private static volatile Framework framework;

    public static void main(String[] args) throws Exception {
        // SPI Fly reports every woven provider through java.util.logging at INFO: not for users.
        SPIFLY_LOG.setLevel(java.util.logging.Level.WARNING);
        FileInstallProblems.reportOnStderr(FILEINSTALL_LOG);
        Path home = Paths.get(System.getProperty("partita.home", ".")).toAbsolutePath().normalize();
        boolean shell = args.length > 0 && "shell".equals(args[0]);
        boolean serve = args.length > 0 && "serve".equals(args[0]);
        int code;
        FelixStorage storage = null;
        try {
            Serve.Options options = serve ? Serve.options(args, System.getenv()) : null;
            storage = createStorage();
            code = shell ? shell(home, storage) : serve ? serve(home, storage, options) : command(home, storage, args);
        } catch (LaunchException e) {
            System.err.println("partita: " + e.getMessage());
            code = e.exitCode;
        } finally {
            if (storage != null) {
                deleteQuietly(storage);
            }
        }
        System.out.flush();
        System.exit(code);
    }

    /**
     * Removes the storage of launchers that died without removing theirs, creates this one's, and
     * registers a shutdown hook that removes it after the container stopped however the JVM ends
     * (Ctrl-C, a gogo {@code exit}, System.exit from a bundle); main removes it too on a normal return.
     */
    private static FelixStorage createStorage() throws LaunchException {
        Path tmp = Paths.get(System.getProperty("java.io.tmpdir"));
        List<String> problems = new ArrayList<>();
        FelixStorage.deleteStale(tmp, problems);
        for (String p : problems) {
            System.err.println("partita: warning: " + p);
        }
        FelixStorage storage;
        try {
            storage = FelixStorage.create(tmp);
        } catch (IOException e) {
            throw new LaunchException("cannot create the container's storage in " + tmp + ": " + e.getMessage());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            shuttingDown = true;
            Framework fw = framework;
            if (fw != null && (fw.getState() & (Bundle.STARTING | Bundle.ACTIVE | Bundle.STOPPING)) != 0) {
                if (serving) {
                    System.err.println("partita: stopping: waiting for running executions");
                    int left = Serve.drain(TimeUnit.SECONDS.toMillis(30));
                    if (left > 0) {
                        System.err.println("partita: warning: " + left + " executions still running after 30 s; stopping anyway");
                    }
                }
                try {
                    fw.stop();
                    fw.waitForStop(TimeUnit.SECONDS.toMillis(10));
                } catch (BundleException | InterruptedException | RuntimeException e) {
                    // Exiting anyway: delete what can be deleted; the next launcher takes the rest.
                }
            }
            deleteQuietly(storage);
            if (serving) {
                System.err.println("partita: stopped (caches flushed, container storage removed)");
            }
        }, "partita-storage-cleanup"));
        return storage;
    }

    private static void deleteQuietly(FelixStorage storage) {
        try {
            storage.delete();
        } catch (IOException | RuntimeException e) {
            System.err.println("partita: warning: could not remove the container's storage " + storage.path() + ": " + e);
        }
    }

    private static int shell(Path home, FelixStorage storage) throws Exception {
        Framework fw = start(home, storage, true);
        // The shell starts once the commands are registered, so input piped in finds them.
        awaitCli(fw.getBundleContext(), home);
        awaitBackends(fw.getBundleContext());
        for (Bundle b : fw.getBundleContext().getBundles()) {
            if (isShell(b.getSymbolicName())) {
                b.start();
            }
        }
        fw.waitForStop(0);
        return 0;
    }

    /**
     * The container without a shell until the JVM is told to stop (SIGTERM, Ctrl-C): the shutdown
     * hook lets running executions finish, stops the framework (the cache bundle flushes its caches
     * as it stops) and removes the storage.
     */
    private static int serve(Path home, FelixStorage storage, Serve.Options options) throws Exception {
        int port = options.jmxPort();
        Serve.Console console = options.console();
        Framework fw;
        if (console != null) {
            Serve.checkConsolePort(console);
            fw = start(home, storage, false, Serve.consoleProperties(console), consoleBundles(home));
        } else {
            fw = start(home, storage, false, Map.of(), List.of());
        }
        awaitCli(fw.getBundleContext(), home);
        awaitBackends(fw.getBundleContext());
        if (port > 0) {
            Serve.jmx(port);
        }
        if (console != null && !Serve.awaitConsole(console, SERVICE_WAIT_MS)) {
            throw new LaunchException("serve: the web console did not open " + console.host() + ":" + console.port()
                    + " within " + SERVICE_WAIT_MS / 1000 + " s; bundles not active: " + inactive(fw.getBundleContext()));
        }
        serving = true;
        System.err.println("partita: serving (pid " + ProcessHandle.current().pid() + ")"
                + (port > 0 ? "; JMX at " + Serve.url(port) : "")
                + (console != null ? "; web console at " + console.url() + " (user " + console.user() + ")" : "")
                + "; stop with SIGTERM or Ctrl-C");
        fw.waitForStop(0);
        while (shuttingDown) {
            Thread.sleep(1000); // the shutdown hook stops and cleans up; the JVM ends when it is done
        }
        return 0;
    }

    /** Set once {@code serve} is up: the shutdown hook then drains and reports. */
    private static volatile boolean serving;
    /** Set when the shutdown hook starts. */
    private static volatile boolean shuttingDown;

    private static boolean isShell(String symbolicName) {
        return "org.apache.felix.gogo.shell".equals(symbolicName);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ToIntFunction<String[]> awaitCli(BundleContext ctx, Path home) throws Exception {
        ServiceTracker tracker = new ServiceTracker(ctx, ctx.createFilter(CLI_FILTER), null);
        tracker.open();
        Object cli = tracker.waitForService(SERVICE_WAIT_MS);
        if (cli == null) {
            throw new LaunchException("the CLI bundle did not start within " + SERVICE_WAIT_MS / 1000
                    + " s; bundles not active: " + inactive(ctx));
        }
        return (ToIntFunction<String[]>) cli;
    }

    /**
     * Waits until every active bundle that declares a backend ({@code Provide-Capability:
     * io.partita.backend}) has registered its Backend service: components activate asynchronously,
     * and a command that partitions a graph before that would silently leave the backend out.
     */
    private static void awaitBackends(BundleContext ctx) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BACKEND_WAIT_MS);
        List<Bundle> pending = new ArrayList<>();
        for (Bundle b : ctx.getBundles()) {
            BundleRevision rev = b.adapt(BundleRevision.class);
            if (b.getState() == Bundle.ACTIVE && rev != null && !rev.getDeclaredCapabilities(BACKEND_CAPABILITY).isEmpty()) {
                pending.add(b);
            }
        }
        while (!pending.isEmpty()) {
            pending.removeIf(PartitaLauncher::registersBackend);
            if (pending.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                for (Bundle b : pending) {
                    System.err.println("partita: backend bundle " + b.getSymbolicName() + " registered no backend within "
                            + BACKEND_WAIT_MS / 1000 + " s; running without it (see its log for why)");
                }
                return;
            }
            Thread.sleep(10);
        }
    }

    private static boolean registersBackend(Bundle b) {
        if (b.getState() != Bundle.ACTIVE) {
            return true; // stopped meanwhile: nothing to wait for
        }
        ServiceReference<?>[] refs = b.getRegisteredServices();
        if (refs != null) {
            for (ServiceReference<?> r : refs) {
                for (String c : (String[]) r.getProperty(Constants.OBJECTCLASS)) {
                    if (BACKEND_SERVICE.equals(c)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static int command(Path home, FelixStorage storage, String[] args) throws Exception {
        Framework fw = start(home, storage, false);
        try {
            ToIntFunction<String[]> cli = awaitCli(fw.getBundleContext(), home);
            awaitBackends(fw.getBundleContext());
            return cli.applyAsInt(args);
        } finally {
            fw.stop();
            fw.waitForStop(TimeUnit.SECONDS.toMillis(20));
        }
    }

    /**
     * The web console's bundles (Felix HTTP on Jetty, the Web Console, the Partita page): in their
     * own directory, installed only when {@code serve} turns the console on, so no other command
     * opens a port or carries the console's code.
     */
    private static List<Path> consoleBundles(Path home) throws IOException, LaunchException {
        Path dir = home.resolve("console");
        if (!Files.isDirectory(dir)) {
            throw new LaunchException("no web console bundles at " + dir + "; the distribution is incomplete");
        }
        return jars(dir);
    }

    private static Framework start(Path home, FelixStorage storage, boolean interactive) throws Exception {
        return start(home, storage, interactive, Map.of(), List.of());
    }

    private static Framework start(Path home, FelixStorage storage, boolean interactive, Map<String, String> extraConfig,
            List<Path> extraBundles) throws Exception {
        Path bundles = home.resolve("bundle");
        if (!Files.isDirectory(bundles)) {
            throw new LaunchException("no bundle directory at " + bundles + "; set partita.home to the distribution");
        }
        Map<String, String> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, storage.path().toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        // The Vector API lives in an incubator module; backends import it from the system bundle.
        config.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, "jdk.incubator.vector");
        config.put("felix.fileinstall.dir", home.resolve("conf").toString());
        config.put("felix.fileinstall.poll", "500");
        config.put("felix.fileinstall.noInitialDelay", "true");
        config.put("felix.fileinstall.log.level", "2");
        // Through java.util.logging, where the launcher turns a .cfg file FileInstall cannot read into
        // one line on stderr (its default prints a stack trace, or nothing once a LogService is up).
        config.put("felix.fileinstall.log.default", "jul");
        config.put("felix.fileinstall.filter", ".*\\.(cfg|config)");
        // The .cfg files belong to the operator: FileInstall must not write configurations back into
        // them (its write-back races with edits and can undo a change made moments later).
        config.put("felix.fileinstall.enableConfigSave", "false");
        config.put("gosh.args", interactive ? "" : "--nointeractive");
        config.put("partita.home", home.toString());
        for (String key : System.getProperties().stringPropertyNames()) {
            if (key.startsWith("partita.") || key.startsWith("org.slf4j.")) {
                config.put(key, System.getProperty(key));
            }
        }
        config.putAll(extraConfig);
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst()
                .orElseThrow(() -> new LaunchException("no OSGi framework on the class path (lib/felix.jar)"));
        Framework fw = factory.newFramework(config);
        fw.init();
        framework = fw;
        List<Bundle> installed = new ArrayList<>();
        List<Path> all = new ArrayList<>(jars(bundles));
        all.addAll(extraBundles);
        for (Path jar : all) {
            if (!interactive && jar.getFileName().toString().startsWith("org.apache.felix.gogo.shell")) {
                continue; // commands run without a shell reading stdin
            }
            try {
                installed.add(fw.getBundleContext().installBundle(jar.toUri().toString()));
            } catch (BundleException e) {
                throw new LaunchException("cannot install " + jar + ": " + e.getMessage());
            }
        }
        fw.start();
        // Extenders (SPI Fly, Declarative Services) start first: SLF4J's ServiceLoader lookup must be
        // woven before any component logs, and components activate as soon as SCR is up.
        List<Bundle> ordered = new ArrayList<>(installed);
        ordered.sort(Comparator.comparing(PartitaLauncher::startRank));
        for (Bundle b : ordered) {
            if (b.getHeaders().get(Constants.FRAGMENT_HOST) == null && !isShell(b.getSymbolicName())) {
                try {
                    b.start();
                } catch (BundleException e) {
                    System.err.println("partita: bundle " + b.getSymbolicName() + " did not start: " + e.getMessage());
                }
            }
        }
        return fw;
    }

    /** Extenders first, then ServiceLoader providers (the SLF4J binding), then the rest. */
    private static int startRank(Bundle b) {
        String caps = b.getHeaders().get(Constants.PROVIDE_CAPABILITY);
        if (caps == null) {
            return 2;
        }
        return caps.contains("osgi.extender") ? 0 : caps.contains("osgi.serviceloader") ? 1 : 2;
    }

    /** Bundles that are not active (fragments excluded), for the error message. */
    private static List<String> inactive(BundleContext ctx) {
        List<String> out = new ArrayList<>();
        for (Bundle b : ctx.getBundles()) {
            if (b.getState() != Bundle.ACTIVE && b.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                out.add(b.getSymbolicName() + " (state " + b.getState() + ")");
            }
        }
        return out;
    }

    private static List<Path> jars(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".jar")).sorted(Comparator.comparing(Path::toString)).toList();
        }
    }

    /** A launch problem with a message for the user. */
    static final class LaunchException extends Exception {
        private static final long serialVersionUID = 1L;
        /** 3 (a launcher problem) unless the user's command line is at fault (2). */
        final int exitCode;

        LaunchException(String message) {
            this(message, 3);
        }

        LaunchException(String message, int exitCode) {
            super(message);
            this.exitCode = exitCode;
        }
    }
}
