package io.partita.cli.run;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.partita.graph.CompiledGraph;
import io.partita.graph.Partition;
import io.partita.graph.StepObserver;

/**
 * {@code partita run --profile}: each partition's time in the first iteration and in every timed
 * one, reported as the first-iteration time and the steady-state median per partition, largest
 * median first. The first iteration is where a JVM runtime waits for its JIT, so it is shown on
 * its own: which partitions a cold process spends its first seconds in.
 *
 * <p>The tail is attributed too: each partition's p99, and for the iterations slower than
 * {@value #SLOW} times the median iteration, how their time above the per-partition medians splits
 * over the partitions (a tail spread evenly points at the machine or the JVM, one concentrated in a
 * partition at that partition's kernel or its thread split).
 */
final class PartitionTimes implements StepObserver {
    /** An iteration is slow above this multiple of the median iteration. */
    static final double SLOW = 1.5;
    /** Partitions named in the tail line. */
    private static final int TAIL_NAMED = 5;

    private final long[] first;
    /** [iteration][step] of the timed iterations. */
    private final long[][] timed;
    /** -1 for the first iteration, then the timed iteration being recorded. */
    private int iteration = -1;
    private boolean repartitioned;

    PartitionTimes(int steps, int iterations) {
        first = new long[steps];
        timed = new long[iterations][steps];
    }

    /** The next calls belong to the next timed iteration. */
    void nextIteration() {
        iteration++;
    }

    @Override
    public void stepDone(int step, long nanos) {
        if (step >= first.length) {
            repartitioned = true; // a backend went away and the graph was compiled again
        } else if (iteration < 0) {
            first[step] += nanos;
        } else {
            timed[iteration][step] += nanos;
        }
    }

    /** Steady-state median of each step (its first-iteration time when nothing was timed). */
    long[] medians() {
        long[] m = new long[first.length];
        for (int s = 0; s < m.length; s++) {
            m[s] = timed.length == 0 ? first[s] : Report.median(sortedColumn(s));
        }
        return m;
    }

    /** Each step's p99 over the timed iterations (0 when nothing was timed). */
    long[] p99s() {
        long[] p = new long[first.length];
        for (int s = 0; s < p.length && timed.length > 0; s++) {
            p[s] = Report.percentile(sortedColumn(s), 99);
        }
        return p;
    }

    /** Step s's times over the timed iterations, sorted. */
    private long[] sortedColumn(int s) {
        long[] col = new long[timed.length];
        for (int i = 0; i < col.length; i++) {
            col[i] = timed[i][s];
        }
        return Report.sortedCopy(col);
    }

    /** The timed iterations slower than {@link #SLOW} times the median iteration. */
    int[] slowIterations() {
        long[] totals = new long[timed.length];
        for (int i = 0; i < totals.length; i++) {
            totals[i] = Arrays.stream(timed[i]).sum();
        }
        long median = Report.median(Report.sortedCopy(totals));
        return IntStream.range(0, totals.length).filter(i -> totals[i] > SLOW * median).toArray();
    }

    /** Per step: the summed time above its median over the slow iterations. */
    long[] tailExcess() {
        long[] med = medians();
        long[] excess = new long[first.length];
        for (int i : slowIterations()) {
            for (int s = 0; s < excess.length; s++) {
                excess[s] += Math.max(0, timed[i][s] - med[s]);
            }
        }
        return excess;
    }

    long[] firstIteration() {
        return first.clone();
    }

    void print(PrintStream out, CompiledGraph cg) {
        if (repartitioned || cg.steps().size() != first.length) {
            out.println("profile: none (the graph was partitioned again during the run: a backend went away)");
            return;
        }
        long[] med = medians();
        long sum = Arrays.stream(med).sum();
        long firstSum = Arrays.stream(first).sum();
        out.printf("profile: %d partitions, first iteration %s in partitions, steady-state medians summing to %s%n",
                med.length, Report.ms(firstSum), timed.length == 0 ? "(no timed iterations)" : Report.ms(sum));
        long[] p99 = p99s();
        out.printf("  %4s  %-10s %-22s %10s %10s %6s %10s  %-22s %s%n", "id", "backend", "pattern", "first", "median",
                "share", "p99", "output", "ops");
        Integer[] order = IntStream.range(0, med.length).boxed().sorted(Comparator.comparingLong((Integer s) -> med[s])
                .reversed().thenComparing(s -> s)).toArray(Integer[]::new);
        for (int s : order) {
            Partition p = cg.steps().get(s).partition();
            String median = timed.length == 0 ? "-" : Report.ms(med[s]);
            String share = timed.length == 0 || sum == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * med[s] / sum);
            java.util.List<io.partita.graph.LogicalTensor> outs = cg.steps().get(s).compiled().outputs();
            String output = outs.isEmpty() ? "-" : Report.dims(outs.get(0));
            out.printf("  %4d  %-10s %-22s %10s %10s %6s %10s  %-22s %s%n", p.id(), p.backendId(), p.pattern(),
                    Report.ms(first[s]), median, share, timed.length == 0 ? "-" : Report.ms(p99[s]), output,
                    Report.ops(p.ops()));
        }
        if (timed.length > 0) {
            printTail(out, cg);
        }
    }

    private void printTail(PrintStream out, CompiledGraph cg) {
        int slow = slowIterations().length;
        if (slow == 0) {
            out.printf("tail: no iteration slower than %.1fx the median%n", SLOW);
            return;
        }
        long[] excess = tailExcess();
        long total = Arrays.stream(excess).sum();
        String named = IntStream.range(0, excess.length).boxed()
                .sorted(Comparator.comparingLong((Integer s) -> excess[s]).reversed().thenComparing(s -> s))
                .limit(TAIL_NAMED).filter(s -> excess[s] > 0)
                .map(s -> String.format(Locale.ROOT, "%d %.0f%%", cg.steps().get(s).partition().id(),
                        100.0 * excess[s] / total))
                .collect(Collectors.joining(", "));
        out.printf("tail: %d of %d iterations slower than %.1fx the median, %s above the partition medians; "
                + "largest shares by partition id: %s%n", slow, timed.length, SLOW, Report.ms(total),
                named.isEmpty() ? "-" : named);
    }
}
