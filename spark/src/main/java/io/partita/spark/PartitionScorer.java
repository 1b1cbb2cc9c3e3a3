package io.partita.spark;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * Scores one partition: rows are read lazily, grouped into batches of the model's rows per
 * execution, run through this JVM's compiled model, and given back in their order with the fetched
 * outputs appended. A row with a null feed column is not run: its outputs are null.
 */
final class PartitionScorer implements MapPartitionsFunction<Row, Row> {
    private static final long serialVersionUID = 1L;
    /** A batch stops collecting after this many rows per slot even when nulls keep it from filling. */
    private static final int MAX_ROWS_PER_SLOT = 4;

    private final Broadcast<ModelBytes> model;
    private final String digest;
    private final ModelSettings settings;
    private final FeedColumn[] feeds;
    private final String[] feedInputs;
    private final int[] feedIndexes;
    private final String[] fetchOutputs;
    private final int[][] fetchRowDims;
    private final boolean[] fetchAsVector;
    private final PartitaMetrics metrics;

    PartitionScorer(Broadcast<ModelBytes> model, String digest, ModelSettings settings, FeedColumn[] feeds,
            String[] feedInputs, int[] feedIndexes, String[] fetchOutputs, int[][] fetchRowDims, boolean[] fetchAsVector, PartitaMetrics metrics) {
        this.model = model;
        this.digest = digest;
        this.settings = settings;
        this.feeds = feeds;
        this.feedInputs = feedInputs;
        this.feedIndexes = feedIndexes;
        this.fetchOutputs = fetchOutputs;
        this.fetchRowDims = fetchRowDims;
        this.fetchAsVector = fetchAsVector;
        this.metrics = metrics;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
        if (!rows.hasNext()) {
            return rows; // an empty partition compiles nothing
        }
        ExecutorModels.Acquired a = ExecutorModels.acquire(digest, settings, model::value);
        if (a.compiledHere()) {
            metrics.compilations().add(1);
            metrics.persistentCacheHits().add(a.model().partitionsFromStore());
        }
        LoadedModel m = a.model();
        LoadedModel.Context context = m.acquire();
        TaskContext task = TaskContext.get();
        Batches batches = new Batches(rows, m, context);
        if (task != null) {
            // also when the task fails or is killed mid-partition: the context goes back to the pool
            task.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) t -> batches.release());
        }
        return batches;
    }

    private final class Batches implements Iterator<Row> {
        private final Iterator<Row> input;
        private final LoadedModel model;
        private final int capacity;
        private final ArrayDeque<Row> ready = new ArrayDeque<>();
        private final List<Row> pending = new ArrayList<>();
        private final List<Integer> slots = new ArrayList<>();
        private LoadedModel.Context context;

        Batches(Iterator<Row> input, LoadedModel model, LoadedModel.Context context) {
            this.input = input;
            this.model = model;
            this.context = context;
            this.capacity = model.rowsPerExecution();
        }

        synchronized void release() {
            if (context != null) {
                model.release(context);
                context = null;
            }
        }

        @Override
        public boolean hasNext() {
            if (ready.isEmpty() && input.hasNext()) {
                nextBatch();
            }
            if (ready.isEmpty()) {
                release();
                return false;
            }
            return true;
        }

        @Override
        public Row next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return ready.poll();
        }

        private void nextBatch() {
            pending.clear();
            slots.clear();
            int used = 0;
            float[][] staging = new float[feeds.length][];
            for (int f = 0; f < feeds.length; f++) {
                staging[f] = context.staging(feedInputs[f]);
            }
            while (used < capacity && pending.size() < capacity * MAX_ROWS_PER_SLOT && input.hasNext()) {
                Row row = input.next();
                pending.add(row);
                if (anyFeedNull(row)) {
                    slots.add(-1);
                    continue;
                }
                for (int f = 0; f < feeds.length; f++) {
                    int elems = staging[f].length / capacity;
                    feeds[f].write(row, feedIndexes[f], staging[f], used * elems);
                }
                slots.add(used++);
            }
            Map<String, float[][]> out = Map.of();
            if (used > 0) {
                long t0 = System.nanoTime();
                out = context.run(used, List.of(fetchOutputs));
                long nanos = System.nanoTime() - t0;
                metrics.batches().add(1);
                metrics.batchNanos().add(nanos);
                metrics.maxBatchNanos().add(nanos);
                metrics.rows().add(used);
                if (model.signature().batch() != ModelSignature.DYNAMIC) {
                    metrics.paddedRows().add(capacity - used);
                }
            }
            metrics.nullRows().add(pending.size() - used);
            for (int i = 0; i < pending.size(); i++) {
                Row row = pending.get(i);
                int slot = slots.get(i);
                Object[] values = new Object[row.length() + fetchOutputs.length];
                for (int c = 0; c < row.length(); c++) {
                    values[c] = row.get(c);
                }
                for (int o = 0; o < fetchOutputs.length; o++) {
                    float[] value = slot < 0 ? null : out.get(fetchOutputs[o])[slot];
                    values[row.length() + o] = value == null ? null
                            : fetchAsVector[o] ? OutputValues.vector(value) : OutputValues.of(value, fetchRowDims[o]);
                }
                ready.add(RowFactory.create(values));
            }
        }

        private boolean anyFeedNull(Row row) {
            for (int index : feedIndexes) {
                if (row.isNullAt(index)) {
                    return true;
                }
            }
            return false;
        }
    }
}
