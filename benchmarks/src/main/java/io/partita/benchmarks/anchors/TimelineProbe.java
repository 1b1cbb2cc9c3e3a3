package io.partita.benchmarks.anchors;

import java.util.Arrays;
import java.util.Locale;

/**
 * Where a contender's slow iterations fall in time (a probe, not a benchmark): {@code probe timeline
 * CONTENDER CASE THREADS ITERATIONS}, e.g. {@code probe timeline partita bert_layer 2 1200}. One
 * process, iterations back to back from the first; prints the median, the p99 and every iteration
 * slower than 1.5x the median with its time since the first one, so slow iterations can be laid
 * against GC, JIT and safepoint logs of the same run ({@code -Xlog:gc}, {@code -XX:+PrintCompilation}).
 */
public final class TimelineProbe {
    private TimelineProbe() {
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("timeline probe: " + e.getMessage(), e);
        }
    }

    private static void run(String[] args) throws Exception {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: probe timeline CONTENDER CASE THREADS ITERATIONS");
        }
        Contender.Factory f = Contenders.all().get(args[0]);
        if (f == null) {
            throw new IllegalArgumentException("no contender " + args[0] + " (" + Contenders.all().keySet() + ")");
        }
        int n = Integer.parseInt(args[3]);
        if (n < 1) {
            throw new IllegalArgumentException("ITERATIONS must be at least 1, got " + n);
        }
        try (Contender c = f.create(Integer.parseInt(args[2]))) {
            c.prepare(Case.byName(args[1]));
            long start = System.nanoTime();
            // JIT and GC logs stamp JVM uptime: this puts the iterations on the same clock
            System.out.printf(Locale.ROOT, "first iteration at JVM uptime %.3f s, monotonic clock %d ns, epoch %d us%n",
                    java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() / 1e3, start,
                    java.time.temporal.ChronoUnit.MICROS.between(java.time.Instant.EPOCH, java.time.Instant.now()));
            long[] at = new long[n];
            double[] ms = new double[n];
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                c.runOnce();
                ms[i] = (System.nanoTime() - t0) / 1e6;
                at[i] = t0 - start;
            }
            double[] sorted = ms.clone();
            Arrays.sort(sorted);
            double median = sorted[n / 2];
            System.out.printf(Locale.ROOT, "timeline %s %s: median %.2f ms, p99 %.2f ms, %d iterations in %.1f s%n",
                    args[0], args[1], median, sorted[Math.min(n - 1, (int) (n * 0.99))], n,
                    (System.nanoTime() - start) / 1e9);
            for (int i = 0; i < n; i++) {
                if (ms[i] > 1.5 * median) {
                    System.out.printf(Locale.ROOT, "slow iteration %d at %.3f s: %.2f ms%n", i, at[i] / 1e9, ms[i]);
                }
            }
        }
    }
}
