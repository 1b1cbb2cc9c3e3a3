package io.partita.testkit.benchdnn;

import java.util.Map;

/**
 * One benchdnn case: the harness it came from, its line number, the raw text, and the effective
 * options (knobs accumulate across lines of a harness until {@code --reset}).
 *
 * @param options option name (without dashes) to raw value, e.g. {@code in-shapes -> 0:1x2+1:2}
 * @param caseFile the {@code --case} graph file, relative to the benchdnn graph inputs folder
 */
public record CaseLine(String harness, int lineNumber, String text, Map<String, String> options, String caseFile) {

    public CaseLine {
        options = Map.copyOf(options);
    }

    /** The value of {@code --expected-n-partitions}: benchdnn's default is 1, 0 disables the check. */
    public int expectedPartitions() {
        String v = options.get("expected-n-partitions");
        if (v == null) {
            return 1;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n < 0) {
                throw new CaseRewriteException("--expected-n-partitions=" + v + ": expected a non-negative integer");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new CaseRewriteException("--expected-n-partitions=" + v + ": expected a non-negative integer");
        }
    }

    public boolean explicitlyExpectsPartitions() {
        return options.containsKey("expected-n-partitions");
    }

    @Override
    public String toString() {
        return harness + ":" + lineNumber + " " + text;
    }
}
