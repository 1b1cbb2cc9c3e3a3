package io.partita.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.ServiceLoader;

import io.partita.cache.CacheManager;
import io.partita.graph.GraphRuntime;

/** Runs the CLI in this JVM, as the launcher's command service does, and keeps what it printed. */
public final class CliRun {
    private CliRun() {
    }

    /** Exit code, standard output and standard error of one command. */
    public record Result(int code, String out, String err) {
        public List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }

        /** Both streams, for assertion messages and checks that do not care which one. */
        public String text() {
            return out + err;
        }
    }

    public static Result run(GraphRuntime runtime, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PartitaCommand.execute(runtime, ServiceLoader.load(CacheManager.class).findFirst().orElseThrow(),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Runs on the standalone runtime (every backend on the class path) and checks the exit code. */
    public static String expect(int exit, String... args) {
        Result r = run(GraphRuntime.standalone(), args);
        assertEquals(exit, r.code(), r.text());
        return r.text();
    }
}
