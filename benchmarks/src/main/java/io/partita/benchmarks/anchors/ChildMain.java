package io.partita.benchmarks.anchors;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Entry point of a child JVM: runs one contender on one case and prints machine-readable lines on
 * standard output, each starting with {@value #PREFIX} followed by a kind and {@code key=value}
 * fields separated by single spaces (values contain no spaces, except that of the last field
 * {@code text=}, which runs to the end of the line):
 * <ul>
 *   <li>{@code ANCHOR info contender=… case=… text=…} — what the engine is;</li>
 *   <li>{@code ANCHOR result contender=… case=… median_ms=… gflops=… min_ms=… p10_ms=… p90_ms=…
 *       p99_ms=… mean_ms=… iters=… timed_s=… first_ms=… warmup_iters=… prepare_ms=… other_cpu=…} —
 *       a timing, where {@code first_ms} is the first inference after {@link Contender#prepare}
 *       (before any warm-up: what a user waits for the first answer) and {@code other_cpu} is the
 *       average number of cores that other processes kept busy while this one was timed (from
 *       {@code /proc}; {@code -1} if unavailable);</li>
 *   <li>{@code ANCHOR sample contender=… case=… n=… values=v,v,…} — output values at
 *       {@link Case#sampleIndices} (in {@code --verify} mode);</li>
 *   <li>{@code ANCHOR error contender=… case=… text=…} — a failure.</li>
 * </ul>
 * Arguments: {@code <contender> <case-name> <threads> bench|verify [minTimeSeconds warmupSeconds
 * minIters]}. With the system property {@value #OUTPUT_PROPERTY} set to a path, a benchmark run
 * also writes the output of its last inference there (f32, little endian, row-major), for the
 * parent to compare contenders on the network cases.
 */
public final class ChildMain {
    static final String PREFIX = "ANCHOR";
    /** System property naming the file the output of a benchmark run is written to. */
    static final String OUTPUT_PROPERTY = "partita.anchors.output";
    /** Number of output values compared by {@code --verify}. */
    static final int SAMPLES = 256;
    /** Upper bound on timed iterations (memory for the samples). */
    private static final int MAX_ITERS = 2_000_000;

    private ChildMain() {
    }

    public static void main(String[] args) {
        if (args.length < 4) {
            System.err.println("usage: ChildMain <contender> <case> <threads> bench|verify [minTime warmup minIters]");
            System.exit(2);
        }
        String contenderName = args[0];
        String caseName = args[1];
        int threads = Integer.parseInt(args[2]);
        boolean verify = args[3].equals("verify");
        double minTime = args.length > 4 ? Double.parseDouble(args[4]) : 1.0;
        double warmup = args.length > 5 ? Double.parseDouble(args[5]) : 0.5;
        int minIters = args.length > 6 ? Integer.parseInt(args[6]) : 20;
        String tag = "contender=" + contenderName + " case=" + caseName;
        try {
            Case c = Case.byName(caseName);
            try (Contender k = Contenders.factory(contenderName).create(threads)) {
                long p0 = System.nanoTime();
                k.prepare(c);
                double prepareMs = (System.nanoTime() - p0) / 1e6;
                System.out.println(PREFIX + " info " + tag + " text=" + k.describe().replace('\n', ' '));
                if (verify) {
                    k.runOnce();
                    k.runOnce();
                    float[] out = k.output();
                    if (out.length != c.outputSize()) {
                        throw new IllegalStateException("output has " + out.length + " elements, expected " + c.outputSize());
                    }
                    int[] idx = c.sampleIndices(SAMPLES);
                    StringBuilder sb = new StringBuilder();
                    for (int i = 0; i < idx.length; i++) {
                        sb.append(i == 0 ? "" : ",").append(out[idx[i]]);
                    }
                    System.out.println(PREFIX + " sample " + tag + " n=" + idx.length + " values=" + sb);
                } else {
                    System.out.println(PREFIX + " result " + tag + " " + time(k, c, minTime, warmup, minIters, prepareMs));
                    String outFile = System.getProperty(OUTPUT_PROPERTY);
                    if (outFile != null) {
                        writeOutput(Path.of(outFile), k.output(), c);
                    }
                }
            }
        } catch (Throwable t) {
            String msg = (t.getClass().getName() + ": " + t.getMessage()).replace('\n', ' ');
            System.out.println(PREFIX + " error " + tag + " text=" + msg);
            t.printStackTrace();
            System.out.flush();
            System.exit(1);
        }
        System.out.flush();
        System.exit(0);
    }

    private static String time(Contender k, Case c, double minTime, double warmup, int minIters, double prepareMs)
            throws Exception {
        long f0 = System.nanoTime();
        k.runOnce();
        double firstMs = (System.nanoTime() - f0) / 1e6;
        long warmNs = (long) (warmup * 1e9);
        int warmIters = 1;
        long w0 = System.nanoTime();
        while (warmIters < 5 || System.nanoTime() - w0 < warmNs) {
            k.runOnce();
            warmIters++;
        }
        System.gc();
        long minNs = (long) (minTime * 1e9);
        long[] samples = new long[Math.max(minIters, 1024)];
        int n = 0;
        long total = 0;
        long[] cpu0 = cpuTicks();
        long t0 = System.nanoTime();
        while ((n < minIters || total < minNs) && n < MAX_ITERS) {
            long s = System.nanoTime();
            k.runOnce();
            long e = System.nanoTime();
            if (n == samples.length) {
                samples = Arrays.copyOf(samples, Math.min(MAX_ITERS, samples.length * 2));
            }
            samples[n++] = e - s;
            total += e - s;
        }
        long wall = System.nanoTime() - t0;
        long[] cpu1 = cpuTicks();
        double otherCpu = -1;
        if (cpu0 != null && cpu1 != null) {
            double ticksPerSec = 100.0; // USER_HZ on Linux
            double otherTicks = (cpu1[0] - cpu0[0]) - (cpu1[1] - cpu0[1]);
            otherCpu = Math.max(0, otherTicks / ticksPerSec / (wall / 1e9));
        }
        long[] s = Arrays.copyOf(samples, n);
        Arrays.sort(s);
        double median = (n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0) / 1e6;
        double mean = total / 1e6 / n;
        return String.format(Locale.ROOT,
                "median_ms=%.6f gflops=%.3f min_ms=%.6f p10_ms=%.6f p90_ms=%.6f p99_ms=%.6f mean_ms=%.6f iters=%d "
                        + "timed_s=%.3f first_ms=%.3f warmup_iters=%d prepare_ms=%.1f other_cpu=%.2f",
                median, c.flops() / (median * 1e6), s[0] / 1e6, s[(int) (n * 0.1)] / 1e6, s[Math.min(n - 1, (int) (n * 0.9))] / 1e6,
                s[percentileIndex(n, 0.99)] / 1e6, mean, n, total / 1e9, firstMs, warmIters, prepareMs, otherCpu);
    }

    /** The index of the {@code q} quantile in {@code n} sorted samples (nearest rank: the maximum for fewer than 100). */
    static int percentileIndex(int n, double q) {
        return Math.min(n - 1, Math.max(0, (int) Math.ceil(q * n) - 1));
    }

    private static void writeOutput(Path file, float[] out, Case c) throws IOException {
        if (out.length != c.outputSize()) {
            throw new IllegalStateException("output has " + out.length + " elements, expected " + c.outputSize());
        }
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(out.length * Float.BYTES).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(out);
        Files.write(file, b.array());
    }

    /** {busy ticks of the whole machine, ticks of this process}, or null if /proc is not there. */
    private static long[] cpuTicks() {
        try {
            String[] all = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...
            long busy = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                busy += Long.parseLong(all[i]);
            }
            String self = Files.readString(Path.of("/proc/self/stat"));
            String[] f = self.substring(self.lastIndexOf(')') + 2).trim().split("\\s+");
            // after "pid (comm) ": state is field 3, utime 14, stime 15 -> indices 11 and 12 here
            long mine = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return new long[] {busy, mine};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
