package io.partita.formats;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.partita.graph.PartitaException;

/**
 * A seeded, time-bounded mutation fuzzing loop over corpus files. Each iteration draws its own
 * {@link Random} from the seed and the iteration number, so a failure is reproduced by the seed
 * alone (the inputs come in the same order) or, with {@code -Dpartita.fuzz.iteration=I}, by that one
 * iteration.
 *
 * <p>The oracle: reading an input ends in a {@link PartitaException} with a real message (refused),
 * or in a graph that the runtime builds and finalizes (valid) or refuses with a
 * {@link PartitaException} (rejected). Every other outcome — another exception, an {@link Error}, a
 * blank or "null" message, a {@link PartitaException} that only wraps a programming error, a hang
 * beyond the per-input timeout — is a failure: its input is saved under
 * {@code target/fuzz-failures/} with a text file naming seed, iteration, seed file, mutations and the
 * stack trace.
 *
 * <p>Settings (system properties): {@code partita.fuzz.seconds} (default 20, per reader),
 * {@code partita.fuzz.seed} (default 1), {@code partita.fuzz.iteration} (run only that iteration),
 * {@code partita.fuzz.timeoutSeconds} (per input, default 10).
 */
public final class FuzzLoop {
    /** What became of one input that did not fail. */
    public enum Outcome {
        /** the reader refused it with a PartitaException */
        REFUSED,
        /** the reader accepted it and the runtime built and finalized the graph */
        VALID,
        /** the reader accepted it and the runtime refused the graph with a PartitaException */
        REJECTED
    }

    /** One generated input: its bytes, the corpus file it came from and the mutations applied. */
    public record Input(byte[] bytes, String seedFile, String mutations, String extension) {
    }

    /** Generates the input of one iteration from that iteration's random source. */
    @FunctionalInterface
    public interface Generator {
        Input next(Random random);
    }

    /** Reads an input and builds what it describes; throws whatever the code under test throws. */
    @FunctionalInterface
    public interface Target {
        Outcome run(Input input) throws Exception;
    }

    /**
     * A failure: the exception class and the first stack frame inside Partita identify it, so many
     * inputs hitting one bug count once in {@link Report#distinctFailures}.
     */
    public record Failure(long iteration, Input input, String signature, String detail) {
    }

    /** The counts of a run. */
    public record Report(String name, long seed, long inputs, long refused, long valid, long rejected,
            List<Failure> failures, Map<String, Integer> distinctFailures, double seconds,
            Map<String, long[]> byMutation) {

        public long parsed() {
            return valid + rejected;
        }

        /** The counts as {@code name=value} tokens on one line. */
        public String line() {
            return String.format(java.util.Locale.ROOT,
                    "%s seed=%d inputs=%d refused=%d parsed=%d valid=%d rejected=%d failures=%d distinct_failures=%d "
                            + "seconds=%.1f",
                    name, seed, inputs, refused, parsed(), valid, rejected, failures.size(), distinctFailures.size(),
                    seconds);
        }

        /** Per mutation family: inputs, parsed, valid (how deep each family reaches). */
        public String mutationLine() {
            StringBuilder b = new StringBuilder(name + "_mutations");
            for (Map.Entry<String, long[]> e : new TreeMap<>(byMutation).entrySet()) {
                long[] c = e.getValue();
                b.append(' ').append(e.getKey()).append('=').append(c[0]).append('/').append(c[1]).append('/')
                        .append(c[2]);
            }
            return b.toString();
        }
    }

    private static final int SAVED_PER_SIGNATURE = 3;

    private FuzzLoop() {
    }

    public static double seconds() {
        return Double.parseDouble(System.getProperty("partita.fuzz.seconds", "20"));
    }

    public static long seed() {
        return Long.parseLong(System.getProperty("partita.fuzz.seed", "1"));
    }

    /** The random source of one iteration: a SplitMix64 mix of seed and iteration. */
    public static Random randomFor(long seed, long iteration) {
        long z = seed * 0x9E3779B97F4A7C15L + iteration + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return new Random(z ^ (z >>> 31));
    }

    /** Runs the loop for the configured time (or the one configured iteration). */
    public static Report run(String name, Generator generator, Target target) {
        long seed = seed();
        double seconds = seconds();
        long timeoutMs = (long) (Double.parseDouble(System.getProperty("partita.fuzz.timeoutSeconds", "10")) * 1000);
        String only = System.getProperty("partita.fuzz.iteration");
        Path failureDir = Paths.get("target", "fuzz-failures");

        long start = System.nanoTime();
        long deadline = start + (long) (seconds * 1e9);
        long inputs = 0;
        long refused = 0;
        long valid = 0;
        long rejected = 0;
        List<Failure> failures = new ArrayList<>();
        Map<String, Integer> signatures = new LinkedHashMap<>();
        Map<String, long[]> byMutation = new LinkedHashMap<>();
        ExecutorService exec = newExecutor(name);
        try {
            long iteration = only != null ? Long.parseLong(only) : 0;
            while (only != null ? inputs == 0 : System.nanoTime() < deadline) {
                Input input = generator.next(randomFor(seed, iteration));
                inputs++;
                long[] family = byMutation.computeIfAbsent(family(input.mutations()), k -> new long[3]);
                family[0]++;
                Future<Outcome> f = exec.submit(() -> target.run(input));
                String signature = null;
                Throwable thrown = null;
                try {
                    Outcome o = f.get(timeoutMs, TimeUnit.MILLISECONDS);
                    switch (o) {
                        case REFUSED -> refused++;
                        case VALID -> {
                            valid++;
                            family[1]++;
                            family[2]++;
                        }
                        case REJECTED -> {
                            rejected++;
                            family[1]++;
                        }
                    }
                } catch (TimeoutException e) {
                    f.cancel(true);
                    // The stuck thread cannot be stopped; abandon it (daemon) and go on with a fresh one.
                    exec.shutdownNow();
                    exec = newExecutor(name);
                    signature = "timeout after " + timeoutMs + " ms";
                } catch (ExecutionException e) {
                    thrown = e.getCause();
                    signature = signature(thrown);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("fuzz loop interrupted", e);
                }
                if (signature != null) {
                    int seen = signatures.merge(signature, 1, Integer::sum);
                    String detail = detail(name, seed, iteration, input, signature, thrown);
                    failures.add(new Failure(iteration, input, signature, detail));
                    if (seen <= SAVED_PER_SIGNATURE) {
                        save(failureDir, name + "-seed" + seed + "-iter" + iteration, input, detail);
                    }
                }
                iteration++;
            }
        } finally {
            exec.shutdownNow();
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        return new Report(name, seed, inputs, refused, valid, rejected, failures, signatures, elapsed, byMutation);
    }

    /**
     * For a target's catch block: {@code outcome} when the exception is an acceptable refusal,
     * else it is rethrown (and becomes a failure).
     */
    public static Outcome refusal(PartitaException e, Outcome outcome) {
        if (signature(e) != null) {
            throw e;
        }
        if (VERBOSE) {
            // Message shapes (names, numbers and quoted items blanked) show where mutations stop.
            String m = outcome + " " + e.getClass().getSimpleName() + ": " + e.getMessage()
                    .replaceAll("'[^']*'", "'_'").replaceAll("\"[^\"]*\"", "_").replaceAll("-?\\d+", "#");
            REFUSALS.merge(m.length() > 140 ? m.substring(0, 140) : m, 1, Integer::sum);
        }
        return outcome;
    }

    /** With {@code -Dpartita.fuzz.verbose=true}: the commonest refusal messages, by count. */
    private static final boolean VERBOSE = Boolean.getBoolean("partita.fuzz.verbose");
    private static final Map<String, Integer> REFUSALS = new java.util.concurrent.ConcurrentHashMap<>();

    /** Prints the commonest refusals (verbose runs only) and forgets them. */
    public static void printRefusals(int top) {
        REFUSALS.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(top)
                .forEach(e -> System.out.println(e.getValue() + "\t" + e.getKey()));
        REFUSALS.clear();
    }

    /**
     * The failure signature of what a target threw, or null when it is an acceptable refusal (a
     * PartitaException with a real message that does not merely wrap a programming error).
     */
    static String signature(Throwable t) {
        if (t instanceof PartitaException p) {
            String m = p.getMessage();
            if (m == null || m.isBlank() || m.strip().equals("null")) {
                return "blank message: " + where(t);
            }
            for (Throwable c = p.getCause(); c != null; c = c.getCause()) {
                if (c instanceof NullPointerException || c instanceof IndexOutOfBoundsException
                        || c instanceof ArithmeticException || c instanceof ClassCastException
                        || c instanceof IllegalStateException || c instanceof NegativeArraySizeException
                        || c instanceof Error) {
                    return "PartitaException wrapping " + c.getClass().getName() + " at " + where(c);
                }
            }
            return null;
        }
        return t.getClass().getName() + " at " + where(t);
    }

    /** The first stack frame in Partita code (else the first frame). */
    private static String where(Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        for (StackTraceElement e : st) {
            if (e.getClassName().startsWith("io.partita.") && !e.getClassName().startsWith(FuzzLoop.class.getName())) {
                return e.getClassName() + "." + e.getMethodName() + ":" + e.getLineNumber();
            }
        }
        return st.length > 0 ? st[0].toString() : "(no stack)";
    }

    private static String family(String mutations) {
        int end = mutations.indexOf('(');
        int plus = mutations.indexOf('+');
        if (plus >= 0 && (end < 0 || plus < end)) {
            end = plus;
        }
        return end < 0 ? mutations : mutations.substring(0, end);
    }

    private static String detail(String name, long seed, long iteration, Input input, String signature,
            Throwable thrown) {
        StringWriter w = new StringWriter();
        PrintWriter p = new PrintWriter(w);
        p.println(name + " failure: " + signature);
        p.println("reproduce: -Dpartita.fuzz.seed=" + seed + " -Dpartita.fuzz.iteration=" + iteration);
        p.println("seed file: " + input.seedFile());
        p.println("mutations: " + input.mutations());
        p.println("input bytes: " + input.bytes().length);
        if (thrown != null) {
            thrown.printStackTrace(p);
        }
        p.flush();
        return w.toString();
    }

    private static void save(Path dir, String base, Input input, String detail) {
        try {
            Files.createDirectories(dir);
            Files.write(dir.resolve(base + "." + input.extension()), input.bytes());
            Files.writeString(dir.resolve(base + ".txt"), detail, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save a fuzz failure in " + dir.toAbsolutePath(), e);
        }
    }

    private static ExecutorService newExecutor(String name) {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name + "-input");
            t.setDaemon(true);
            return t;
        });
    }

    /** A message listing the failures for an assertion (first of each signature). */
    /**
     * Prints the run's counts and most frequent refusals, then fails on any failure, and on a run
     * whose mutations gave only refused or only valid inputs (it would test one side only).
     */
    public static void printAndAssertClean(Report report) {
        System.out.println(report.line());
        System.out.println(report.mutationLine());
        printRefusals(40);
        org.junit.jupiter.api.Assertions.assertTrue(report.failures().isEmpty(), () -> describeFailures(report));
        org.junit.jupiter.api.Assertions.assertTrue(report.inputs() == 1 || report.refused() > 0 && report.valid() > 0,
                () -> "the mutations should give both refused and valid inputs: " + report.line());
    }

    public static String describeFailures(Report r) {
        StringBuilder b = new StringBuilder(r.line()).append('\n');
        Map<String, Failure> first = new LinkedHashMap<>();
        for (Failure f : r.failures()) {
            first.putIfAbsent(f.signature(), f);
        }
        for (Map.Entry<String, Failure> e : first.entrySet()) {
            Failure f = e.getValue();
            b.append(r.distinctFailures().get(e.getKey())).append(" x ").append(e.getKey()).append("\n  iteration ")
                    .append(f.iteration()).append(", seed file ").append(f.input().seedFile()).append(", mutations ")
                    .append(f.input().mutations()).append('\n');
        }
        b.append("inputs saved under ").append(Paths.get("target", "fuzz-failures").toAbsolutePath());
        return b.toString();
    }
}
