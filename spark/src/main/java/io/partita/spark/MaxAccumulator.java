package io.partita.spark;

import org.apache.spark.util.AccumulatorV2;

/** The largest value added on any task (Spark has sum accumulators only): the worst batch latency. */
public final class MaxAccumulator extends AccumulatorV2<Long, Long> {
    private static final long serialVersionUID = 1L;
    private long max = Long.MIN_VALUE;

    @Override
    public boolean isZero() {
        return max == Long.MIN_VALUE;
    }

    @Override
    public AccumulatorV2<Long, Long> copy() {
        MaxAccumulator c = new MaxAccumulator();
        c.max = max;
        return c;
    }

    @Override
    public void reset() {
        max = Long.MIN_VALUE;
    }

    @Override
    public void add(Long v) {
        add(v.longValue());
    }

    /** Without boxing, for the per-batch call. */
    public void add(long v) {
        if (v > max) {
            max = v;
        }
    }

    @Override
    public void merge(AccumulatorV2<Long, Long> other) {
        add(((MaxAccumulator) other).max);
    }

    /** The largest value added, 0 when none was. */
    @Override
    public Long value() {
        return isZero() ? 0L : max;
    }
}
