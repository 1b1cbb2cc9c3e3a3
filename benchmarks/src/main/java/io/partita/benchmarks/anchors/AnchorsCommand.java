package io.partita.benchmarks.anchors;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code anchors}: runs each selected contender on each selected case, each (contender, case) pair
 * in a child JVM of its own, one after the other, and prints one line per case with every
 * contender's median latency and GFLOPS, plus Partita's throughput ratios when a {@code partita}
 * result exists.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar anchors [--cases matmul,conv,mlp,network] [--contenders onednn,ort,...]
 *      [--threads 2] [--min-time 1.0] [--warmup 3.0] [--min-iters 20] [--rounds 1] [--busy-retries 2] [--verify]
 *      [--cache-dir DIR] [--jvm-arg ARG]... [--onednn-max-isa ISA]
 * </pre>
 * {@code --cases} takes kinds ({@code matmul}, {@code conv}, {@code mlp}, {@code network}) or exact
 * case names (e.g. {@code matmul_64x1024x1024}, {@code resnet50}, {@code bert_layer}, a model zoo
 * classifier such as {@code zoo_vgg19}, or any matmul or convolution named as those cases print, e.g.
 * {@code matmul_128x768x3072} or {@code conv_n1c256h14w14k1024r1s1p0s1}: run only when named).
 * {@code --rounds N} repeats the whole sequence N times, rotating the contenders' order, and reports the median of the per-round medians (of the rounds
 * not disturbed by other processes, if any) with their range: on a shared or virtual machine this is steadier than one longer run. A measurement during
 * which other processes kept more than {@value #BUSY} cores busy (seen through {@code /proc}) is
 * repeated up to {@code --busy-retries} times (default 2), keeping the least disturbed; those still
 * disturbed are listed under "problems". {@code --verify} runs each contender once per case instead
 * of timing it and checks sampled outputs against a double-precision reference computed here and
 * against each other; it exits with status 1 if any check fails.
 *
 * <p>The network cases ({@code resnet50}, {@code bert_layer}: {@link Case.Network}) are whole ONNX
 * models: Partita imports and runs them as {@code partita run} does, ONNX Runtime loads the same
 * bytes; the onednn contender skips them ({@link Contenders#runs}), so their lines carry only
 * {@code ratio_vs_ort}, with each contender's p99 and first-inference latency next to the median
 * (timed over at least {@value #NETWORK_MIN_ITERS} iterations, so that the p99 is not just the slowest one).
 * In every round each contender writes its output, and Partita's is compared with ONNX Runtime's
 * ({@link #compareOutputs}: {@value #NET_RTOL} relative plus {@value #NET_ATOL} of the largest
 * output magnitude); a mismatch, or a round in which either produced no output, is printed on the
 * line and under "problems" and makes the command exit with status 1.
 *
 * <p>{@code --jvm-arg} passes an option to every child JVM (e.g. {@code -XX:UseAVX=2} or
 * {@code -XX:MaxVectorSize=16}, which make Partita's Vector API kernels run as on an AVX2 laptop or
 * a 128-bit NEON server); {@code --onednn-max-isa} caps native oneDNN the same way through its
 * {@code ONEDNN_MAX_CPU_ISA} variable (e.g. {@code AVX2}), so the ratios compare like with like.
 * ONNX Runtime has no such cap: its figures stay those of this CPU.
 *
 * <p>Child JVMs get {@code OMP_NUM_THREADS=<threads>} in their environment, the flags
 * {@code --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector}, and
 * {@code -Dorg.bytedeco.javacpp.cachedir=<cache-dir>} (default
 * {@code ~/.cache/partita-benchmarks/javacpp}) so JavaCPP unpacks oneDNN's native libraries once.
 * Nothing here uses the network.
 */
public final class AnchorsCommand {
    /** Relative error above which {@code --verify} fails. */
    static final double TOLERANCE = 1e-3;
    /** Network cases: Partita's outputs must be within this relative error of ONNX Runtime's ... */
    static final double NET_RTOL = 1e-3;
    /** ... plus this fraction of ONNX Runtime's largest output magnitude (f32 through 50+ layers). */
    static final double NET_ATOL = 1e-4;
    /** Cores used by other processes above which a measurement counts as disturbed. */
    static final double BUSY = 0.2;
    private static final long CHILD_TIMEOUT_MINUTES = 20;

    private final List<Case> cases = new ArrayList<>();
    private final List<String> contenders = new ArrayList<>();
    private final List<String> extraJvmArgs = new ArrayList<>();
    /** oneDNN's ISA cap for its children, or null for the best this CPU has. */
    private String onednnMaxIsa;
    private int threads = 2;
    private double minTime = 1.0;
    // Partita's kernels reach steady state only once C2 has compiled them (thousands of runs of the
    // Vector API loops); half a second left the convolution at a third of its speed. Natives don't mind.
    private double warmup = 3.0;
    private int minIters = 20;
    /**
     * Timed iterations at least on the network cases, whose p99 is reported: of 20 iterations (a
     * second of ResNet-50) the p99 is the slowest one, a single host hiccup; of 200, the second slowest.
     */
    static final int NETWORK_MIN_ITERS = 200;
    private int rounds = 1;
    private int busyRetries = 2;
    private boolean verify;
    private Path childTmp;
    private Path cacheDir = Path.of(System.getProperty("user.home"), ".cache", "partita-benchmarks", "javacpp");

    private AnchorsCommand() {
    }

    /** Runs the command; {@code args} are those after {@code anchors}. Returns the exit status. */
    public static int run(String[] args) throws IOException, InterruptedException {
        AnchorsCommand cmd = new AnchorsCommand();
        try {
            cmd.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("anchors: " + e.getMessage());
            System.err.println("usage: anchors [--cases matmul,conv,mlp,network|<case>,...] [--contenders "
                    + String.join(",", Contenders.all().keySet()) + "] [--threads N] [--min-time S] [--warmup S]"
                    + " [--min-iters N] [--rounds N] [--busy-retries N] [--verify] [--cache-dir DIR] [--jvm-arg ARG]... [--onednn-max-isa ISA]");
            return 2;
        }
        // ONNX Runtime unpacks its libraries into a fresh java.io.tmpdir folder on every start and
        // leaves the empty folder behind: give the children a private tmpdir and remove it at the end
        cmd.childTmp = Files.createTempDirectory("partita-anchors-");
        try {
            return cmd.verify ? cmd.verifyAll() : cmd.benchAll();
        } finally {
            deleteTree(cmd.childTmp);
        }
    }

    /** oneDNN's ISA names (dnnl_cpu_isa_t without the prefix), case-insensitive. */
    private static final List<String> ONEDNN_ISAS = List.of("SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX2_VNNI_2",
            "AVX512_CORE", "AVX512_CORE_VNNI", "AVX512_CORE_BF16", "AVX10_1_512", "AVX512_CORE_FP16",
            "AVX10_1_512_AMX", "AVX10_1_512_AMX_FP16", "DEFAULT");

    static String isa(String value) {
        String v = value.trim().toUpperCase(java.util.Locale.ROOT);
        if (!ONEDNN_ISAS.contains(v)) {
            throw new IllegalArgumentException("--onednn-max-isa '" + value + "' is not a oneDNN ISA; expected one of "
                    + ONEDNN_ISAS);
        }
        return v;
    }

    private static void deleteTree(Path root) throws IOException {
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private void parse(String[] args) {
        Set<String> caseSel = new LinkedHashSet<>();
        Set<String> contSel = new LinkedHashSet<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--cases" -> caseSel.addAll(list(value(args, ++i, a)));
                case "--contenders" -> contSel.addAll(list(value(args, ++i, a)));
                case "--threads" -> threads = Integer.parseInt(value(args, ++i, a));
                case "--min-time" -> minTime = Double.parseDouble(value(args, ++i, a));
                case "--warmup" -> warmup = Double.parseDouble(value(args, ++i, a));
                case "--min-iters" -> minIters = Integer.parseInt(value(args, ++i, a));
                case "--rounds" -> rounds = Integer.parseInt(value(args, ++i, a));
                case "--busy-retries" -> busyRetries = Integer.parseInt(value(args, ++i, a));
                case "--cache-dir" -> cacheDir = Path.of(value(args, ++i, a));
                case "--jvm-arg" -> extraJvmArgs.add(value(args, ++i, a));
                case "--onednn-max-isa" -> onednnMaxIsa = isa(value(args, ++i, a));
                case "--verify" -> verify = true;
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
        }
        for (Case c : Case.standard()) {
            if (caseSel.isEmpty() || caseSel.contains(c.kind()) || caseSel.contains(c.name())) {
                cases.add(c);
            }
        }
        List<String> zoo = new java.util.ArrayList<>(io.partita.benchmarks.models.ModelZoo.names());
        zoo.addAll(io.partita.benchmarks.models.ModelZoo.largeNames());
        for (String s : caseSel) {
            if (Case.standard().stream().noneMatch(c -> c.kind().equals(s) || c.name().equals(s))) {
                if (!zoo.contains(s) && !Case.isShapeName(s)) {
                    throw new IllegalArgumentException("unknown case " + s + "; kinds: matmul, conv, mlp, network; "
                            + "names: " + Case.standard().stream().map(Case::name).toList() + " and the model zoo's "
                            + zoo);
                }
                cases.add(Case.byName(s)); // on request only: not part of the standard set
            }
        }
        if (contSel.isEmpty()) {
            contSel.addAll(Contenders.defaults());
        }
        for (String s : contSel) {
            Contenders.factory(s); // fails on unknown names
            contenders.add(s);
        }
        if (threads < 1 || rounds < 1 || minIters < 1) {
            throw new IllegalArgumentException("--threads, --rounds and --min-iters must be >= 1");
        }
    }

    private static String value(String[] args, int i, String opt) {
        if (i >= args.length) {
            throw new IllegalArgumentException(opt + " needs a value");
        }
        return args[i];
    }

    private static List<String> list(String s) {
        List<String> l = new ArrayList<>();
        for (String p : s.split(",")) {
            if (!p.isBlank()) {
                l.add(p.trim());
            }
        }
        return l;
    }

    // ---------------------------------------------------------------- timing

    private int benchAll() throws IOException, InterruptedException {
        System.out.printf(Locale.ROOT, "anchors: %d threads, f32; median latency of timed iterations after warm-up "
                + "(>= %.1f s and >= %d iterations per case, >= %d on networks, warm-up >= %.1f s); one child JVM per "
                + "contender and case, run one at a time%s%n", threads, minTime, minIters,
                Math.max(minIters, NETWORK_MIN_ITERS), warmup,
                rounds > 1 ? "; " + rounds + " rounds (contender order rotated), median of the undisturbed rounds' medians" : "");
        System.out.println("child JVM: " + String.join(" ", childCommand("<contender>", "<case>", "bench", null, minIters))
                + "   env OMP_NUM_THREADS=" + threads + (onednnMaxIsa == null ? "" : " ONEDNN_MAX_CPU_ISA=" + onednnMaxIsa));
        // case -> contender -> one result per round
        Map<String, Map<String, List<Map<String, String>>>> results = new LinkedHashMap<>();
        Map<String, String> infos = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        // network case -> one output comparison (Partita against ONNX Runtime) per round
        Map<String, List<OutputCheck>> checks = new LinkedHashMap<>();
        for (Case c : cases) {
            Map<String, List<Map<String, String>>> row = new LinkedHashMap<>();
            contenders.forEach(k -> row.put(k, new ArrayList<>()));
            results.put(c.name(), row);
            checks.put(c.name(), new ArrayList<>());
        }
        for (int round = 0; round < rounds; round++) {
            for (Case c : cases) {
                Map<String, Path> outputFiles = new LinkedHashMap<>();
                for (int i = 0; i < contenders.size(); i++) {
                    String k = contenders.get((i + round) % contenders.size());
                    if (!Contenders.runs(k, c)) {
                        continue;
                    }
                    Path outFile = c instanceof Case.Network ? childTmp.resolve(k + "-" + c.name() + ".f32") : null;
                    if (outFile != null) {
                        Files.deleteIfExists(outFile);
                        outputFiles.put(k, outFile);
                    }
                    ChildOutput out = runChild(k, c, "bench", outFile);
                    for (int retry = 0; retry < busyRetries && otherCpu(out) > BUSY; retry++) {
                        System.err.printf(Locale.ROOT, "[anchors] %s on %s: other processes kept %.2f cores busy; "
                                + "measuring again in 3 s%n", k, c.name(), otherCpu(out));
                        Thread.sleep(3000);
                        ChildOutput again = runChild(k, c, "bench", outFile);
                        if (again.result != null && otherCpu(again) < otherCpu(out)) {
                            out = again;
                        }
                    }
                    if (out.info != null) {
                        infos.put(k + " " + c.name(), out.info);
                    }
                    String where = k + " on " + c.name() + (rounds > 1 ? " (round " + (round + 1) + ")" : "");
                    if (out.result != null) {
                        results.get(c.name()).get(k).add(out.result);
                        double other = otherCpu(out);
                        if (other > BUSY) {
                            problems.add(String.format(Locale.ROOT,
                                    "%s: other processes kept %.2f cores busy while it was timed", where, other));
                        }
                    } else {
                        problems.add(where + ": " + out.failure());
                    }
                    System.err.println("[anchors] " + where + ": " + (out.result != null
                            ? out.result.get("median_ms") + " ms, " + out.result.get("gflops") + " GFLOPS" : out.failure()));
                }
                Path mine = outputFiles.get(Contenders.PARTITA);
                Path theirs = outputFiles.get(Contenders.ORT);
                if (mine != null && theirs != null) {
                    String where = c.name() + (rounds > 1 ? " (round " + (round + 1) + ")" : "");
                    OutputCheck check;
                    if (Files.exists(mine) && Files.exists(theirs)) {
                        check = compareOutputs(readFloats(mine), readFloats(theirs));
                    } else {
                        // a contender failed: nothing shows that Partita computes the network right
                        check = OutputCheck.failed("NOT COMPARED: " + (Files.exists(mine) ? "ort" : "partita")
                                + " produced no output (see its error)");
                    }
                    checks.get(c.name()).add(check);
                    System.err.println("[anchors] " + where + ": partita vs ort " + check.describe());
                    if (!check.matches()) {
                        problems.add(where + ": partita's output against ort's: " + check.describe());
                    }
                }
            }
        }
        boolean mismatch = checks.values().stream().flatMap(List::stream).anyMatch(ch -> !ch.matches());
        System.out.println();
        for (Case c : cases) {
            Map<String, Map<String, String>> row = new LinkedHashMap<>();
            results.get(c.name()).forEach((k, rs) -> {
                if (!rs.isEmpty()) {
                    row.put(k, aggregate(c, rs));
                }
            });
            String line = formatLine(c, row);
            List<OutputCheck> cs = checks.get(c.name());
            if (!cs.isEmpty()) {
                OutputCheck worst = cs.stream().max(java.util.Comparator.comparingDouble(OutputCheck::worstRatio)).get();
                line += worst.matches() ? String.format(Locale.ROOT, " | outputs match ort (worst %.2g of the tolerance)",
                        worst.worstRatio()) : " | OUTPUTS DO NOT MATCH ort: " + worst.describe();
            }
            System.out.println(line);
        }
        System.out.println();
        System.out.println("details (per contender and case" + (rounds > 1 ? " and round" : "") + "):");
        for (Case c : cases) {
            for (String k : contenders) {
                String info = infos.getOrDefault(k + " " + c.name(), "");
                for (Map<String, String> r : results.get(c.name()).get(k)) {
                    System.out.printf(Locale.ROOT, "  %-8s %-30s median %s min %s p10 %s p90 %s p99 %s ms, first %s ms, "
                            + "%s iters in %s s, prepare %s ms, other_cpu %s; %s%n", k, c.name(), r.get("median_ms"),
                            r.get("min_ms"), r.get("p10_ms"), r.get("p90_ms"), r.get("p99_ms"), r.get("first_ms"),
                            r.get("iters"), r.get("timed_s"), r.get("prepare_ms"), r.get("other_cpu"), info);
                }
            }
        }
        if (!problems.isEmpty()) {
            System.out.println();
            System.out.println("problems:");
            problems.forEach(p -> System.out.println("  " + p));
        }
        if (mismatch) {
            System.out.println("anchors: FAILED: Partita's output does not match ONNX Runtime's on a network case"
                    + " (or one of them produced none)");
        }
        return mismatch ? 1 : 0;
    }

    /**
     * Partita's output against ONNX Runtime's, element by element: element {@code i} passes when
     * {@code |x - ref| <= NET_RTOL * |ref| + NET_ATOL * max|ref|}. {@code worstRatio} is the largest
     * error over its allowance (a match is at most 1); NaN or a length difference never matches.
     */
    record OutputCheck(int size, double maxAbsErr, int worstIndex, double worstRatio, double refMaxAbs, String failure) {
        static OutputCheck failed(String why) {
            return new OutputCheck(0, Double.NaN, -1, Double.POSITIVE_INFINITY, Double.NaN, why);
        }

        boolean matches() {
            return failure == null && worstRatio <= 1;
        }

        String describe() {
            if (failure != null) {
                return failure;
            }
            return String.format(Locale.ROOT, "%s: %d values, max abs err %.3g (largest |ort| %.3g), worst at %d: "
                    + "%.3g of the allowed rtol %.0e + atol %.0e x max|ort|", matches() ? "match" : "MISMATCH", size,
                    maxAbsErr, refMaxAbs, worstIndex, worstRatio, NET_RTOL, NET_ATOL);
        }
    }

    static OutputCheck compareOutputs(float[] x, float[] ref) {
        if (x.length != ref.length) {
            return OutputCheck.failed("MISMATCH: " + x.length + " values against ort's " + ref.length);
        }
        double refMax = 0;
        for (float r : ref) {
            if (!Float.isFinite(r)) {
                return OutputCheck.failed("MISMATCH: ort's output is not finite (" + r + ")");
            }
            refMax = Math.max(refMax, Math.abs(r));
        }
        double maxAbs = 0;
        double worst = 0;
        int worstAt = 0;
        for (int i = 0; i < x.length; i++) {
            double err = Math.abs((double) x[i] - ref[i]);
            if (Double.isNaN(err)) {
                return new OutputCheck(x.length, Double.NaN, i, Double.POSITIVE_INFINITY, refMax,
                        "MISMATCH: partita's output at " + i + " is " + x[i] + ", ort's " + ref[i]);
            }
            double allowed = NET_RTOL * Math.abs(ref[i]) + NET_ATOL * refMax;
            double ratio = allowed > 0 ? err / allowed : (err == 0 ? 0 : Double.POSITIVE_INFINITY);
            maxAbs = Math.max(maxAbs, err);
            if (ratio > worst) {
                worst = ratio;
                worstAt = i;
            }
        }
        return new OutputCheck(x.length, maxAbs, worstAt, worst, refMax, null);
    }

    private static float[] readFloats(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        float[] f = new float[bytes.length / Float.BYTES];
        java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
        return f;
    }

    /** Cores other processes kept busy during a measurement; 0 if unknown or failed. */
    private static double otherCpu(ChildOutput out) {
        return out.result == null ? 0 : Math.max(0, Double.parseDouble(out.result.getOrDefault("other_cpu", "-1")));
    }

    /**
     * The median over rounds of the per-round medians (the lower middle one for an even count),
     * over the undisturbed rounds if there are any, else over all; notes how many were disturbed.
     */
    private static Map<String, String> aggregate(Case c, List<Map<String, String>> rounds) {
        List<Map<String, String>> quiet = rounds.stream()
                .filter(r -> Double.parseDouble(r.getOrDefault("other_cpu", "-1")) <= BUSY).toList();
        List<Map<String, String>> use = quiet.isEmpty() ? rounds : quiet;
        double[] ms = use.stream().mapToDouble(r -> Double.parseDouble(r.get("median_ms"))).sorted().toArray();
        double med = ms[(ms.length - 1) / 2];
        Map<String, String> m = new LinkedHashMap<>();
        m.put("median_ms", Double.toString(med));
        for (String key : List.of("p99_ms", "first_ms")) {
            double[] v = use.stream().filter(r -> r.containsKey(key)).mapToDouble(r -> Double.parseDouble(r.get(key)))
                    .sorted().toArray();
            if (v.length > 0) {
                m.put(key, Double.toString(v[(v.length - 1) / 2]));
            }
        }
        m.put("gflops", Double.toString(c.flops() / (med * 1e6)));
        if (rounds.size() > 1) {
            m.put("spread", String.format(Locale.ROOT, "%.4f-%.4f", ms[0], ms[ms.length - 1]));
            m.put("used", use.size() + "/" + rounds.size());
        }
        if (quiet.size() < rounds.size()) {
            m.put("disturbed", (rounds.size() - quiet.size()) + "/" + rounds.size());
        }
        return m;
    }

    /** One line: {@code <case>  <contender> <ms> ms <gf> GFLOPS | ... | ratio_vs_onednn=… ratio_vs_ort=…}. */
    static String formatLine(Case c, Map<String, Map<String, String>> row) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-33s", c.label()));
        List<String> cells = new ArrayList<>();
        for (Map.Entry<String, Map<String, String>> e : row.entrySet()) {
            double ms = Double.parseDouble(e.getValue().get("median_ms"));
            double gf = Double.parseDouble(e.getValue().get("gflops"));
            Map<String, String> v = e.getValue();
            String note = v.containsKey("spread") ? " (" + v.get("used") + " rounds, " + v.get("spread") + " ms)" : "";
            if (v.containsKey("disturbed")) {
                note += " [disturbed " + v.get("disturbed") + "]";
            }
            if (c instanceof Case.Network && v.containsKey("p99_ms") && v.containsKey("first_ms")) {
                // whole networks: the tail and the first answer matter as much as the median
                cells.add(String.format(Locale.ROOT, "%s %9.3f ms (p99 %.3f, first %.1f) %7.1f GFLOPS%s", e.getKey(), ms,
                        Double.parseDouble(v.get("p99_ms")), Double.parseDouble(v.get("first_ms")), gf, note));
            } else {
                cells.add(String.format(Locale.ROOT, "%s %9.4f ms %7.1f GFLOPS%s", e.getKey(), ms, gf, note));
            }
        }
        Map<String, String> partita = row.get(Contenders.PARTITA);
        if (partita != null) {
            double p = Double.parseDouble(partita.get("gflops"));
            StringBuilder ratios = new StringBuilder();
            for (String other : List.of(Contenders.ONEDNN, Contenders.ORT)) {
                Map<String, String> o = row.get(other);
                if (o != null) {
                    ratios.append(ratios.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "ratio_vs_%s=%.3f",
                            other, p / Double.parseDouble(o.get("gflops"))));
                }
            }
            Map<String, String> gpu = row.get(Contenders.GPU);
            if (gpu != null) {
                // the device against the CPU backend it would replace
                ratios.append(ratios.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "ratio_gpu_vs_dnnl=%.3f",
                        Double.parseDouble(gpu.get("gflops")) / p));
            }
            if (!ratios.isEmpty()) {
                cells.add(ratios.toString());
            }
        }
        sb.append(cells.isEmpty() ? "no results" : String.join(" | ", cells));
        return sb.toString();
    }

    // ---------------------------------------------------------------- verification

    private int verifyAll() throws IOException, InterruptedException {
        System.out.printf(Locale.ROOT, "anchors --verify: %d threads; %d sampled output values per case; relative error "
                + "= |x - ref| / max(|ref|, 1e-2 * rms(ref)), ref computed in double precision; tolerance %.0e%n",
                threads, ChildMain.SAMPLES, TOLERANCE);
        boolean ok = true;
        for (Case c : cases) {
            int[] idx = c.sampleIndices(ChildMain.SAMPLES);
            // network cases have no reference here: their contenders are compared with each other only
            double[] ref = c.hasReference() ? c.reference(idx) : null;
            Map<String, float[]> got = new LinkedHashMap<>();
            List<String> cells = new ArrayList<>();
            for (String k : contenders) {
                if (!Contenders.runs(k, c)) {
                    continue;
                }
                ChildOutput out = runChild(k, c, "verify", null);
                if (out.sample == null) {
                    cells.add(k + " FAILED (" + out.failure() + ")");
                    ok = false;
                    continue;
                }
                got.put(k, out.sample);
                if (ref != null) {
                    double e = maxRelErr(out.sample, ref);
                    boolean pass = e <= TOLERANCE;
                    ok &= pass;
                    cells.add(String.format(Locale.ROOT, "%s max_rel_err_vs_ref=%.2e %s", k, e, pass ? "ok" : "FAIL"));
                }
            }
            List<String> names = new ArrayList<>(got.keySet());
            for (int i = 0; i < names.size(); i++) {
                for (int j = i + 1; j < names.size(); j++) {
                    float[] a = got.get(names.get(i));
                    float[] b = got.get(names.get(j));
                    double[] bd = new double[b.length];
                    for (int t = 0; t < b.length; t++) {
                        bd[t] = b[t];
                    }
                    double e = maxRelErr(a, bd);
                    boolean pass = e <= TOLERANCE;
                    ok &= pass;
                    cells.add(String.format(Locale.ROOT, "%s_vs_%s max_rel_err=%.2e %s", names.get(i), names.get(j), e,
                            pass ? "ok" : "FAIL"));
                }
            }
            System.out.printf(Locale.ROOT, "%-33s %s%n", c.label(), String.join(" | ", cells));
        }
        System.out.println(ok ? "verify: all contenders agree with the reference and with each other"
                : "verify: FAILED");
        return ok ? 0 : 1;
    }

    static double maxRelErr(float[] x, double[] ref) {
        if (x.length != ref.length) {
            return Double.POSITIVE_INFINITY;
        }
        double ss = 0;
        for (double r : ref) {
            ss += r * r;
        }
        double floor = Math.max(1e-2 * Math.sqrt(ss / ref.length), Double.MIN_NORMAL);
        double max = 0;
        for (int i = 0; i < x.length; i++) {
            double e = Math.abs(x[i] - ref[i]) / Math.max(Math.abs(ref[i]), floor);
            if (Double.isNaN(e)) {
                return Double.POSITIVE_INFINITY;
            }
            max = Math.max(max, e);
        }
        return max;
    }

    // ---------------------------------------------------------------- child JVMs

    private record ChildOutput(String info, Map<String, String> result, float[] sample, String error, int exit) {
        String failure() {
            return error != null ? error : "child exited with status " + exit + " without a result";
        }
    }

    private List<String> childCommand(String contender, String caseName, String mode, Path outputFile, int iterations) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("--add-modules");
        cmd.add("jdk.incubator.vector");
        cmd.add("--sun-misc-unsafe-memory-access=allow");
        cmd.add("-Dorg.bytedeco.javacpp.cachedir=" + cacheDir);
        // the report is the output; Partita's INFO lines (backend registered, ...) would interleave with it
        cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        if (childTmp != null) {
            cmd.add("-Djava.io.tmpdir=" + childTmp);
        }
        if (outputFile != null) {
            cmd.add("-D" + ChildMain.OUTPUT_PROPERTY + "=" + outputFile);
        }
        cmd.addAll(extraJvmArgs);
        cmd.add("-cp");
        cmd.add(io.partita.benchmarks.Backends.classPath());
        cmd.add(ChildMain.class.getName());
        cmd.add(contender);
        cmd.add(caseName);
        cmd.add(Integer.toString(threads));
        cmd.add(mode);
        cmd.add(Double.toString(minTime));
        cmd.add(Double.toString(warmup));
        cmd.add(Integer.toString(iterations));
        return cmd;
    }

    private ChildOutput runChild(String contender, Case c, String mode, Path outputFile)
            throws IOException, InterruptedException {
        Files.createDirectories(cacheDir);
        ProcessBuilder pb = new ProcessBuilder(childCommand(contender, c.name(), mode, outputFile,
                c instanceof Case.Network ? Math.max(minIters, NETWORK_MIN_ITERS) : minIters));
        pb.environment().put("OMP_NUM_THREADS", Integer.toString(threads));
        // PoCL's CPU device (the gpu contender here) runs its kernels on this many threads
        pb.environment().put("POCL_MAX_PTHREAD_COUNT", Integer.toString(threads));
        if (onednnMaxIsa != null) {
            // Read by oneDNN at its first primitive; the other contenders ignore it.
            pb.environment().put("ONEDNN_MAX_CPU_ISA", onednnMaxIsa);
        }
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process p = pb.start();
        List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith(ChildMain.PREFIX + " ")) {
                        lines.add(line);
                    } else {
                        System.err.println("[" + contender + " " + c.name() + "] " + line);
                    }
                }
            } catch (IOException e) {
                lines.add(ChildMain.PREFIX + " error text=reading the child's output: " + e);
            }
        });
        Thread errors = Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (!line.equals("WARNING: Using incubator modules: jdk.incubator.vector")) { // expected, every child
                        System.err.println("[" + contender + " " + c.name() + "] " + line);
                    }
                }
            } catch (IOException e) {
                // the child is gone; its exit status tells the rest
            }
        });
        boolean exited = p.waitFor(CHILD_TIMEOUT_MINUTES, TimeUnit.MINUTES);
        if (!exited) {
            p.destroyForcibly();
            p.waitFor();
        }
        reader.join();
        errors.join();
        String info = null;
        Map<String, String> result = null;
        float[] sample = null;
        String error = exited ? null : "timed out after " + CHILD_TIMEOUT_MINUTES + " min";
        for (String line : lines) {
            String[] kindAndRest = line.substring(ChildMain.PREFIX.length() + 1).split(" ", 2);
            Map<String, String> f = fields(kindAndRest.length > 1 ? kindAndRest[1] : "");
            switch (kindAndRest[0]) {
                case "info" -> info = f.get("text");
                case "result" -> result = f;
                case "error" -> error = f.get("text");
                case "sample" -> {
                    String[] vs = f.get("values").split(",");
                    sample = new float[vs.length];
                    for (int i = 0; i < vs.length; i++) {
                        sample[i] = Float.parseFloat(vs[i]);
                    }
                }
                default -> System.err.println("[" + contender + " " + c.name() + "] " + line);
            }
        }
        return new ChildOutput(info, result, sample, error, p.exitValue());
    }

    /** Parses {@code k=v k=v … text=rest of line}. */
    static Map<String, String> fields(String s) {
        Map<String, String> m = new LinkedHashMap<>();
        int i = 0;
        while (i < s.length()) {
            int eq = s.indexOf('=', i);
            if (eq < 0) {
                break;
            }
            String key = s.substring(i, eq);
            if (key.equals("text")) {
                m.put(key, s.substring(eq + 1));
                break;
            }
            int sp = s.indexOf(' ', eq);
            int end = sp < 0 ? s.length() : sp;
            m.put(key, s.substring(eq + 1, end));
            i = end + 1;
        }
        return m;
    }
}
