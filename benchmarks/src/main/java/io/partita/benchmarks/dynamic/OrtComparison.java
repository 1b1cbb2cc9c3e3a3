package io.partita.benchmarks.dynamic;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;

import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.partita.benchmarks.anchors.OnnxModel;
import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * The dynamic attention compiled once by Partita's graph compiler against ONNX Runtime running
 * the same block (an ONNX model with symbolic batch and sequence) on the same inputs.
 */
final class OrtComparison {
    record Result(double partitaMs, double ortMs, double maxAbsDiff) {
    }

    private OrtComparison() {
    }

    static Result run(GraphRuntime rt, long s, long heads, long head, int runs) {
        Random r = new Random(s);
        long[] qkv = {1, heads, s, head};
        float[][] data = new float[3][(int) (heads * s * head)];
        for (float[] d : data) {
            for (int i = 0; i < d.length; i++) {
                d[i] = (float) r.nextGaussian();
            }
        }
        float[] mask = new float[(int) s];
        for (int i = 0; i < mask.length; i++) {
            mask[i] = i % 7 == 6 ? -10000f : 0f;
        }
        long base = 700_000 + s * 100;
        Engine e = Engine.cpu();
        Graph g = rt.createGraph(EngineKind.CPU);
        DynamicShapesBenchmark.build(g, DYNAMIC_DIM, DYNAMIC_DIM, base);
        g.finalizeGraph();
        CompiledPartition cp = g.partitions(PartitionPolicy.FUSION).get(0).compile(e);
        try (Arena arena = Arena.ofShared()) {
            Map<Long, Tensor> byId = Map.of(
                    base, tensor(base, qkv, data[0], e, arena),
                    base + 1, tensor(base + 1, qkv, data[1], e, arena),
                    base + 2, tensor(base + 2, new long[0], new float[] {(float) Math.sqrt(head)}, e, arena),
                    base + 3, tensor(base + 3, new long[] {1, 1, 1, s}, mask, e, arena),
                    base + 4, tensor(base + 4, qkv, data[2], e, arena));
            List<Tensor> ins = cp.inputs().stream().map(t -> byId.get(t.id())).toList();
            Tensor out = Tensor.allocate(cp.inferOutputs(ins.stream().map(Tensor::logicalTensor).toList()).get(0), e,
                    arena);
            Runnable ours = () -> cp.execute(new Stream(e), ins, List.of(out));
            ours.run();
            float[] oursValues = out.toFloatArray();
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
                o.setIntraOpNumThreads(Runtime.getRuntime().availableProcessors());
                o.setInterOpNumThreads(1);
                o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
                try (OrtSession session = env.createSession(OnnxModel.attention(heads, head), o);
                        OnnxTensor q = ort(env, data[0], qkv); OnnxTensor k = ort(env, data[1], qkv);
                        OnnxTensor v = ort(env, data[2], qkv); OnnxTensor m = ort(env, mask, new long[] {1, 1, 1, s})) {
                    Map<String, OnnxTensor> feed = Map.of("Q", q, "K", k, "V", v, "mask", m);
                    Runnable theirs = () -> {
                        try (OrtSession.Result res = session.run(feed)) {
                            res.get(0); // the output exists; reading it back is not part of the time
                        } catch (OrtException x) {
                            throw new IllegalStateException("ONNX Runtime failed: " + x.getMessage(), x);
                        }
                    };
                    // Alternate short rounds of each, so the machine's slow phases fall on both alike;
                    // the result is the median of the per-round medians.
                    warmUp(ours, 1.0); // the JIT compiles the fused loop before anything is timed
                    warmUp(theirs, 1.0);
                    pause();
                    int rounds = 5;
                    double[] p = new double[rounds];
                    double[] t = new double[rounds];
                    for (int round = 0; round < rounds; round++) {
                        p[round] = median(Math.max(20, runs / rounds), ours);
                        t[round] = median(Math.max(20, runs / rounds), theirs);
                        pause(); // ONNX Runtime's idle workers spin for a while after a run: not on our time
                    }
                    Arrays.sort(p);
                    Arrays.sort(t);
                    double partita = p[rounds / 2];
                    double ort = t[rounds / 2];
                    double diff = 0;
                    try (OrtSession.Result res = session.run(feed)) {
                        FloatBuffer ortOut = ((OnnxTensor) res.get(0)).getFloatBuffer();
                        for (int i = 0; i < oursValues.length; i++) {
                            diff = Math.max(diff, Math.abs(oursValues[i] - ortOut.get(i)));
                        }
                    }
                    return new Result(partita, ort, diff);
                }
            } catch (OrtException x) {
                throw new IllegalStateException("ONNX Runtime failed: " + x.getMessage(), x);
            }
        }
    }

    private static Tensor tensor(long id, long[] dims, float[] values, Engine e, Arena arena) {
        Tensor t = Tensor.allocate(LogicalTensor.of(id, DataType.F32, dims), e, arena);
        t.copyFrom(values);
        return t;
    }

    private static OnnxTensor ort(OrtEnvironment env, float[] values, long[] dims) throws OrtException {
        FloatBuffer b = ByteBuffer.allocateDirect(values.length * 4).order(ByteOrder.nativeOrder()).asFloatBuffer();
        b.put(values).rewind();
        return OnnxTensor.createTensor(env, b, dims);
    }

    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }

    private static void warmUp(Runnable body, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < end) {
            body.run();
        }
    }

    /**
     * Median milliseconds of at least {@code runs} calls and at least 0.3 s of them, after five
     * warm-up calls (a round as short as 20 calls of half a millisecond mostly measured caches the
     * other contender had just emptied).
     */
    private static double median(int runs, Runnable body) {
        for (int i = 0; i < 5; i++) {
            body.run();
        }
        double[] t = new double[Math.max(runs, 16)];
        int n = 0;
        long end = System.nanoTime() + 300_000_000L;
        while (n < runs || System.nanoTime() < end) {
            if (n == t.length) {
                t = Arrays.copyOf(t, 2 * n);
            }
            long t0 = System.nanoTime();
            body.run();
            t[n++] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(t, 0, n);
        return t[n / 2];
    }
}
