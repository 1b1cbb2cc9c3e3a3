package io.partita.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.graph.GraphRuntime;

/**
 * A Spark ML {@link Transformer} that scores a DataFrame with a Partita graph: an ONNX model or a
 * oneDNN graph JSON file at any Hadoop-readable location. Columns feed the model's inputs
 * ({@link #feedDict}: model input → column) and outputs become new columns ({@link #fetchDict}:
 * output column → model output), as in SynapseML's ONNX transformer.
 *
 * <p>The driver reads the model once through Hadoop's {@code FileSystem} and broadcasts the bytes;
 * each executor JVM compiles it once (tasks arriving meanwhile wait for that compile) and its tasks
 * share the compiled partitions and the packed constants (see {@link ExecutorModels}). Rows are
 * grouped into batches of the model's batch dim: a static one is the batch size (the last batch is
 * padded with zero rows, dropped from the result), a dynamic one (graph JSON {@code DYNAMIC_DIM}) runs
 * batches of {@link #miniBatchSize} rows and a smaller last one, and a symbolic ONNX batch dim
 * ({@code N}) is given the mini-batch size. A row with a null feed column gets null outputs.
 */
public final class PartitaModel extends Transformer implements DefaultParamsWritable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PartitaModel.class);
    /** Byte arrays, and so broadcast model files, end at 2 GiB. */
    private static final long MAX_MODEL_BYTES = Integer.MAX_VALUE - 8;

    private final String uid;

    // params: created in the constructor, once uid is set (a param's parent is the uid)
    private final Param<String> modelLocation;
    private final StringMapParam feedDict;
    private final StringMapParam fetchDict;
    private final IntParam miniBatchSize;
    private final IntParam threadsPerTask;
    private final Param<String> engine;
    private final Param<String> backends;
    private final Param<String> persistentCacheDir;
    private final Param<String> vectorOutputs;
    private final LongParam persistentCacheMegabytes;
    private final LongParam constantSeed;

    // driver-side state, rebuilt when missing (after deserialization or a copy)
    private transient ModelBytes bytes;
    private transient ModelSignature signature;
    private transient String signatureKey;
    private transient Broadcast<ModelBytes> broadcast;
    private transient PartitaMetrics metrics;
    private static volatile GraphRuntime driverRuntime;

    public PartitaModel() {
        this(Identifiable$.MODULE$.randomUID("PartitaModel"));
    }

    public PartitaModel(String uid) {
        this.uid = uid;
        this.modelLocation = new Param<>(this, "modelLocation",
            "model file: ONNX (.onnx) or oneDNN graph JSON (.json), any Hadoop path (hdfs://, s3a://, file:/, a local path)");
        this.feedDict = new StringMapParam(this, "feedDict",
            "model input name -> input column (graph JSON: the input tensor id in decimal)");
        this.fetchDict = new StringMapParam(this, "fetchDict",
            "output column -> model output name (graph JSON: the output tensor id in decimal)");
        this.miniBatchSize = new IntParam(this, "miniBatchSize",
            "rows per execution when the model's batch dim is open (dynamic or symbolic); a static batch dim wins");
        this.threadsPerTask = new IntParam(this, "threadsPerTask",
            "threads of each engine pool an executor's tasks run on (pair with spark.task.cpus)");
        this.engine = new Param<>(this, "engine", "engine: cpu, gpu or gpu:N");
        this.backends = new Param<>(this, "backends",
            "comma-separated backend ids to use (e.g. dnnl,compiler); empty: every backend on the class path");
        this.persistentCacheDir = new Param<>(this, "persistentCacheDir",
            "persistent kernel cache directory on each executor (e.g. a shared mount), so new executors start warm;"
                    + " empty: PARTITA_PERSISTENT_CACHE_DIR of the executor's environment, if any");
        this.vectorOutputs = new Param<>(this, "vectorOutputs",
            "comma-separated output columns written as Spark ML vectors (DenseVector) instead of array<float>;"
                    + " each needs an output with one dim per row");
        this.persistentCacheMegabytes = new LongParam(this, "persistentCacheMegabytes",
            "capacity of the persistent kernel cache set by persistentCacheDir, in MB");
        this.constantSeed = new LongParam(this, "constantSeed",
            "seed of the synthetic constant values of a graph JSON model (graph JSON carries none; as partita run --seed)");
        setDefault(feedDict, Map.of());
        setDefault(fetchDict, Map.of());
        setDefault(miniBatchSize, 64);
        setDefault(threadsPerTask, 1);
        setDefault(engine, "cpu");
        setDefault(backends, "");
        setDefault(persistentCacheDir, "");
        setDefault(vectorOutputs, "");
        setDefault(persistentCacheMegabytes, 256L);
        setDefault(constantSeed, 0L);
    }

    @Override
    public String uid() {
        return uid;
    }

    // ---- params (Spark finds them by these public no-argument methods) ----

    public Param<String> modelLocation() {
        return modelLocation;
    }

    public StringMapParam feedDict() {
        return feedDict;
    }

    public StringMapParam fetchDict() {
        return fetchDict;
    }

    public IntParam miniBatchSize() {
        return miniBatchSize;
    }

    public IntParam threadsPerTask() {
        return threadsPerTask;
    }

    public Param<String> engine() {
        return engine;
    }

    public Param<String> backends() {
        return backends;
    }

    public Param<String> persistentCacheDir() {
        return persistentCacheDir;
    }

    public LongParam persistentCacheMegabytes() {
        return persistentCacheMegabytes;
    }

    public LongParam constantSeed() {
        return constantSeed;
    }

    public PartitaModel setModelLocation(String value) {
        set(modelLocation, value);
        return this;
    }

    public PartitaModel setFeedDict(Map<String, String> value) {
        set(feedDict, new LinkedHashMap<>(value));
        return this;
    }

    /** One input fed by one column. */
    public PartitaModel setFeedDict(String input, String column) {
        return setFeedDict(Map.of(input, column));
    }

    public PartitaModel setFetchDict(Map<String, String> value) {
        set(fetchDict, new LinkedHashMap<>(value));
        return this;
    }

    /** One output written to one column. */
    public PartitaModel setFetchDict(String column, String output) {
        return setFetchDict(Map.of(column, output));
    }

    public PartitaModel setMiniBatchSize(int value) {
        set(miniBatchSize, value);
        return this;
    }

    public PartitaModel setThreadsPerTask(int value) {
        set(threadsPerTask, value);
        return this;
    }

    public PartitaModel setEngine(String value) {
        set(engine, value);
        return this;
    }

    public PartitaModel setBackends(String value) {
        set(backends, value);
        return this;
    }

    /** Output columns (of {@link #fetchDict}) to write as ML vectors rather than float arrays. */
    public PartitaModel setVectorOutputs(String... columns) {
        set(vectorOutputs, String.join(",", columns));
        return this;
    }

    public String getVectorOutputs() {
        return getOrDefault(vectorOutputs);
    }

    public Param<String> vectorOutputs() {
        return vectorOutputs;
    }

    public PartitaModel setPersistentCacheDir(String value) {
        set(persistentCacheDir, value);
        return this;
    }

    public PartitaModel setPersistentCacheMegabytes(long value) {
        set(persistentCacheMegabytes, value);
        return this;
    }

    public PartitaModel setConstantSeed(long value) {
        set(constantSeed, value);
        return this;
    }

    public String getModelLocation() {
        return isDefined(modelLocation) ? getOrDefault(modelLocation) : null;
    }

    public Map<String, String> getFeedDict() {
        return getOrDefault(feedDict);
    }

    public Map<String, String> getFetchDict() {
        return getOrDefault(fetchDict);
    }

    public int getMiniBatchSize() {
        return (Integer) getOrDefault(miniBatchSize);
    }

    public int getThreadsPerTask() {
        return (Integer) getOrDefault(threadsPerTask);
    }

    public String getEngine() {
        return getOrDefault(engine);
    }

    public String getBackends() {
        return getOrDefault(backends);
    }

    // ---- Transformer ----

    /**
     * The executor statistics of this transformer's scoring, registered with the active
     * SparkContext on first use; their values are final once an action on the transformed
     * DataFrame has finished.
     */
    public synchronized PartitaMetrics metrics() {
        if (metrics == null) {
            metrics = PartitaMetrics.register(SparkSession.active().sparkContext(), uid);
        }
        return metrics;
    }

    /** The model's inputs and outputs as the configured location and settings give them (reads the model). */
    public ModelSignature signature() {
        return loadSignature();
    }

    @Override
    public StructType transformSchema(StructType schema) {
        return new Plan(schema).outputSchema;
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        Plan plan = new Plan(dataset.schema());
        PartitaMetrics m = metrics();
        Broadcast<ModelBytes> b = broadcastModel(dataset.sparkSession());
        PartitionScorer scorer = new PartitionScorer(b, bytes.digest(), settings(), plan.feeds, plan.feedInputs,
                plan.feedIndexes, plan.fetchOutputs, plan.fetchRowDims, plan.fetchAsVector, m);
        return dataset.toDF().mapPartitions(scorer, Encoders.row(plan.outputSchema));
    }

    @Override
    public PartitaModel copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /** For {@code PartitaModel.read().load(path)}: the params saved by {@code write().save(path)}. */
    public static MLReader<PartitaModel> read() {
        return new DefaultParamsReader<>();
    }

    public static PartitaModel load(String path) {
        return read().load(path);
    }

    // ---- driver side ----

    ModelSettings settings() {
        Set<String> ids = new TreeSet<>();
        for (String id : getBackends().split(",")) {
            if (!id.isBlank()) {
                ids.add(id.trim());
            }
        }
        int batch = getMiniBatchSize();
        if (batch < 1) {
            throw new IllegalArgumentException("miniBatchSize " + batch + " is not a row count; expected 1 or more");
        }
        int threads = getThreadsPerTask();
        if (threads < 1 || threads > GraphRuntime.MAX_THREADS) {
            throw new IllegalArgumentException("threadsPerTask " + threads + " is out of range; expected 1 to " + GraphRuntime.MAX_THREADS);
        }
        ModelSettings.parseEngine(getEngine());
        return new ModelSettings(getEngine(), batch, (Long) getOrDefault(constantSeed),
                new RuntimeSettings(ids, threads, getOrDefault(persistentCacheDir), (Long) getOrDefault(persistentCacheMegabytes)));
    }

    private synchronized ModelBytes modelBytes() {
        String location = getModelLocation();
        if (location == null || location.isBlank()) {
            throw new IllegalArgumentException("modelLocation is not set: give the path of an ONNX model or a graph JSON file");
        }
        if (bytes == null || !bytes.source().equals(location)) {
            bytes = ModelBytes.of(location, readModel(location));
            broadcast = null;
            signature = null;
        }
        return bytes;
    }

    /**
     * The model file through Hadoop's FileSystem, with the session's Hadoop configuration. The
     * file system is created for this read, not taken from Hadoop's cache: the cache keys file
     * systems by the current Hadoop user, whose lookup ({@code UserGroupInformation}, through
     * {@code Subject.getSubject}) throws on JDK 24 and later with Hadoop 3.4; file systems that
     * need no user (local, and most object stores) are read this way.
     */
    private static byte[] readModel(String location) {
        Configuration conf = new Configuration(SparkSession.getActiveSession().isDefined()
                ? SparkSession.getActiveSession().get().sparkContext().hadoopConfiguration() : new Configuration());
        org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(location);
        String scheme = path.toUri().getScheme() != null ? path.toUri().getScheme() : FileSystem.getDefaultUri(conf).getScheme();
        conf.setBoolean("fs." + scheme + ".impl.disable.cache", true);
        try (FileSystem fs = path.getFileSystem(conf)) {
            if (!fs.exists(path)) {
                throw new IllegalArgumentException("model file " + location + " does not exist (modelLocation; resolved as "
                        + fs.makeQualified(path) + ")");
            }
            FileStatus st = fs.getFileStatus(path);
            if (st.isDirectory()) {
                throw new IllegalArgumentException("model file " + location + " is a directory; expected an ONNX or graph JSON file");
            }
            if (st.getLen() > MAX_MODEL_BYTES) {
                throw new IllegalArgumentException("model file " + location + " has " + st.getLen()
                        + " bytes; models end at 2 GiB (one byte array, as protobuf messages)");
            }
            byte[] data = new byte[(int) st.getLen()];
            try (FSDataInputStream in = fs.open(path)) {
                in.readFully(0, data);
            }
            LOG.info("read model {} ({} bytes) on the driver", location, data.length);
            return data;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read model file " + location + ": " + e.getMessage(), e);
        } catch (UnsupportedOperationException e) {
            throw new IllegalStateException("cannot read model file " + location + ": the " + scheme + " file system needs the"
                    + " Hadoop user, which Hadoop 3.4 cannot look up on JDK 24 or later (" + e.getMessage() + "); copy the model"
                    + " to a local path or a store whose file system needs no user", e);
        }
    }

    private synchronized ModelSignature loadSignature() {
        ModelBytes b = modelBytes();
        ModelSettings s = settings();
        // the signature depends on the bytes, the engine kind and (for a symbolic ONNX batch) the batch size
        String key = b.digest() + " " + s.engine() + " " + s.miniBatchSize();
        if (signature == null || !key.equals(signatureKey)) {
            signature = LoadedModel.parse(driverRuntime(), b, s).signature();
            signatureKey = key;
        }
        return signature;
    }

    /** The driver only reads graphs (op rules and shape inference): the reference runtime suffices. */
    private static GraphRuntime driverRuntime() {
        GraphRuntime rt = driverRuntime;
        if (rt == null) {
            synchronized (PartitaModel.class) {
                if (driverRuntime == null) {
                    driverRuntime = GraphRuntime.referenceOnly();
                }
                rt = driverRuntime;
            }
        }
        return rt;
    }

    private synchronized Broadcast<ModelBytes> broadcastModel(SparkSession session) {
        ModelBytes b = modelBytes();
        if (broadcast == null) {
            broadcast = org.apache.spark.api.java.JavaSparkContext.fromSparkContext(session.sparkContext()).broadcast(b);
        }
        return broadcast;
    }

    /** The checked mapping of columns to inputs and outputs to columns for one input schema. */
    private final class Plan {
        final FeedColumn[] feeds;
        final String[] feedInputs;
        final int[] feedIndexes;
        final String[] fetchOutputs;
        final int[][] fetchRowDims;
        final boolean[] fetchAsVector;
        final StructType outputSchema;

        Plan(StructType schema) {
            ModelSignature sig = loadSignature();
            Map<String, String> feed = getFeedDict();
            Map<String, String> fetch = getFetchDict();
            for (String input : feed.keySet()) {
                if (!sig.inputs().containsKey(input)) {
                    throw new IllegalArgumentException("feedDict names input '" + input + "', which model " + getModelLocation()
                            + " does not have; its inputs are " + describe(sig.inputs()));
                }
            }
            List<String> unfed = new ArrayList<>(sig.inputs().keySet());
            unfed.removeAll(feed.keySet());
            if (!unfed.isEmpty()) {
                throw new IllegalArgumentException("feedDict gives no column for model input(s) " + unfed + "; the model's inputs are "
                        + describe(sig.inputs()));
            }
            List<String> names = Arrays.asList(schema.fieldNames());
            int n = feed.size();
            feeds = new FeedColumn[n];
            feedInputs = new String[n];
            feedIndexes = new int[n];
            int i = 0;
            for (Map.Entry<String, String> e : feed.entrySet()) {
                String column = e.getValue();
                if (!names.contains(column)) {
                    throw new IllegalArgumentException("feedDict maps input '" + e.getKey() + "' to column '" + column
                            + "', which the DataFrame does not have; its columns are " + names);
                }
                StructField field = schema.apply(column);
                feeds[i] = FeedColumn.of(column, field.dataType(), sig.inputs().get(e.getKey()));
                feedInputs[i] = e.getKey();
                feedIndexes[i] = schema.fieldIndex(column);
                i++;
            }
            if (fetch.isEmpty()) {
                throw new IllegalArgumentException("fetchDict is empty: map output columns to model outputs; the model's outputs are "
                        + describe(sig.outputs()));
            }
            fetchOutputs = new String[fetch.size()];
            fetchRowDims = new int[fetch.size()][];
            fetchAsVector = new boolean[fetch.size()];
            java.util.Set<String> vectors = new java.util.LinkedHashSet<>();
            for (String c : getVectorOutputs().split(",")) {
                if (!c.isBlank()) {
                    vectors.add(c.strip());
                }
            }
            for (String c : vectors) {
                if (!fetch.containsKey(c)) {
                    throw new IllegalArgumentException("vectorOutputs names column '" + c + "', which fetchDict does not write;"
                            + " its output columns are " + fetch.keySet());
                }
            }
            StructType out = schema;
            int o = 0;
            for (Map.Entry<String, String> e : fetch.entrySet()) {
                ModelSignature.Port port = sig.outputs().get(e.getValue());
                if (port == null) {
                    throw new IllegalArgumentException("fetchDict maps column '" + e.getKey() + "' to output '" + e.getValue()
                            + "', which model " + getModelLocation() + " does not have; its outputs are " + describe(sig.outputs()));
                }
                if (names.contains(e.getKey())) {
                    throw new IllegalArgumentException("fetchDict's output column '" + e.getKey() + "' already exists in the DataFrame");
                }
                long batch = port.dims()[0];
                long want = sig.batch() == ModelSignature.DYNAMIC ? io.partita.graph.LogicalTensor.DYNAMIC_DIM : sig.batch();
                if (batch != want || !port.rowIsStatic()) {
                    throw new IllegalArgumentException("model output '" + e.getValue() + "' has dims "
                            + io.partita.graph.LogicalTensor.dimsToString(port.dims()) + ": an output must have the inputs' batch dim first ("
                            + (want == io.partita.graph.LogicalTensor.DYNAMIC_DIM ? "dynamic" : want) + ") and static dims after it");
                }
                fetchOutputs[o] = e.getValue();
                fetchRowDims[o] = Arrays.stream(port.rowDims()).mapToInt(Math::toIntExact).toArray();
                fetchAsVector[o] = vectors.contains(e.getKey());
                if (fetchAsVector[o] && fetchRowDims[o].length != 1) {
                    throw new IllegalArgumentException("vectorOutputs asks for column '" + e.getKey() + "' as an ML vector, but"
                            + " model output '" + e.getValue() + "' has dims " + io.partita.graph.LogicalTensor.dimsToString(port.dims())
                            + ": a vector column needs one dim per row (the batch dim, then one more)");
                }
                out = out.add(e.getKey(), fetchAsVector[o] ? org.apache.spark.ml.linalg.SQLDataTypes.VectorType()
                        : OutputValues.type(fetchRowDims[o].length), true);
                o++;
            }
            outputSchema = out;
        }
    }

    private static String describe(Map<String, ModelSignature.Port> ports) {
        StringBuilder b = new StringBuilder();
        ports.values().forEach(p -> b.append(b.isEmpty() ? "" : ", ").append('\'').append(p.name()).append("' ")
                .append(p.dataType()).append(' ').append(io.partita.graph.LogicalTensor.dimsToString(p.dims())));
        return "[" + b + "]";
    }
}
