package io.partita.benchmarks.anchors;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.partita.benchmarks.models.NetworkModel;

/**
 * ONNX Runtime (Java API, CPU execution provider) on a model written by {@link OnnxModel}: the
 * constant weights are initializers, which ONNX Runtime prepacks when it creates the session.
 * Session options: intra-op threads = the requested count, inter-op threads 1, sequential
 * execution, all graph optimisations. The input and the output are bound once to direct buffers
 * (the output as a pinned output), so {@link #runOnce} allocates no tensors.
 */
public final class OrtContender implements Contender {
    private final int threads;
    private OrtEnvironment env;
    private OrtSession.SessionOptions options;
    private OrtSession session;
    private OnnxTensor output;
    private FloatBuffer outputBuffer;
    private Map<String, OnnxTensor> inputs;
    private Map<String, OnnxTensor> outputs;

    public OrtContender(int threads) {
        this.threads = threads;
    }

    @Override
    public String name() {
        return Contenders.ORT;
    }

    @Override
    public String describe() {
        return "ONNX Runtime " + OrtEnvironment.getEnvironment().getVersion()
                + " (Java, CPU EP), intra-op threads " + threads + ", inter-op 1, model IR "
                + OnnxModel.IR_VERSION + " opset " + OnnxModel.OPSET;
    }

    @Override
    public void prepare(Case c) throws Exception {
        env = OrtEnvironment.getEnvironment();
        options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(threads);
        options.setInterOpNumThreads(1);
        options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        session = env.createSession(OnnxModel.of(c), options);

        inputs = new LinkedHashMap<>();
        String outName = OnnxModel.OUTPUT;
        if (c instanceof Case.Network net) {
            for (NetworkModel.Input in : net.inputs()) {
                inputs.put(in.name(), tensor(in.values(), in.shape()));
            }
            outName = net.model().output().name();
        } else {
            inputs.put(OnnxModel.INPUT, tensor(c.src(), c.srcShape()));
        }
        outputBuffer = direct(c.outputSize());
        output = OnnxTensor.createTensor(env, outputBuffer, c.outputShape());
        outputs = Map.of(outName, output);
    }

    private OnnxTensor tensor(float[] values, long[] shape) throws Exception {
        FloatBuffer b = direct(values.length);
        b.put(values).rewind();
        return OnnxTensor.createTensor(env, b, shape);
    }

    private static FloatBuffer direct(int n) {
        return ByteBuffer.allocateDirect(n * Float.BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer();
    }

    @Override
    public void runOnce() throws Exception {
        // the output is pinned: closing the result does not release it
        session.run(inputs, outputs).close();
    }

    @Override
    public float[] output() {
        // read through ONNX Runtime (a copy of the pinned output's native data)
        FloatBuffer b = output.getFloatBuffer();
        float[] out = new float[b.remaining()];
        b.get(out);
        return out;
    }

    @Override
    public void close() throws Exception {
        if (output != null) {
            output.close();
        }
        if (inputs != null) {
            for (OnnxTensor t : inputs.values()) {
                t.close();
            }
        }
        if (session != null) {
            session.close();
        }
        if (options != null) {
            options.close();
        }
    }
}
