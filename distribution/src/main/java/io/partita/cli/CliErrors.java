package io.partita.cli;

import java.io.PrintStream;
import java.io.UncheckedIOException;

import io.partita.cache.InvalidCacheSettingException;
import io.partita.cli.run.BadInputException;
import io.partita.formats.json.GraphFormatException;
import io.partita.formats.onnx.OnnxImportException;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.MemoryLimitException;
import io.partita.graph.PartitaException;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.testkit.benchdnn.CaseRewriteException;
import picocli.CommandLine;

/**
 * How a failed command ends: one line on stderr naming what went wrong, and the documented exit
 * code — {@value PartitaCommand#BAD_INPUT} for anything the user gave (file, graph, model, option,
 * setting, a size beyond the memory limit), {@value PartitaCommand#RUNTIME_ERROR} for a failure of
 * the runtime itself. The stack trace only with {@code --verbose}: users act on the message, the
 * trace is for a bug report.
 */
final class CliErrors {
    private CliErrors() {
    }

    /** Prints the error and returns the exit code. */
    static int report(Throwable e, boolean verbose, PrintStream err) {
        err.println("partita: " + message(e));
        if (verbose) {
            e.printStackTrace(err);
        }
        return exitCode(e);
    }

    static int exitCode(Throwable e) {
        // A backend or cache may wrap the user's error (a kernel factory refusing a shape): the
        // cause decides, not the wrapper.
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (isBadInput(t)) {
                return PartitaCommand.BAD_INPUT;
            }
        }
        return PartitaCommand.RUNTIME_ERROR;
    }

    private static boolean isBadInput(Throwable t) {
        return t instanceof BadInputException
                || t instanceof MemoryLimitException
                || t instanceof InvalidGraphException
                || t instanceof InvalidArgumentException
                || t instanceof UnsupportedFeatureException
                || t instanceof GraphFormatException
                || t instanceof OnnxImportException
                || t instanceof CaseRewriteException
                || t instanceof InvalidCacheSettingException
                || t instanceof CommandLine.ParameterException;
    }

    /** The message on one line; errors that are not Partita's own say what they are. */
    static String message(Throwable e) {
        String text;
        if (e instanceof PartitaException || e instanceof BadInputException
                || e instanceof InvalidCacheSettingException || e instanceof CommandLine.ParameterException) {
            text = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        } else if (e instanceof UncheckedIOException u) {
            text = "I/O error: " + u.getMessage() + (u.getCause() != null && u.getCause().getMessage() != null
                    && !u.getMessage().contains(u.getCause().getMessage()) ? ": " + u.getCause().getMessage() : "");
        } else {
            text = "internal error: " + e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
                    + " (rerun with --verbose for the stack trace, and please report it)";
        }
        // One line: multi-line messages (a parser's excerpt, a regex error) are folded.
        return text.strip().replaceAll("\\s*\\R\\s*", " | ");
    }
}
