package io.partita.benchmarks.probes;

import java.io.File;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * ONNX Runtime's own per-node profile of a model (not a test): the anchor's side of
 * {@code partita run --profile}, so a network's gap can be read layer by layer. Runs the model
 * with ONNX Runtime's profiler on, then prints each node's median kernel time across the
 * iterations after warm-up, largest first, with its operator (after ONNX Runtime's fusions) and
 * output shape.
 *
 * <pre>java ... OrtProfileProbe model.onnx [threads iterations warmup]</pre>
 * Float inputs are random in [-1, 1); dynamic dims are taken as 1.
 */
public final class OrtProfileProbe {
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: OrtProfileProbe model.onnx [threads iterations warmup]");
        }
        String model = args[0];
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 50;

        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Path dir = Files.createTempDirectory("ort-profile");
        long[] wall = new long[iterations];
        String profileFile;
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(threads);
            options.setInterOpNumThreads(1);
            options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            options.enableProfiling(dir.resolve("ort").toString());
            try (OrtSession session = env.createSession(model, options)) {
                Map<String, OnnxTensor> inputs = inputs(env, session);
                for (int i = 0; i < warmup + iterations; i++) {
                    long t0 = System.nanoTime();
                    session.run(inputs).close();
                    if (i >= warmup) {
                        wall[i - warmup] = System.nanoTime() - t0;
                    }
                }
                for (OnnxTensor t : inputs.values()) {
                    t.close();
                }
                profileFile = session.endProfiling();
            }
        }
        try {
            report(profileFile, warmup, wall, threads);
        } finally {
            Files.deleteIfExists(Path.of(profileFile));
            Files.deleteIfExists(dir);
        }
    }

    private static Map<String, OnnxTensor> inputs(OrtEnvironment env, OrtSession session) throws Exception {
        Map<String, OnnxTensor> inputs = new LinkedHashMap<>();
        SplittableRandom rnd = new SplittableRandom(7);
        for (Map.Entry<String, NodeInfo> e : session.getInputInfo().entrySet()) {
            TensorInfo info = (TensorInfo) e.getValue().getInfo();
            long[] shape = info.getShape().clone();
            int n = 1;
            for (int i = 0; i < shape.length; i++) {
                shape[i] = Math.max(1, shape[i]);
                n = Math.multiplyExact(n, (int) shape[i]);
            }
            FloatBuffer b = ByteBuffer.allocateDirect(n * Float.BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer();
            for (int i = 0; i < n; i++) {
                b.put((float) rnd.nextDouble(-1, 1));
            }
            b.rewind();
            inputs.put(e.getKey(), OnnxTensor.createTensor(env, b, shape));
        }
        return inputs;
    }

    private record Node(String name, String op, String shape, List<Long> micros) {
    }

    private static void report(String file, int warmup, long[] wall, int threads) throws Exception {
        JsonNode events = new ObjectMapper().readTree(new File(file));
        Map<String, Node> nodes = new LinkedHashMap<>();
        Map<String, Integer> seen = new HashMap<>();
        for (JsonNode e : events) {
            if (!"Node".equals(e.path("cat").asText()) || !e.path("name").asText().endsWith("_kernel_time")) {
                continue;
            }
            String name = e.path("name").asText();
            name = name.substring(0, name.length() - "_kernel_time".length());
            // the first warm-up runs of each node are dropped, as the wall times' warm-up is
            int run = seen.merge(name, 1, Integer::sum);
            JsonNode a = e.path("args");
            Node node = nodes.computeIfAbsent(name, k -> new Node(k, a.path("op_name").asText(),
                    shape(a.path("output_type_shape")), new ArrayList<>()));
            if (run > warmup) {
                node.micros().add(e.path("dur").asLong());
            }
        }
        List<double[]> rows = new ArrayList<>();
        List<Node> order = new ArrayList<>(nodes.values());
        double total = 0;
        for (Node n : order) {
            double m = median(n.micros());
            rows.add(new double[] {m});
            total += m;
        }
        Integer[] idx = new Integer[order.size()];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (x, y) -> Double.compare(rows.get(y)[0], rows.get(x)[0]));
        System.out.printf(Locale.ROOT, "%-8s %6s  %-18s %-22s %s%n", "median", "share", "op", "output", "node");
        for (int i : idx) {
            Node n = order.get(i);
            double m = rows.get(i)[0];
            System.out.printf(Locale.ROOT, "%6.3fms %5.1f%%  %-18s %-22s %s%n", m / 1000, 100 * m / total, n.op(),
                    n.shape(), n.name());
        }
        long[] w = wall.clone();
        Arrays.sort(w);
        System.out.printf(Locale.ROOT, "threads=%d nodes=%d summed_node_medians_ms=%.2f wall_median_ms=%.2f%n", threads,
                order.size(), total / 1000, w[w.length / 2] / 1e6);
    }

    private static String shape(JsonNode outputs) {
        StringBuilder s = new StringBuilder();
        for (JsonNode o : outputs) {
            for (JsonNode dims : o) {
                StringBuilder d = new StringBuilder();
                for (JsonNode v : dims) {
                    d.append(d.isEmpty() ? "" : "x").append(v.asLong());
                }
                s.append(s.isEmpty() ? "" : ",").append(d);
            }
        }
        return s.toString();
    }

    private static double median(List<Long> v) {
        if (v.isEmpty()) {
            return 0;
        }
        long[] a = v.stream().mapToLong(Long::longValue).sorted().toArray();
        return a[a.length / 2];
    }
}
