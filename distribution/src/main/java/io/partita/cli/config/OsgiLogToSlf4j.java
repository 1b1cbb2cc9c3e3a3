package io.partita.cli.config;

import java.util.Set;

import org.osgi.framework.Bundle;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogListener;
import org.osgi.service.log.LogReaderService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The container's own configuration machinery logs through the OSGi Log Service, which nothing
 * prints: once a Log Service is up, FileInstall reports a {@code .cfg} file it cannot parse only
 * there, and Config Admin and SCR report refused configurations and failed activations only there.
 * This passes their entries on to SLF4J (logger named after the bundle, e.g.
 * {@code org.apache.felix.fileinstall}), where the console shows warnings and errors. The
 * framework's event entries (bundle and service events) are not passed on: they are the noise of
 * every start.
 *
 * <p>The log readers are optional: a container whose logging already prints the Log Service's
 * entries (Karaf's Pax Logging) has none to offer and needs none, and the bundle must resolve there.
 */
@Component(immediate = true, service = {})
public final class OsgiLogToSlf4j implements LogListener {
    static final Set<String> FORWARDED = Set.of("org.apache.felix.fileinstall", "org.apache.felix.configadmin",
            "org.apache.felix.scr", "org.apache.felix.metatype");

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addReader(LogReaderService reader) {
        reader.addLogListener(this);
    }

    void removeReader(LogReaderService reader) {
        reader.removeLogListener(this);
    }

    @Override
    public void logged(LogEntry entry) {
        Bundle b = entry.getBundle();
        String name = b == null ? null : b.getSymbolicName();
        if (name == null || !FORWARDED.contains(name)
                || entry.getLoggerName() != null && entry.getLoggerName().startsWith("Events.")) {
            return;
        }
        Logger log = LoggerFactory.getLogger(name);
        String message = oneLine(entry.getMessage(), entry.getException());
        switch (entry.getLogLevel()) {
            case AUDIT, ERROR -> log.error(message, debugTrace(log, entry));
            case WARN -> log.warn(message, debugTrace(log, entry));
            case INFO -> log.info(message);
            default -> log.debug(message, entry.getException());
        }
    }

    /** The stack trace only when debugging: the message already carries the causes' messages. */
    private static Throwable debugTrace(Logger log, LogEntry entry) {
        return log.isDebugEnabled() ? entry.getException() : null;
    }

    /** The message and its causes' messages on one line, e.g. {@code Failed to install artifact: FILE: REASON}. */
    static String oneLine(String message, Throwable thrown) {
        StringBuilder b = new StringBuilder(message == null ? "" : message);
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            String m = t.getMessage() != null ? t.getMessage() : t.getClass().getName();
            if (!b.toString().contains(m)) {
                b.append(": ").append(m);
            }
        }
        return b.toString().replaceAll("\\s*\\R\\s*", " ");
    }
}
