package io.partita.cli.run;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.IntStream;

import io.partita.graph.CompiledGraph;
import io.partita.graph.Partition;
import io.partita.graph.StepObserver;

/**
 * {@code partita run --profile}: each partition's time in the first iteration and in every timed
 * one, reported as the first-iteration time and the steady-state median per partition, largest
 * median first. The first iteration is where a JVM runtime waits for its JIT, so it is shown on
 * its own: which partitions a cold process spends its first seconds in.
 */
final class PartitionTimes implements StepObserver {
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
            if (timed.length == 0) {
                m[s] = first[s];
                continue;
            }
            long[] col = new long[timed.length];
            for (int i = 0; i < col.length; i++) {
                col[i] = timed[i][s];
            }
            m[s] = Report.median(Report.sortedCopy(col));
        }
        return m;
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
        out.printf("  %4s  %-10s %-22s %10s %10s %6s  %-22s %s%n", "id", "backend", "pattern", "first", "median",
                "share", "output", "ops");
        Integer[] order = IntStream.range(0, med.length).boxed().sorted(Comparator.comparingLong((Integer s) -> med[s])
                .reversed().thenComparing(s -> s)).toArray(Integer[]::new);
        for (int s : order) {
            Partition p = cg.steps().get(s).partition();
            String median = timed.length == 0 ? "-" : Report.ms(med[s]);
            String share = timed.length == 0 || sum == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * med[s] / sum);
            java.util.List<io.partita.graph.LogicalTensor> outs = cg.steps().get(s).compiled().outputs();
            String output = outs.isEmpty() ? "-" : Report.dims(outs.get(0));
            out.printf("  %4d  %-10s %-22s %10s %10s %6s  %-22s %s%n", p.id(), p.backendId(), p.pattern(),
                    Report.ms(first[s]), median, share, output, Report.ops(p.ops()));
        }
    }
}
