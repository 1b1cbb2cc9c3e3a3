package io.partita.benchmarks.anchors;

/** One inference of a case by a contender (prepared, run once, closed): its output and description. */
record OneRun(float[] output, String description) {

    static OneRun of(Contender contender, Case c) throws Exception {
        try (contender) {
            contender.prepare(c);
            contender.runOnce();
            return new OneRun(contender.output(), contender.describe());
        }
    }
}
