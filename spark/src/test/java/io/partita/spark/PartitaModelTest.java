package io.partita.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.spark.SparkException;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.partita.formats.json.GraphJson;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.RandomInputs;

/**
 * The transformer in a real {@code local[2]} SparkSession (one for the class: starting Spark takes
 * seconds), against the standalone runtime scoring the same rows one at a time.
 */
class PartitaModelTest {
    private static final Path EXAMPLES = Path.of(System.getProperty("partita.examples", "../examples"));
    private static final Path CORPUS = Path.of(System.getProperty("partita.corpus", "../testdata/corpus"));
    private static final Path MLP = EXAMPLES.resolve("mlp.json");
    private static final Path LINEAR = CORPUS.resolve("onnx-pytorch/test_Linear");
    private static final Path CONV = CORPUS.resolve("onnx-pytorch/test_Conv2d");
    /** mlp.json: input tensor 0 [64, 784], output tensor 14 [64, 10]. */
    private static final String MLP_IN = "0";

    private static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = SparkSession.builder().master("local[2]").appName("PartitaModelTest")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
                // Hadoop 3.4 cannot look up its user on JDK 25 (Subject.getSubject): file systems outside
                // Hadoop's cache need none (ML persistence, write().save, goes through them)
                .config("spark.hadoop.fs.file.impl.disable.cache", "true").getOrCreate();
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    private static String mlpOutput() throws IOException {
        JsonNode graph = new ObjectMapper().readTree(MLP.toFile()).get("graph");
        // the last op's output is the graph output
        return graph.get(graph.size() - 1).get("outputs").get(0).get("id").asText();
    }

    private static Dataset<Row> floatRows(int rows, int width, long seed) {
        Random r = new Random(seed);
        List<Row> data = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            float[] x = new float[width];
            for (int j = 0; j < width; j++) {
                x[j] = (float) r.nextGaussian();
            }
            data.add(RowFactory.create(i, scala.collection.immutable.ArraySeq.unsafeWrapArray(box(x))));
        }
        StructType schema = new StructType().add("id", DataTypes.IntegerType, false)
                .add("features", new ArrayType(DataTypes.FloatType, false), true);
        return spark.createDataFrame(data, schema);
    }

    private static Float[] box(float[] x) {
        Float[] b = new Float[x.length];
        for (int i = 0; i < x.length; i++) {
            b[i] = x[i];
        }
        return b;
    }

    private static float[] floats(Row row, int index) {
        List<Object> list = row.getList(index);
        float[] f = new float[list.size()];
        for (int i = 0; i < f.length; i++) {
            f[i] = ((Number) list.get(i)).floatValue();
        }
        return f;
    }

    private static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        double scale = 1e-6;
        for (float e : expected) {
            scale = Math.max(scale, Math.abs(e));
        }
        for (int i = 0; i < expected.length; i++) {
            // f32 kernels of another shape (batch of 64 against 1 row) may sum in another order
            double tol = 1e-4 * scale + 1e-5 * Math.abs(expected[i]);
            assertTrue(Math.abs(expected[i] - actual[i]) <= tol,
                    what + "[" + i + "]: expected " + expected[i] + ", got " + actual[i] + " (tolerance " + tol + ")");
        }
    }

    /** mlp.json with its batch dim 64 made 1: the graph a row-by-row scorer runs. */
    private static byte[] mlpOneRow() throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode root = json.readTree(MLP.toFile());
        for (JsonNode op : root.get("graph")) {
            for (String side : new String[] {"inputs", "outputs"}) {
                for (JsonNode t : op.get(side)) {
                    ArrayNode shape = (ArrayNode) t.get("shape");
                    if (!"constant".equals(t.get("property_type").asText()) && shape.get(0).asLong() == 64) {
                        shape.set(0, 1L);
                        ((ObjectNode) t).set("stride", json.valueToTree(LogicalTensor.denseStrides(toLongs(shape))));
                    }
                }
            }
        }
        return json.writeValueAsBytes(root);
    }

    private static long[] toLongs(ArrayNode a) {
        long[] l = new long[a.size()];
        for (int i = 0; i < l.length; i++) {
            l[i] = a.get(i).asLong();
        }
        return l;
    }

    @Test
    void mlpJsonScoresTenThousandRowsAsTheStandaloneRuntimeRowByRow() throws IOException {
        int n = 10_000;
        long seed = 7;
        Dataset<Row> df = floatRows(n, 784, 1);
        String out = mlpOutput();
        PartitaModel model = new PartitaModel().setModelLocation(MLP.toString()).setFeedDict(MLP_IN, "features")
                .setFetchDict("scores", out).setConstantSeed(seed);
        Dataset<Row> scored = model.transform(df);
        assertEquals(new ArrayType(DataTypes.FloatType, false), scored.schema().apply("scores").dataType());
        List<Row> rows = scored.collectAsList();
        assertEquals(n, rows.size());

        // the standalone runtime, one row per execution, same constants (partita run's seeded values)
        GraphRuntime rt = GraphRuntime.standalone();
        Graph g = GraphJson.parse(new ByteArrayInputStream(mlpOneRow()), "mlp-1-row").toGraph(rt).finalizeGraph();
        Engine cpu = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, cpu)) {
            Map<Long, Tensor> inputs = RandomInputs.forGraph(rt, g, cpu, arena, seed);
            Stream stream = new Stream(cpu);
            for (Row row : rows) {
                inputs.get(0L).copyFrom(floats(row, 1));
                float[] expected = cg.execute(stream, inputs).get(Long.parseLong(out)).toFloatArray();
                stream.waitAll();
                assertClose(expected, floats(row, 2), "row " + row.getInt(0));
            }
        }

        // statistics: every row once; batches of 64 per partition, the last one padded
        Map<String, Long> m = model.metrics().values();
        long batches = batches(df, 64);
        assertEquals(n, m.get("rows"));
        assertEquals(batches, m.get("batches"));
        assertEquals(batches * 64 - n, m.get("paddedRows"));
        assertEquals(0, m.get("nullRows"));
        assertEquals(1, m.get("compilations"), "one compile in this JVM for this model and settings");
        assertTrue(m.get("batchNanos") > 0 && m.get("maxBatchNanos") > 0 && m.get("maxBatchNanos") <= m.get("batchNanos"), m.toString());
    }

    @Test
    void onnxModelFromTheCorpusScoresAsTheStandaloneRuntimeRowByRow() throws IOException {
        // test_Linear: input "0" f32 [4, 10], output "3" f32 [4, 8]: a static batch of 4
        byte[] bytes = Files.readAllBytes(LINEAR.resolve("model.onnx"));
        int n = 2_001;
        Dataset<Row> df = floatRows(n, 10, 2);
        PartitaModel model = new PartitaModel().setModelLocation(LINEAR.resolve("model.onnx").toString())
                .setFeedDict("0", "features").setFetchDict("y", "3");
        List<Row> rows = model.transform(df).collectAsList();

        GraphRuntime rt = GraphRuntime.standalone();
        OnnxModel m = OnnxModels.read(rt.opSchemas(), bytes, "test_Linear");
        Graph g = m.graph().toGraph(rt).finalizeGraph();
        Engine cpu = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, cpu)) {
            Map<Long, Tensor> inputs = new HashMap<>(m.constantTensors(cpu, arena));
            long in = m.inputs().get("0");
            Tensor x = Tensor.allocate(LogicalTensor.of(in, io.partita.graph.DataType.F32, 4, 10), cpu, arena);
            inputs.put(in, x);
            Stream stream = new Stream(cpu);
            for (Row row : rows) {
                float[] batch = new float[40]; // the row first, zero rows after it
                System.arraycopy(floats(row, 1), 0, batch, 0, 10);
                x.copyFrom(batch);
                float[] all = cg.execute(stream, inputs).get(m.outputs().get("3")).toFloatArray();
                stream.waitAll();
                assertClose(java.util.Arrays.copyOf(all, 8), floats(row, 2), "row " + row.getInt(0));
            }
        }
    }

    @Test
    void nestedArraysFeedMultiDimensionalInputsAndGiveOnnxsGoldenOutputs() throws IOException {
        // test_Conv2d: input "0" f32 [2, 3, 7, 5] -> output "3" f32 [2, 4, 5, 4]; each row a [3, 7, 5] image
        OnnxTensor in = OnnxModels.readTensor(CONV.resolve("test_data_set_0/input_0.pb"));
        OnnxTensor golden = OnnxModels.readTensor(CONV.resolve("test_data_set_0/output_0.pb"));
        float[] x = floatsOf(in);
        float[] y = floatsOf(golden);
        List<Row> data = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            data.add(RowFactory.create(r, nest(java.util.Arrays.copyOfRange(x, r * 105, (r + 1) * 105), 3, 7, 5)));
        }
        data.add(RowFactory.create(2, null)); // a null row: null output, not scored
        StructType schema = new StructType().add("id", DataTypes.IntegerType)
                .add("image", new ArrayType(new ArrayType(new ArrayType(DataTypes.FloatType, false), false), false), true);
        PartitaModel model = new PartitaModel().setModelLocation(CONV.resolve("model.onnx").toString())
                .setFeedDict("0", "image").setFetchDict("features", "3");
        Dataset<Row> scored = model.transform(spark.createDataFrame(data, schema).coalesce(1));
        assertEquals(OutputValues.type(3), scored.schema().apply("features").dataType());
        List<Row> rows = scored.orderBy("id").collectAsList();
        for (int r = 0; r < 2; r++) {
            float[] flat = flatten(rows.get(r).get(2));
            assertClose(java.util.Arrays.copyOfRange(y, r * 80, (r + 1) * 80), flat, "image " + r);
        }
        assertNull(rows.get(2).get(2), "a null input row gives a null output");
        Map<String, Long> m = model.metrics().values();
        assertEquals(2, m.get("rows"));
        assertEquals(1, m.get("nullRows"));
        assertEquals(1, m.get("batches"));
    }

    @Test
    void aDynamicBatchDimRunsMiniBatchesWithoutPadding() {
        // gated_mlp_dynamic.json: input 0 f32 [?, 768] -> output 9 f32 [?, 768] (the graph compiler's)
        Path file = EXAMPLES.resolve("gated_mlp_dynamic.json");
        // few rows: the row-by-row reference takes about 20 ms a row (weights streamed for one row)
        int n = 150;
        long seed = 3;
        Dataset<Row> df = floatRows(n, 768, 6);
        PartitaModel model = new PartitaModel().setModelLocation(file.toString()).setFeedDict("0", "features")
                .setFetchDict("y", "9").setMiniBatchSize(64).setConstantSeed(seed);
        assertEquals(ModelSignature.DYNAMIC, model.signature().batch());
        List<Row> rows = model.transform(df).collectAsList();
        GraphRuntime rt = GraphRuntime.standalone();
        Graph g = GraphJson.parse(file).toGraph(rt).finalizeGraph();
        Engine cpu = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, cpu)) {
            Map<Long, Tensor> inputs = new HashMap<>();
            for (LogicalTensor lt : g.inputs()) {
                if (lt.isConstant()) {
                    // the values partita run --seed gives a graph's inputs (RandomInputs.forGraph's per-tensor seeds)
                    Tensor t = Tensor.allocate(LogicalTensor.of(lt.id(), lt.dataType(), lt.dims()), cpu, arena);
                    RandomInputs.fill(rt.opSchemas(), t, g.ops(), seed ^ (lt.id() * 0x9E3779B97F4A7C15L));
                    inputs.put(lt.id(), t);
                }
            }
            Tensor x = Tensor.allocate(LogicalTensor.of(0, io.partita.graph.DataType.F32, 1, 768), cpu, arena);
            inputs.put(0L, x);
            Stream stream = new Stream(cpu);
            for (Row row : rows) {
                x.copyFrom(floats(row, 1));
                float[] expected = cg.execute(stream, inputs).get(9L).toFloatArray();
                stream.waitAll();
                assertClose(expected, floats(row, 2), "row " + row.getInt(0));
            }
        }
        Map<String, Long> m = model.metrics().values();
        assertEquals(n, m.get("rows"));
        assertEquals(0, m.get("paddedRows"), "a dynamic batch runs the last rows as they are");
        assertEquals(batches(df, 64), m.get("batches"));
    }

    /** Executions of {@code batch} rows the partitions of {@code df} need. */
    private static long batches(Dataset<Row> df, int batch) {
        List<Integer> sizes = df.javaRDD().mapPartitions(it -> {
            int c = 0;
            while (it.hasNext()) {
                it.next();
                c++;
            }
            return List.of(c).iterator();
        }).collect();
        return sizes.stream().mapToLong(s -> (s + batch - 1) / batch).sum();
    }

    private static float[] floatsOf(OnnxTensor t) {
        try (Arena arena = Arena.ofConfined()) {
            return t.toTensor(t.logicalTensor(0, io.partita.graph.PropertyType.VARIABLE), Engine.cpu(), arena).toFloatArray();
        }
    }

    private static Object nest(float[] flat, int... dims) {
        if (dims.length == 1) {
            return scala.collection.immutable.ArraySeq.unsafeWrapArray(box(flat));
        }
        int inner = flat.length / dims[0];
        Object[] parts = new Object[dims[0]];
        for (int i = 0; i < dims[0]; i++) {
            parts[i] = nest(java.util.Arrays.copyOfRange(flat, i * inner, (i + 1) * inner),
                    java.util.Arrays.copyOfRange(dims, 1, dims.length));
        }
        return scala.collection.immutable.ArraySeq.unsafeWrapArray(parts);
    }

    private static float[] flatten(Object value) {
        List<Float> out = new ArrayList<>();
        flattenInto(value, out);
        float[] f = new float[out.size()];
        for (int i = 0; i < f.length; i++) {
            f[i] = out.get(i);
        }
        return f;
    }

    private static void flattenInto(Object value, List<Float> out) {
        if (value instanceof scala.collection.Seq<?> s) {
            for (int i = 0; i < s.length(); i++) {
                flattenInto(s.apply(i), out);
            }
        } else {
            out.add(((Number) value).floatValue());
        }
    }

    @Test
    void vectorAndDoubleArrayColumnsScoreAsFloatArrays() {
        Dataset<Row> df = floatRows(50, 10, 3);
        PartitaModel model = new PartitaModel().setModelLocation(LINEAR.resolve("model.onnx").toString())
                .setFeedDict("0", "features").setFetchDict("y", "3");
        List<Row> expected = model.transform(df).orderBy("id").collectAsList();
        List<Row> vectors = new ArrayList<>();
        for (Row r : expected) {
            float[] f = floats(r, 1);
            double[] d = new double[f.length];
            for (int i = 0; i < d.length; i++) {
                d[i] = f[i];
            }
            vectors.add(RowFactory.create(r.getInt(0), Vectors.dense(d), scala.collection.immutable.ArraySeq.unsafeWrapArray(boxD(d))));
        }
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("v", SQLDataTypes.VectorType())
                .add("d", new ArrayType(DataTypes.DoubleType, false));
        Dataset<Row> vdf = spark.createDataFrame(vectors, schema);
        List<Row> fromVector = model.copy(new org.apache.spark.ml.param.ParamMap()).setFeedDict("0", "v").transform(vdf)
                .orderBy("id").collectAsList();
        List<Row> fromDoubles = new PartitaModel().setModelLocation(LINEAR.resolve("model.onnx").toString())
                .setFeedDict("0", "d").setFetchDict("y", "3").transform(vdf).orderBy("id").collectAsList();
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(floats(expected.get(i), 2), floats(fromVector.get(i), 3), "vector row " + i);
            assertArrayEquals(floats(expected.get(i), 2), floats(fromDoubles.get(i), 3), "double row " + i);
        }
    }

    @Test
    void vectorOutputsAreDenseVectorsOfTheSameValuesAndAskedForOnlyWhereTheyFit() {
        Dataset<Row> df = floatRows(40, 10, 5);
        String linear = LINEAR.resolve("model.onnx").toString();
        Map<String, String> fetch = new java.util.LinkedHashMap<>();
        fetch.put("y", "3");
        fetch.put("v", "3");
        Dataset<Row> scored = new PartitaModel().setModelLocation(linear).setFeedDict("0", "features").setFetchDict(fetch)
                .setVectorOutputs("v").transform(df);
        assertEquals(SQLDataTypes.VectorType(), scored.schema().apply("v").dataType());
        assertEquals(OutputValues.type(1), scored.schema().apply("y").dataType());
        for (Row r : scored.orderBy("id").collectAsList()) {
            float[] y = floats(r, 2);
            org.apache.spark.ml.linalg.Vector v = (org.apache.spark.ml.linalg.Vector) r.get(3);
            assertEquals(y.length, v.size());
            for (int i = 0; i < y.length; i++) {
                assertEquals(y[i], v.apply(i), 0.0, "row " + r.getInt(0) + " element " + i);
            }
        }
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> new PartitaModel()
                .setModelLocation(linear).setFeedDict("0", "features").setFetchDict("y", "3").setVectorOutputs("v")
                .transformSchema(df.schema()));
        assertEquals("vectorOutputs names column 'v', which fetchDict does not write; its output columns are [y]",
                unknown.getMessage());
        // test_Conv2d gives a [4, 5, 4] image per row: not a vector
        StructType images = new StructType().add("image",
                new ArrayType(new ArrayType(new ArrayType(DataTypes.FloatType, false), false), false), true);
        IllegalArgumentException rank = assertThrows(IllegalArgumentException.class, () -> new PartitaModel()
                .setModelLocation(CONV.resolve("model.onnx").toString()).setFeedDict("0", "image")
                .setFetchDict("features", "3").setVectorOutputs("features").transformSchema(images));
        assertTrue(rank.getMessage().startsWith("vectorOutputs asks for column 'features' as an ML vector, but model output '3'"
                + " has dims"), rank.getMessage());
    }

    private static Double[] boxD(double[] x) {
        Double[] b = new Double[x.length];
        for (int i = 0; i < x.length; i++) {
            b[i] = x[i];
        }
        return b;
    }

    @Test
    void badColumnsAndNamesAreRefusedNamingWhatIsWrong() {
        Dataset<Row> df = floatRows(10, 10, 4).withColumn("text", org.apache.spark.sql.functions.lit("x"));
        String linear = LINEAR.resolve("model.onnx").toString();

        // a column of the wrong type: refused before anything runs
        IllegalArgumentException type = assertThrows(IllegalArgumentException.class, () -> new PartitaModel()
                .setModelLocation(linear).setFeedDict("0", "text").setFetchDict("y", "3").transformSchema(df.schema()));
        assertEquals("column 'text' has type string; model input '0' expects f32 [10] per row: array<float> or array<double>"
                + " of 10 values, or a vector of 10", type.getMessage());

        // a nested array deeper than the input's row
        StructType deep = new StructType().add("m", new ArrayType(new ArrayType(DataTypes.FloatType, false), false));
        IllegalArgumentException depth = assertThrows(IllegalArgumentException.class, () -> new PartitaModel()
                .setModelLocation(linear).setFeedDict("0", "m").setFetchDict("y", "3").transformSchema(deep));
        assertTrue(depth.getMessage().startsWith("column 'm' has type array<array<float>>; model input '0' expects f32 [10]"),
                depth.getMessage());

        // rows of the wrong length: found when the rows are read, named with the expected shape
        Dataset<Row> short9 = floatRows(10, 9, 5);
        SparkException length = assertThrows(SparkException.class, () -> new PartitaModel().setModelLocation(linear)
                .setFeedDict("0", "features").setFetchDict("y", "3").transform(short9).collectAsList());
        assertTrue(causes(length).contains("column 'features': a row has 9 values; model input '0' expects f32 [10] per row (10 values)"), causes(length));

        IllegalArgumentException input = assertThrows(IllegalArgumentException.class, () -> new PartitaModel()
                .setModelLocation(linear).setFeedDict("x", "features").setFetchDict("y", "3").transformSchema(df.schema()));
        assertEquals("feedDict names input 'x', which model " + linear + " does not have; its inputs are ['0' f32 [4,10]]",
                input.getMessage());

        IllegalArgumentException unfed = assertThrows(IllegalArgumentException.class, () -> new PartitaModel()
                .setModelLocation(linear).setFetchDict("y", "3").transformSchema(df.schema()));
        assertTrue(unfed.getMessage().startsWith("feedDict gives no column for model input(s) [0]"), unfed.getMessage());

        IllegalArgumentException column = assertThrows(IllegalArgumentException.class, () -> new PartitaModel()
                .setModelLocation(linear).setFeedDict("0", "nope").setFetchDict("y", "3").transformSchema(df.schema()));
        assertEquals("feedDict maps input '0' to column 'nope', which the DataFrame does not have; its columns are"
                + " [id, features, text]", column.getMessage());

        IllegalArgumentException output = assertThrows(IllegalArgumentException.class, () -> new PartitaModel()
                .setModelLocation(linear).setFeedDict("0", "features").setFetchDict("y", "logits").transformSchema(df.schema()));
        assertEquals("fetchDict maps column 'y' to output 'logits', which model " + linear + " does not have; its outputs are"
                + " ['3' f32 [4,8]]", output.getMessage());

        IllegalArgumentException exists = assertThrows(IllegalArgumentException.class, () -> new PartitaModel()
                .setModelLocation(linear).setFeedDict("0", "features").setFetchDict("id", "3").transformSchema(df.schema()));
        assertEquals("fetchDict's output column 'id' already exists in the DataFrame", exists.getMessage());

        String missing = CORPUS.resolve("no-such-model.onnx").toString();
        IllegalArgumentException file = assertThrows(IllegalArgumentException.class, () -> new PartitaModel()
                .setModelLocation(missing).setFeedDict("0", "features").setFetchDict("y", "3").transformSchema(df.schema()));
        assertTrue(file.getMessage().startsWith("model file " + missing + " does not exist (modelLocation"), file.getMessage());

        IllegalArgumentException unset = assertThrows(IllegalArgumentException.class,
                () -> new PartitaModel().transformSchema(df.schema()));
        assertTrue(unset.getMessage().startsWith("modelLocation is not set"), unset.getMessage());
    }

    private static String causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append(" | ");
        }
        return b.toString();
    }

    @Test
    void paramsSurviveTheMetadataOfSaveAndLoad() {
        PartitaModel model = new PartitaModel().setModelLocation(MLP.toString()).setFeedDict(MLP_IN, "features")
                .setFetchDict(Map.of("scores", "14")).setMiniBatchSize(32).setThreadsPerTask(2).setBackends("dnnl,compiler")
                .setConstantSeed(5);
        // write().save(path) writes this JSON, PartitaModel.load(path) reads it back. The files themselves are
        // not written here: Spark's writer needs the Hadoop user, which Hadoop 3.4 cannot look up on JDK 25.
        String json = org.apache.spark.ml.util.DefaultParamsWriter$.MODULE$.getMetadataToSave(model, spark);
        var metadata = org.apache.spark.ml.util.DefaultParamsReader$.MODULE$.parseMetadata(json, PartitaModel.class.getName());
        PartitaModel loaded = new PartitaModel(metadata.uid());
        metadata.getAndSetParams(loaded, scala.Option.empty());
        assertEquals(model.uid(), loaded.uid());
        assertEquals(MLP.toString(), loaded.getModelLocation());
        assertEquals(Map.of(MLP_IN, "features"), loaded.getFeedDict());
        assertEquals(Map.of("scores", "14"), loaded.getFetchDict());
        assertEquals(32, loaded.getMiniBatchSize());
        assertEquals(2, loaded.getThreadsPerTask());
        assertEquals("dnnl,compiler", loaded.getBackends());
        assertEquals(model.settings(), loaded.settings());
    }
}
