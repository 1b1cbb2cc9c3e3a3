package io.partita.benchmarks.spark;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

/**
 * The SynapseML way with ONNX Runtime Java: one session per executor JVM and model (created by the
 * first task, shared by the others: ORT sessions allow concurrent {@code run} calls), rows batched
 * per partition into one [n, width] tensor per run, the output appended as {@code array<float>}.
 * Intra-op threads 1 per task, as Partita's {@code threadsPerTask = 1}: Spark gives each task a core.
 */
final class OrtPartitionScorer implements MapPartitionsFunction<Row, Row> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, OrtSession> SESSIONS = new ConcurrentHashMap<>();

    private final Broadcast<byte[]> model;
    private final String key;
    private final String input;
    private final int featureColumn;
    private final int width;
    private final int batch;

    OrtPartitionScorer(Broadcast<byte[]> model, String key, String input, int featureColumn, int width, int batch) {
        this.model = model;
        this.key = key;
        this.input = input;
        this.featureColumn = featureColumn;
        this.width = width;
        this.batch = batch;
    }

    private OrtSession session() {
        return session(key, model::value);
    }

    /** The session of this JVM for a model, created on first use. */
    static OrtSession session(String key, java.util.function.Supplier<byte[]> model) {
        return SESSIONS.computeIfAbsent(key, k -> {
            try {
                OrtSession.SessionOptions o = new OrtSession.SessionOptions();
                o.setIntraOpNumThreads(1);
                o.setInterOpNumThreads(1);
                o.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
                o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
                return OrtEnvironment.getEnvironment().createSession(model.get(), o);
            } catch (OrtException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) throws OrtException {
        OrtSession s = session();
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        List<Row> out = new ArrayList<>();
        List<Row> pending = new ArrayList<>(batch);
        float[] staging = new float[batch * width];
        while (rows.hasNext()) {
            pending.clear();
            while (pending.size() < batch && rows.hasNext()) {
                Row r = rows.next();
                scala.collection.Seq<?> x = r.getSeq(featureColumn);
                int off = pending.size() * width;
                for (int i = 0; i < width; i++) {
                    staging[off + i] = ((Number) x.apply(i)).floatValue();
                }
                pending.add(r);
            }
            int n = pending.size();
            try (OnnxTensor t = OnnxTensor.createTensor(env, FloatBuffer.wrap(staging, 0, n * width), new long[] {n, width});
                    OrtSession.Result res = s.run(Map.of(input, t))) {
                float[][] y = (float[][]) res.get(0).getValue();
                for (int i = 0; i < n; i++) {
                    Row r = pending.get(i);
                    Object[] values = new Object[r.length() + 1];
                    for (int c = 0; c < r.length(); c++) {
                        values[c] = r.get(c);
                    }
                    values[r.length()] = scala.collection.immutable.ArraySeq.unsafeWrapArray(y[i]);
                    out.add(RowFactory.create(values));
                }
            }
        }
        return out.iterator();
    }
}
