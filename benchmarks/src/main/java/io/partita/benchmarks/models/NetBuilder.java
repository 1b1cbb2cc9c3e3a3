package io.partita.benchmarks.models;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.partita.benchmarks.onnx.OnnxWriter;

/**
 * What the network builders share: the {@link OnnxWriter}, weights drawn from a generator seeded
 * by the model's and the tensor's names (so every JVM builds bit-identical models), and the FLOP
 * and parameter counts kept as the graph is written.
 */
final class NetBuilder {
    final OnnxWriter onnx;
    private final String model;
    private final List<NetworkModel.Input> inputs = new ArrayList<>();
    private double flops;
    private long parameters;

    NetBuilder(String model) {
        this(model, OnnxWriter.OPSET);
    }

    NetBuilder(String model, long opset) {
        this.model = model;
        this.onnx = new OnnxWriter(model, opset);
    }

    /** A graph input, fed {@code values} by the benchmarks. */
    String input(String name, long[] shape, float[] values) {
        onnx.input(name, shape);
        inputs.add(new NetworkModel.Input(name, shape, values));
        return name;
    }

    /** A trainable tensor with values uniform in {@code [-bound, bound)}. */
    String param(String name, long[] dims, double bound) {
        return param(name, dims, -bound, bound);
    }

    /** A trainable tensor with values uniform in {@code [lo, hi)}. */
    String param(String name, long[] dims, double lo, double hi) {
        float[] v = uniform(name, count(dims), lo, hi);
        parameters += v.length;
        return onnx.initializer(name, dims, v);
    }

    /** A constant that is not a parameter (running statistics, scalars of the arithmetic). */
    String constant(String name, long[] dims, float[] values) {
        return onnx.initializer(name, dims, values);
    }

    /** A constant uniform in {@code [lo, hi)} that is not a parameter. */
    String buffer(String name, long[] dims, double lo, double hi) {
        return onnx.initializer(name, dims, uniform(name, count(dims), lo, hi));
    }

    void addFlops(double f) {
        flops += f;
    }

    /** {@code n} values uniform in {@code [lo, hi)}, seeded by the model's and {@code role}'s names. */
    float[] uniform(String role, int n, double lo, double hi) {
        long h = 0x9E3779B97F4A7C15L;
        for (char ch : (model + "/" + role).toCharArray()) {
            h = (h ^ ch) * 0x100000001B3L;
        }
        SplittableRandom rnd = new SplittableRandom(h);
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) (lo + rnd.nextDouble() * (hi - lo));
        }
        return a;
    }

    NetworkModel build(String description, String output, long[] outputShape) {
        onnx.output(output, outputShape);
        return new NetworkModel(model, description, onnx.toBytes(), inputs, new NetworkModel.Output(output, outputShape),
                flops, parameters, onnx.nodeCount());
    }

    static int count(long[] dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return Math.toIntExact(n);
    }
}
