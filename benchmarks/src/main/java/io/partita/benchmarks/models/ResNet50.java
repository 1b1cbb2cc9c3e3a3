package io.partita.benchmarks.models;

import static io.partita.benchmarks.onnx.OnnxWriter.floating;
import static io.partita.benchmarks.onnx.OnnxWriter.integer;
import static io.partita.benchmarks.onnx.OnnxWriter.ints;

import java.util.List;

/**
 * ResNet-50 v1.5 as PyTorch (torchvision) exports it for inference without folding: batch 1,
 * input {@code [1,3,224,224]}; a 7×7/2 stem convolution, BatchNormalization, ReLU, 3×3/2 max
 * pooling; bottleneck blocks [3, 4, 6, 3] of widths 64, 128, 256, 512 (expansion 4), the stride on
 * the 3×3 convolution (what makes it v1.5), a 1×1 projection shortcut (convolution +
 * BatchNormalization) in each stage's first block, residual Add then ReLU; global average pooling,
 * Flatten and a 2048→1000 Gemm. Convolutions have no bias (the BatchNormalization after each has
 * the shift) and every BatchNormalization stays a node of its own, so folding them is the
 * runtime's job.
 *
 * <p>Weights are seeded random, scaled so activations stay of order one through the 16 blocks:
 * convolutions He-uniform ({@code ±sqrt(6 / fan_in)}: keeps the second moment through conv +
 * ReLU); BatchNormalization with running mean in ±0.1, running variance in [0.8, 1.2], scale in
 * [0.8, 1.2] and shift in ±0.1, except the last one of each residual branch, whose scale is in
 * [0.2, 0.4] (as in trained networks, the branch adds a correction to the shortcut rather than
 * doubling it at every block); the classifier ±sqrt(3 / 2048) with bias ±1/sqrt(2048). 25,557,032
 * parameters, the count of torchvision's model; 175 nodes.
 */
public final class ResNet50 {
    public static final String NAME = "resnet50";
    public static final String INPUT = "input";
    public static final String OUTPUT = "logits";

    private final NetBuilder b = new NetBuilder(NAME);
    /** Spatial size of the activation being built (square). */
    private int hw = 224;

    private ResNet50() {
    }

    public static NetworkModel build() {
        return new ResNet50().model();
    }

    private NetworkModel model() {
        String x = b.input(INPUT, new long[] {1, 3, 224, 224}, b.uniform("input", 3 * 224 * 224, -1, 1));
        x = conv(x, "conv1", 3, 64, 7, 2, 3);
        x = batchNorm(x, "bn1", 64, false);
        x = relu(x, "relu");
        x = b.onnx.node("MaxPool", "maxpool", List.of(x), "maxpool",
                ints("kernel_shape", 3, 3), ints("pads", 1, 1, 1, 1), ints("strides", 2, 2));
        hw = (hw + 2 - 3) / 2 + 1;
        int[] blocks = {3, 4, 6, 3};
        int in = 64;
        for (int stage = 0; stage < blocks.length; stage++) {
            int width = 64 << stage;
            for (int i = 0; i < blocks[stage]; i++) {
                int stride = stage > 0 && i == 0 ? 2 : 1;
                x = bottleneck(x, "layer" + (stage + 1) + "." + i, in, width, stride, i == 0);
                in = width * 4;
            }
        }
        x = b.onnx.node("GlobalAveragePool", "avgpool", List.of(x), "avgpool");
        x = b.onnx.node("Flatten", "flatten", List.of(x), "flatten", integer("axis", 1));
        String w = b.param("fc.weight", new long[] {1000, 2048}, Math.sqrt(3.0 / 2048));
        String bias = b.param("fc.bias", new long[] {1000}, 1 / Math.sqrt(2048));
        // as torch.nn.Linear exports: Y = X · W^T + b
        b.onnx.node("Gemm", "fc", List.of(x, w, bias), OUTPUT, floating("alpha", 1), floating("beta", 1),
                integer("transB", 1));
        b.addFlops(2.0 * 2048 * 1000);
        return b.build("ResNet-50 v1.5 (torchvision layout, BatchNormalization unfolded), batch 1, 3x224x224, "
                + "ONNX opset 17, seeded He-scaled random weights", OUTPUT, new long[] {1, 1000});
    }

    private String bottleneck(String x, String name, int in, int width, int stride, boolean project) {
        int hwIn = hw;
        String y = conv(x, name + ".conv1", in, width, 1, 1, 0);
        y = relu(batchNorm(y, name + ".bn1", width, false), name + ".relu1");
        y = conv(y, name + ".conv2", width, width, 3, stride, 1);
        y = relu(batchNorm(y, name + ".bn2", width, false), name + ".relu2");
        y = conv(y, name + ".conv3", width, width * 4, 1, 1, 0);
        y = batchNorm(y, name + ".bn3", width * 4, true);
        String shortcut = x;
        if (project) {
            int hwOut = hw;
            hw = hwIn;
            shortcut = conv(x, name + ".downsample.0", in, width * 4, 1, stride, 0);
            shortcut = batchNorm(shortcut, name + ".downsample.1", width * 4, false);
            if (hw != hwOut) {
                throw new IllegalStateException(name + ": shortcut is " + hw + "x" + hw + ", branch " + hwOut + "x" + hwOut);
            }
        }
        String sum = b.onnx.node("Add", name + ".add", List.of(y, shortcut), name + ".add");
        return relu(sum, name + ".relu3");
    }

    private String conv(String x, String name, int cin, int cout, int k, int stride, int pad) {
        String w = b.param(name + ".weight", new long[] {cout, cin, k, k}, Math.sqrt(6.0 / (cin * k * k)));
        String y = b.onnx.node("Conv", name, List.of(x, w), name, ints("dilations", 1, 1), integer("group", 1),
                ints("kernel_shape", k, k), ints("pads", pad, pad, pad, pad), ints("strides", stride, stride));
        hw = (hw + 2 * pad - k) / stride + 1;
        b.addFlops(2.0 * cout * cin * k * k * hw * hw);
        return y;
    }

    /** Inference BatchNormalization; {@code residual}: the last of a residual branch (smaller scale). */
    private String batchNorm(String x, String name, int c, boolean residual) {
        long[] dims = {c};
        String scale = residual ? b.param(name + ".weight", dims, 0.2, 0.4) : b.param(name + ".weight", dims, 0.8, 1.2);
        String shift = b.param(name + ".bias", dims, 0.1);
        String mean = b.buffer(name + ".running_mean", dims, -0.1, 0.1);
        String var = b.buffer(name + ".running_var", dims, 0.8, 1.2);
        return b.onnx.node("BatchNormalization", name, List.of(x, scale, shift, mean, var), name,
                floating("epsilon", 1e-5f), floating("momentum", 0.9f));
    }

    private String relu(String x, String name) {
        return b.onnx.node("Relu", name, List.of(x), name);
    }
}
