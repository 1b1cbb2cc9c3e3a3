package io.partita.spark;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.spark.SparkContext;
import org.apache.spark.util.LongAccumulator;

/**
 * Executor-side statistics of a {@link PartitaModel}, as Spark accumulators registered on the
 * driver (named {@code partita.<uid>.rows} etc., so the Spark UI lists them per stage). Like every
 * accumulator updated inside a transformation, a task attempt that is retried counts again.
 *
 * @param rows rows scored (null rows excluded)
 * @param nullRows rows with a null feed column, given null outputs without running the graph
 * @param batches graph executions
 * @param paddedRows zero rows added to fill a static batch dim
 * @param batchNanos execution time summed over batches (ns)
 * @param maxBatchNanos the slowest batch (ns)
 * @param compilations models compiled by executors (one per executor JVM and model)
 * @param persistentCacheHits partitions those compilations created from the persistent kernel cache
 */
public record PartitaMetrics(LongAccumulator rows, LongAccumulator nullRows, LongAccumulator batches,
        LongAccumulator paddedRows, LongAccumulator batchNanos, MaxAccumulator maxBatchNanos,
        LongAccumulator compilations, LongAccumulator persistentCacheHits) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** New accumulators registered with {@code sc}, named after the transformer. */
    static PartitaMetrics register(SparkContext sc, String uid) {
        PartitaMetrics m = new PartitaMetrics(new LongAccumulator(), new LongAccumulator(), new LongAccumulator(),
                new LongAccumulator(), new LongAccumulator(), new MaxAccumulator(), new LongAccumulator(),
                new LongAccumulator());
        m.asMap().forEach((name, acc) -> sc.register(acc, "partita." + uid + "." + name));
        return m;
    }

    private Map<String, org.apache.spark.util.AccumulatorV2<?, ?>> asMap() {
        Map<String, org.apache.spark.util.AccumulatorV2<?, ?>> m = new LinkedHashMap<>();
        m.put("rows", rows);
        m.put("nullRows", nullRows);
        m.put("batches", batches);
        m.put("paddedRows", paddedRows);
        m.put("batchNanos", batchNanos);
        m.put("maxBatchNanos", maxBatchNanos);
        m.put("compilations", compilations);
        m.put("persistentCacheHits", persistentCacheHits);
        return m;
    }

    /** The current values by name (on the driver, after an action). */
    public Map<String, Long> values() {
        Map<String, Long> v = new LinkedHashMap<>();
        asMap().forEach((name, acc) -> v.put(name, ((Number) acc.value()).longValue()));
        return v;
    }

    @Override
    public String toString() {
        return "PartitaMetrics" + values();
    }
}
