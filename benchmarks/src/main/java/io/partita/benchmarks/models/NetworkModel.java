package io.partita.benchmarks.models;

import java.util.List;

/**
 * A network built as an ONNX model with seeded random weights, and what the benchmarks need to
 * know about it without reading the bytes back.
 *
 * @param name file and case name, e.g. {@code resnet50}
 * @param description one line: the architecture and how its weights were drawn
 * @param bytes the {@code ModelProto}
 * @param inputs the graph inputs in model order, each with the values every contender is given
 * @param output the single graph output's name and shape
 * @param flops floating-point operations of one inference in the convolutions and matrix products
 *     (multiply and add counted separately; element-wise ops, normalizations and pooling left out)
 * @param parameters trainable parameters: weights and biases of convolutions and linear layers,
 *     scales and shifts of the normalizations (BatchNormalization's running mean and variance are
 *     buffers, not parameters, as in PyTorch's count)
 * @param nodes nodes of the ONNX graph
 */
public record NetworkModel(String name, String description, byte[] bytes, List<Input> inputs, Output output,
        double flops, long parameters, int nodes) {

    public NetworkModel {
        inputs = List.copyOf(inputs);
    }

    /** A graph input: f32, fixed shape, and the values the benchmarks feed it. */
    public record Input(String name, long[] shape, float[] values) {
    }

    /** The graph output: f32, fixed shape. */
    public record Output(String name, long[] shape) {
    }

    /** Elements of the output. */
    public int outputSize() {
        long n = 1;
        for (long d : output.shape()) {
            n *= d;
        }
        return Math.toIntExact(n);
    }
}
