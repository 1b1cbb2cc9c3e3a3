package io.partita.benchmarks.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.ForeachFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import io.partita.benchmarks.onnx.OnnxWriter;
import io.partita.spark.PartitaModel;

/**
 * Batch inference on Spark: rows per second of Partita's {@link PartitaModel} at {@code local[1]} and
 * {@code local[2]} (scaling), and of ONNX Runtime Java called the same way in {@code mapPartitions}
 * ({@link OrtPartitionScorer}) on the same ONNX model: the mlp.json network (784 → 1024 → 1024 → 10,
 * ReLU between, seeded random weights) with a symbolic batch dim, batches of 64 rows, one thread per
 * task. The DataFrame (float arrays, 4 partitions) is cached before timing; each timed run scores
 * every row and hands each result row to a no-op {@code foreach}. Per master: {@code --warmup}
 * alternating untimed runs (compile, JIT; default 2), then {@code --rounds} alternating timed runs
 * (default 3); medians are printed.
 *
 * <p>Prints {@code scaling=X} (Partita local[2] over local[1]) and {@code ratio_vs_ort=X} (Partita
 * over ONNX Runtime at local[2]; above 1 means Partita scores more rows per second).
 */
public final class SparkBenchmark {
    private static final int WIDTH = 784;
    private static final int[] LAYERS = {784, 1024, 1024, 10};
    private static final int BATCH = 64;
    private static final int PARTITIONS = 4;

    private SparkBenchmark() {
    }

    public static void main(String[] args) throws IOException {
        // before the first logger: Spark logs every task at INFO through the jar's slf4j-simple
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        int rows = 40_000;
        int rounds = 3;
        String only = "";
        int warmup = 2;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--only" -> only = args[++i];
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("spark: unknown option " + args[i] + " (--rows N, --rounds R, --warmup W, --only partita|ort)");
            }
        }
        Path dir = Files.createTempDirectory("partita-spark-bench");
        Path model = dir.resolve("mlp.onnx");
        Files.write(model, mlp());
        if (!only.equals("partita")) {
            // ONNX Runtime's native library loaded from the main thread, before Spark's threads exist
            OrtPartitionScorer.session(model.toString(), () -> read(model));
        }
        double[][] medians = new double[2][];
        String[] masters = {"local[1]", "local[2]"};
        for (int m = 0; m < masters.length; m++) {
            medians[m] = run(masters[m], model, rows, rounds, warmup, only);
        }
        double scaling = medians[1][0] / medians[0][0];
        double ortScaling = medians[1][1] / medians[0][1];
        System.out.printf(Locale.ROOT, "spark mlp 784-1024-1024-10 rows=%d batch=%d partitions=%d rounds=%d%n", rows, BATCH,
                PARTITIONS, rounds);
        for (int m = 0; m < masters.length; m++) {
            System.out.printf(Locale.ROOT, "  %-8s partita_rows_per_s=%.0f ort_rows_per_s=%.0f ratio_vs_ort_%s=%.2f"
                    + " partita_rows_per_cpu_s=%.0f ort_rows_per_cpu_s=%.0f ratio_vs_ort_cpu_%s=%.2f partita_cores=%.2f ort_cores=%.2f%n",
                    masters[m], medians[m][0], medians[m][1], m == 0 ? "local1" : "local2", medians[m][0] / medians[m][1],
                    medians[m][2], medians[m][3], m == 0 ? "local1" : "local2", medians[m][2] / medians[m][3], medians[m][4],
                    medians[m][5]);
        }
        System.out.printf(Locale.ROOT, "spark scaling=%.2f ort_scaling=%.2f ratio_vs_ort=%.2f%n", scaling, ortScaling,
                medians[1][0] / medians[1][1]);
        Files.deleteIfExists(model);
        Files.deleteIfExists(dir);
    }

    /** {Partita, ORT} median rows per second at one master. */
    private static double[] run(String master, Path model, int rows, int rounds, int warmup, String only) {
        SparkSession spark = SparkSession.builder().master(master).appName("partita-spark-bench")
                .config("spark.ui.enabled", "false")
                .config("spark.hadoop.fs.file.impl.disable.cache", "true").getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        try {
            Dataset<Row> df = data(spark, rows).cache();
            df.count();
            PartitaModel partita = new PartitaModel().setModelLocation(model.toString()).setFeedDict("x", "features")
                    .setFetchDict("scores", "y").setMiniBatchSize(BATCH).setThreadsPerTask(1);
            Broadcast<byte[]> bytes = JavaSparkContext.fromSparkContext(spark.sparkContext()).broadcast(read(model));
            StructType outSchema = df.schema().add("scores", new ArrayType(DataTypes.FloatType, false), true);
            OrtPartitionScorer ort = new OrtPartitionScorer(bytes, model.toString(), "x", df.schema().fieldIndex("features"),
                    WIDTH, BATCH);
            List<Double> p = new ArrayList<>();
            List<Double> o = new ArrayList<>();
            // CPU seconds per timed run: cores used (cpu / wall) show whether the machine gave local[2]
            // its two cores; rows per CPU second compare the contenders whatever else runs
            List<Double> pCpu = new ArrayList<>();
            List<Double> oCpu = new ArrayList<>();
            List<Double> pCores = new ArrayList<>();
            List<Double> oCores = new ArrayList<>();
            boolean runP = !only.equals("ort");
            boolean runO = !only.equals("partita");
            // warm-up rounds (compile, weight packing, JIT of the kernels and the row conversions): not counted
            for (int r = -warmup; r < rounds; r++) {
                double tp = runP ? time(partita.transform(df)) : Double.NaN;
                double cp = lastCpuSeconds;
                double to = runO ? time(df.mapPartitions(ort, Encoders.row(outSchema))) : Double.NaN;
                double co = lastCpuSeconds;
                if (r >= 0) {
                    p.add(rows / tp);
                    o.add(rows / to);
                    pCpu.add(rows / cp);
                    oCpu.add(rows / co);
                    pCores.add(cp / tp);
                    oCores.add(co / to);
                }
            }
            System.out.printf(Locale.ROOT, "  %s partita rows/s %s  ort rows/s %s  gc_ms=%d (all runs)  partita metrics %s%n",
                    master, fmt(p), fmt(o), gcTotal, partita.metrics().values());
            gcTotal = 0;
            System.out.printf(Locale.ROOT, "  %s partita rows/cpu_s %s cores %s  ort rows/cpu_s %s cores %s%n", master, fmt(pCpu),
                    fmt2(pCores), fmt(oCpu), fmt2(oCores));
            df.unpersist();
            return new double[] {median(p), median(o), median(pCpu), median(oCpu), median(pCores), median(oCores)};
        } finally {
            spark.stop();
        }
    }

    /** Garbage collection time of this JVM so far (ms): the row conversions allocate much, both contenders alike. */
    private static long gcMillis() {
        return java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(java.lang.management.GarbageCollectorMXBean::getCollectionTime).sum();
    }

    /** CPU time of this process so far (ns): in local mode the executors are this JVM. */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static double time(Dataset<Row> scored) {
        long gc0 = gcMillis();
        long c0 = cpuNanos();
        long t0 = System.nanoTime();
        scored.foreach((ForeachFunction<Row>) r -> { });
        double s = (System.nanoTime() - t0) / 1e9;
        gcTotal += gcMillis() - gc0;
        lastCpuSeconds = (cpuNanos() - c0) / 1e9;
        return s;
    }

    private static long gcTotal;
    private static double lastCpuSeconds;

    private static Dataset<Row> data(SparkSession spark, int rows) {
        List<Row> data = new ArrayList<>(rows);
        SplittableRandom rnd = new SplittableRandom(42);
        for (int i = 0; i < rows; i++) {
            Float[] x = new Float[WIDTH];
            for (int j = 0; j < WIDTH; j++) {
                x[j] = (float) rnd.nextDouble(-1, 1);
            }
            data.add(RowFactory.create(i, scala.collection.immutable.ArraySeq.unsafeWrapArray(x)));
        }
        StructType schema = new StructType().add("id", DataTypes.IntegerType, false)
                .add("features", new ArrayType(DataTypes.FloatType, false), false);
        return spark.createDataFrame(data, schema).repartition(PARTITIONS);
    }

    /** The MLP as ONNX (opset 17): MatMul + Add (+ Relu) per layer, input x [N, 784], output y [N, 10]. */
    static byte[] mlp() {
        OnnxWriter w = new OnnxWriter("mlp");
        w.input("x", new Object[] {"N", (long) WIDTH});
        SplittableRandom rnd = new SplittableRandom(7);
        String h = "x";
        for (int l = 0; l + 1 < LAYERS.length; l++) {
            int in = LAYERS[l];
            int out = LAYERS[l + 1];
            float[] wv = new float[in * out];
            double scale = Math.sqrt(2.0 / in);
            for (int i = 0; i < wv.length; i++) {
                wv[i] = (float) (rnd.nextDouble(-1, 1) * scale);
            }
            float[] bv = new float[out];
            for (int i = 0; i < out; i++) {
                bv[i] = (float) rnd.nextDouble(-0.1, 0.1);
            }
            String weights = w.initializer("w" + l, new long[] {in, out}, wv);
            String bias = w.initializer("b" + l, new long[] {out}, bv);
            String mm = w.node("MatMul", "fc" + l, List.of(h, weights), "mm" + l);
            boolean last = l + 2 == LAYERS.length;
            String added = w.node("Add", "bias" + l, List.of(mm, bias), last ? "y" : "add" + l);
            h = last ? added : w.node("Relu", "relu" + l, List.of(added), "relu" + l);
        }
        w.output("y", new Object[] {"N", (long) LAYERS[LAYERS.length - 1]});
        return w.toBytes();
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static String fmt2(List<Double> v) {
        return v.stream().map(x -> String.format(Locale.ROOT, "%.2f", x)).toList().toString();
    }

    private static String fmt(List<Double> v) {
        return Arrays.toString(v.stream().mapToLong(Math::round).toArray());
    }
}
