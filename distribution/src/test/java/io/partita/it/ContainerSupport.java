package io.partita.it;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import org.ops4j.pax.exam.Option;

/** Pax Exam options for the distribution's bundle set, as the launcher deploys it. */
final class ContainerSupport {
    private ContainerSupport() {
    }

    static Path home() {
        return Paths.get(System.getProperty("partita.home", "target/partita"));
    }

    /**
     * The distribution's bundles (without the interactive shell), extenders and the SLF4J binding
     * first as the launcher starts them, then the rest; plus JUnit for the probe.
     */
    static Option[] distribution(Path confDir) {
        List<Option> options = new ArrayList<>();
        List<Path> jars;
        try (Stream<Path> s = Files.list(home().resolve("bundle"))) {
            jars = s.filter(p -> p.toString().endsWith(".jar"))
                    .filter(p -> !p.getFileName().toString().startsWith("org.apache.felix.gogo.shell"))
                    .filter(p -> java.util.Arrays.stream(System.getProperty("it.exclude", "").split(","))
                            .noneMatch(x -> !x.isEmpty() && p.getFileName().toString().startsWith(x)))
                    .sorted(Comparator.comparing(ContainerSupport::startRank).thenComparing(Path::toString)).toList();
        } catch (IOException e) {
            throw new IllegalStateException("distribution not assembled at " + home(), e);
        }
        for (Path jar : jars) {
            // Installed in this order; within one start level the framework starts bundles in install order.
            options.add(bundle(jar.toUri().toString()));
        }
        options.add(junitBundles());
        // Appended to Pax Exam's own extra system packages (a framework property would replace them).
        options.add(org.ops4j.pax.exam.CoreOptions.systemPackage("jdk.incubator.vector"));
        options.add(frameworkProperty("felix.fileinstall.dir").value(confDir.toString()));
        options.add(frameworkProperty("felix.fileinstall.poll").value("200"));
        options.add(frameworkProperty("felix.fileinstall.noInitialDelay").value("true"));
        options.add(frameworkProperty("felix.fileinstall.enableConfigSave").value("false"));
        options.add(frameworkProperty("felix.fileinstall.log.level").value("2")); // warnings, as the launcher sets it
        options.add(systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"));
        options.add(systemProperty("org.slf4j.simpleLogger.defaultLogLevel").value("warn"));
        return options.toArray(Option[]::new);
    }

    private static int startRank(Path jar) {
        String n = jar.getFileName().toString();
        if (n.startsWith("org.apache.aries.spifly") || n.startsWith("asm") || n.startsWith("org.apache.felix.scr")) {
            return 0;
        }
        return n.startsWith("slf4j") ? 1 : 2;
    }

    static Path tempConf() {
        try {
            File d = Files.createTempDirectory("partita-it-conf").toFile();
            d.deleteOnExit();
            return d.toPath();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
