package io.partita.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;

import io.partita.cache.CacheManager;
import io.partita.cli.run.BackendsCommand;
import io.partita.cli.run.CacheCommand;
import io.partita.cli.run.ConformanceCommand;
import io.partita.cli.run.ConvertCommand;
import io.partita.cli.run.HarnessCommand;
import io.partita.cli.run.PartitionsCommand;
import io.partita.cli.run.RunCommand;
import io.partita.graph.GraphRuntime;
import io.partita.graph.MemoryLimitException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The root of the command tree ({@code partita run|partitions|backends|shell}). */
@Command(name = "partita", mixinStandardHelpOptions = true, version = "Partita 0.1.0",
        scope = CommandLine.ScopeType.INHERIT, // every subcommand takes --help (its errors point there)
        description = "Runs oneDNN-style graphs and ONNX models on the Partita runtime.",
        subcommands = {RunCommand.class, PartitionsCommand.class, BackendsCommand.class, HarnessCommand.class,
            ConvertCommand.class, ConformanceCommand.class,
            CacheCommand.class, ShellCommand.class, ServeCommand.class, TrainStartupCommand.class})
public final class PartitaCommand implements Runnable {

    /** Exit codes. */
    public static final int OK = 0;
    public static final int CHECK_FAILED = 1;
    public static final int BAD_INPUT = 2;
    public static final int RUNTIME_ERROR = 4;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Read from the parse result by the error handlers (it is inherited by every subcommand). */
    @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
            description = "more output: the stack trace of an error; conformance and harness: one line per test or variant")
    boolean verbose;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Parses and runs a command line; the runtime is handed to every subcommand. */
    public static int execute(GraphRuntime runtime, CacheManager caches, PrintStream out, PrintStream err,
            String... args) {
        CommandLine cl = new CommandLine(new PartitaCommand(), new CommandFactory(runtime, caches, out));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) ->
                CliErrors.report(e, verbose(parseResult), err));
        // A mistyped option gets one line and a pointer to the help, not the whole usage text.
        cl.setParameterExceptionHandler((e, args1) -> {
            CommandLine.Model.CommandSpec where = e.getCommandLine().getCommandSpec();
            err.println("partita: " + CliErrors.message(e) + " (see '" + where.qualifiedName() + " --help')");
            if (List.of(args1).contains("--verbose")) {
                e.printStackTrace(err);
            }
            return BAD_INPUT;
        });
        try {
            return cl.execute(args);
        } catch (OutOfMemoryError e) {
            // The last resort when the memory limit missed something (scratch memory of a backend,
            // the heap of other bundles): one line instead of a stack trace; picocli rethrows
            // Errors, and the failed allocation is gone once the stack unwound to here.
            err.println(outOfMemory(e, runtime.memoryLimit()));
            if (List.of(args).contains("--verbose")) {
                e.printStackTrace(err);
            }
            return BAD_INPUT;
        } catch (StackOverflowError e) {
            return CliErrors.report(e, List.of(args).contains("--verbose"), err);
        }
    }

    /** What ran out, the limit the tensors were checked against, and the two ways out. */
    static String outOfMemory(OutOfMemoryError e, long memoryLimit) {
        String what = e.getMessage() == null ? "" : " (" + e.getMessage() + ")";
        return "partita: the JVM ran out of memory" + what + " although the tensors fit the memory limit of "
                + MemoryLimitException.formatBytes(memoryLimit) + "; give the JVM more (PARTITA_JAVA_OPTS=-Xmx16g) or lower"
                + " the limit so that such graphs are refused before they run (PARTITA_JAVA_OPTS=-D"
                + GraphRuntime.MEMORY_LIMIT_PROPERTY + "=2g)";
    }

    private static boolean verbose(CommandLine.ParseResult result) {
        for (CommandLine.ParseResult r = result; r != null; r = r.subcommand()) {
            if (r.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }

    /** Creates subcommands with the runtime and output stream they need. */
    private record CommandFactory(GraphRuntime runtime, CacheManager caches, PrintStream out)
            implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            if (cls == RunCommand.class) {
                return cls.cast(new RunCommand(runtime, caches, out));
            }
            if (cls == CacheCommand.class) {
                return cls.cast(new CacheCommand(caches, out));
            }
            if (cls == PartitionsCommand.class) {
                return cls.cast(new PartitionsCommand(runtime, out));
            }
            if (cls == HarnessCommand.class) {
                return cls.cast(new HarnessCommand(runtime, out));
            }
            if (cls == ConvertCommand.class) {
                return cls.cast(new ConvertCommand(runtime, out));
            }
            if (cls == ConformanceCommand.class) {
                return cls.cast(new ConformanceCommand(runtime, out));
            }
            if (cls == BackendsCommand.class) {
                return cls.cast(new BackendsCommand(runtime, out));
            }
            return CommandLine.defaultFactory().create(cls);
        }
    }
}
