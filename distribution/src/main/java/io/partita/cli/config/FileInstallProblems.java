package io.partita.cli.config;

import java.io.PrintStream;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * FileInstall's warnings — above all a {@code conf/*.cfg} file it cannot parse, which it then does
 * not apply (the configuration keeps its previous values) — as one line each on stderr: the user
 * must see that the edit did not take, without a stack trace. The launcher installs it on the
 * java.util.logging logger FileInstall writes to ({@code felix.fileinstall.log.default=jul}).
 */
public final class FileInstallProblems extends Handler {

    private final PrintStream err;

    private FileInstallProblems(PrintStream err) {
        this.err = err;
    }

    /** Installs the handler on FileInstall's java.util.logging logger ({@code felix.fileinstall.log.default=jul}). */
    public static void reportOnStderr(Logger fileInstall) {
        fileInstall.setUseParentHandlers(false);
        fileInstall.setLevel(Level.WARNING);
        fileInstall.addHandler(new FileInstallProblems(System.err));
    }

    @Override
    public void publish(LogRecord r) {
        if (r.getLevel().intValue() < Level.WARNING.intValue()) {
            return;
        }
        err.println(line(r.getMessage(), r.getThrown()));
    }

    /** {@code partita: configuration: MESSAGE: CAUSE (...)}. */
    static String line(String message, Throwable thrown) {
        StringBuilder b = new StringBuilder("partita: configuration: ").append(message);
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !b.toString().contains(t.getMessage())) {
                b.append(": ").append(t.getMessage());
            }
        }
        if (message != null && message.contains("Failed to install artifact")) {
            b.append(" (not applied: the configuration keeps its previous values until the file is fixed)");
        }
        return b.toString().replaceAll("\\s*\\R\\s*", " ");
    }

    @Override
    public void flush() {
        err.flush();
    }

    @Override
    public void close() {
        flush();
    }
}
