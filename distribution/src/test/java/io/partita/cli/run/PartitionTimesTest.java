package io.partita.cli.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.partita.cli.CliRun;

/**
 * {@code partita run --profile}: per-partition first-iteration time and steady-state median, the
 * largest first, shares of the summed medians; the medians are per partition, not per iteration.
 */
class PartitionTimesTest {

    @Test
    void firstIterationAndMedianPerStep() {
        PartitionTimes t = new PartitionTimes(2, 3);
        t.stepDone(0, 500);
        t.stepDone(1, 700);
        long[][] timed = {{1, 10}, {3, 30}, {2, 20}};
        for (long[] iteration : timed) {
            t.nextIteration();
            t.stepDone(0, iteration[0]);
            t.stepDone(1, iteration[1]);
        }
        assertArrayEquals(new long[] {500, 700}, t.firstIteration());
        assertArrayEquals(new long[] {2, 20}, t.medians());
    }

    @Test
    void aStepCalledTwiceInOneIterationAddsUp() {
        PartitionTimes t = new PartitionTimes(1, 1);
        t.nextIteration();
        t.stepDone(0, 4);
        t.stepDone(0, 6);
        assertArrayEquals(new long[] {10}, t.medians());
    }

    @Test
    void p99PerStepAndTheSlowIterationsExcessByStep() {
        PartitionTimes t = new PartitionTimes(2, 100);
        for (int i = 0; i < 100; i++) {
            t.nextIteration();
            // iterations 10 and 20 are slow: the first in step 0 (+80), the second in both (+30, +90)
            t.stepDone(0, 100 + (i == 10 ? 80 : i == 20 ? 30 : 0) + i % 3);
            t.stepDone(1, 10 + (i == 20 ? 90 : 0));
        }
        assertArrayEquals(new int[] {10, 20}, t.slowIterations());
        // above each step's median (101 and 10): 181 - 101 and 132 - 101 for step 0, 100 - 10 for step 1
        assertArrayEquals(new long[] {80 + 31, 90}, t.tailExcess());
        // nearest rank: the 99th of 100 samples, below each step's largest
        assertArrayEquals(new long[] {132, 10}, t.p99s());
    }

    @Test
    void noSlowIterationNoExcess() {
        PartitionTimes t = new PartitionTimes(1, 10);
        for (int i = 0; i < 10; i++) {
            t.nextIteration();
            t.stepDone(0, 100 + i);
        }
        assertEquals(0, t.slowIterations().length);
        assertArrayEquals(new long[] {0}, t.tailExcess());
    }

    private static final Pattern ROW = Pattern.compile(
            "^\\s+(\\d+)\\s+dnnl\\s+(\\S+)\\s+\\S+ (?:ms|us)\\s+([0-9.]+) (ms|us)\\s+([0-9.]+)%\\s+([0-9.]+) (ms|us)\\s+f32\\[",
            Pattern.MULTILINE);

    @Test
    void runPrintsOneRowPerPartitionLargestFirstWithSharesSummingToAll() {
        String text = CliRun.expect(0, "run", RunCheckExamplesTest.example("mlp.json").toString(), "--iterations", "20",
                "--profile");
        assertTrue(text.contains("profile: 3 partitions, first iteration "), text);
        Matcher m = ROW.matcher(text);
        List<Integer> ids = new ArrayList<>();
        List<Double> medians = new ArrayList<>();
        double shares = 0;
        while (m.find()) {
            ids.add(Integer.parseInt(m.group(1)));
            medians.add(Double.parseDouble(m.group(3)) * (m.group(4).equals("ms") ? 1000 : 1));
            shares += Double.parseDouble(m.group(5));
        }
        assertEquals(List.of(0, 1, 2), ids.stream().sorted().toList(), text);
        for (int i = 1; i < medians.size(); i++) {
            assertTrue(medians.get(i - 1) >= medians.get(i), "not largest first: " + medians + "\n" + text);
        }
        assertEquals(100, shares, 0.25, text);
        assertTrue(Pattern.compile("^tail: (no iteration slower than 1.5x the median|\\d+ of 20 iterations slower than 1.5x "
                + "the median, .* largest shares by partition id: \\d+ \\d+%.*)$", Pattern.MULTILINE).matcher(text).find(), text);
    }

    @Test
    void withoutTimedIterationsOnlyTheFirstIsShown() {
        String text = CliRun.expect(0, "run", RunCheckExamplesTest.example("mlp.json").toString(), "--iterations", "0",
                "--profile");
        assertTrue(text.contains("steady-state medians summing to (no timed iterations)"), text);
        assertTrue(!text.contains("tail:"), text);
        assertTrue(Pattern.compile("^\\s+0\\s+dnnl\\s+matmul_bias_relu\\s+\\S+ (ms|us)\\s+-\\s+-\\s+-\\s+f32\\[64,1024\\]",
                Pattern.MULTILINE).matcher(text).find(), text);
    }
}
