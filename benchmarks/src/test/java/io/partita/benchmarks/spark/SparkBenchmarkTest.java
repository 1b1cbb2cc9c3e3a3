package io.partita.benchmarks.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/** The benchmark's model is one model for both contenders: a symbolic batch, the same outputs. */
class SparkBenchmarkTest {
    @Test
    void theMlpHasASymbolicBatchAndBothContendersAgreeOnIt() throws Exception {
        byte[] mlp = SparkBenchmark.mlp();
        assertEquals(Map.of("x", Arrays.asList("N", null)), OnnxModels.inputDimParams(mlp, "mlp.onnx"));
        int rows = 3;
        float[] x = new float[rows * 784];
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextDouble(-1, 1);
        }
        float[] ort;
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession s = env.createSession(mlp, new OrtSession.SessionOptions());
                OnnxTensor t = OnnxTensor.createTensor(env, FloatBuffer.wrap(x), new long[] {rows, 784});
                OrtSession.Result res = s.run(Map.of("x", t))) {
            float[][] y = (float[][]) res.get(0).getValue();
            ort = new float[rows * 10];
            for (int i = 0; i < rows; i++) {
                System.arraycopy(y[i], 0, ort, i * 10, 10);
            }
        }
        GraphRuntime rt = GraphRuntime.standalone();
        OnnxModel m = OnnxModels.read(rt.opSchemas(), mlp, "mlp.onnx", Map.of("N", (long) rows));
        Graph g = m.graph().toGraph(rt).finalizeGraph();
        Engine cpu = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, cpu)) {
            Map<Long, Tensor> in = new HashMap<>(m.constantTensors(cpu, arena));
            Tensor xt = Tensor.allocate(LogicalTensor.of(m.inputs().get("x"), DataType.F32, rows, 784), cpu, arena);
            xt.copyFrom(x);
            in.put(xt.id(), xt);
            Stream stream = new Stream(cpu);
            float[] partita = cg.execute(stream, in).get(m.outputs().get("y")).toFloatArray();
            stream.waitAll();
            assertEquals(ort.length, partita.length);
            double scale = 0;
            for (float v : ort) {
                scale = Math.max(scale, Math.abs(v));
            }
            assertTrue(scale > 0.1, "outputs of a useful magnitude: " + scale);
            for (int i = 0; i < ort.length; i++) {
                assertEquals(ort[i], partita[i], 1e-4 * scale, "output " + i);
            }
        }
        assertArrayEquals(new long[] {rows, 10}, g.outputs().get(0).dims());
        assertEquals(List.of("x"), List.copyOf(m.inputs().keySet()));
    }
}
