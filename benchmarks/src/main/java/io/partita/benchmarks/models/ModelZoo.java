package io.partita.benchmarks.models;

import static io.partita.benchmarks.onnx.OnnxWriter.floating;
import static io.partita.benchmarks.onnx.OnnxWriter.integer;
import static io.partita.benchmarks.onnx.OnnxWriter.ints;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Classic image classifiers in the form the ONNX model zoo publishes them: opset 9, batch 1,
 * {@code [1,3,224,224]} in, class scores out, written with that opset's operator versions
 * (Reshape-5 with its shape as an int64 initializer, BatchNormalization-9, MaxPool-8 without
 * {@code ceil_mode}, whose rounding up is written as extra end padding, Flatten-9, Gemm-9,
 * Softmax-1). Weights are seeded random, He-uniform for convolutions, so activations stay of order
 * one; what matters here is that every operator of the architecture imports, runs, and agrees with
 * ONNX Runtime.
 *
 * <ul>
 * <li>{@code zoo_squeezenet}: SqueezeNet 1.0 (fire modules: 1×1 squeeze, 1×1 and 3×3 expand
 * concatenated), global average pooling and Softmax;
 * <li>{@code zoo_shufflenet}: ShuffleNet v1, 3 groups: grouped 1×1 convolutions, channel shuffle as
 * Reshape → Transpose → Reshape on 5-D tensors, depthwise 3×3, average-pooled concatenated
 * shortcuts on the stride-2 units;
 * <li>{@code zoo_googlenet}: GoogLeNet (Inception v1, as Caffe's BVLC model: convolutions with bias
 * and ReLU, local response normalization after the first two convolutions, modules of a 1×1, a
 * 1×1 → 3×3, a 1×1 → 5×5 and a max-pooled 1×1 projection branch, concatenated; Dropout before the
 * classifier);
 * <li>{@code zoo_inception_v2}: Inception v2 (BN-Inception: every convolution followed by
 * BatchNormalization and ReLU; modules of a 1×1, a 1×1 → 3×3, a 1×1 → 3×3 → 3×3 and a pooled 1×1
 * projection branch, concatenated; two stride-2 modules passing the max-pooled input through);
 * <li>{@code zoo_densenet121}: DenseNet-121 (dense blocks of 6, 12, 24, 16 layers, growth 32,
 * BatchNormalization → ReLU → convolution layers, every layer's output concatenated, transitions
 * halving channels with 2×2 average pooling);
 * <li>{@code zoo_resnet50_v1}: ResNet-50 v1 (the stride on a downsampling bottleneck's first 1×1
 * convolution, BatchNormalization unfolded);
 * <li>{@code zoo_alexnet}, {@code zoo_zfnet512}, {@code zoo_vgg19} ({@link #largeNames()}): AlexNet
 * (BVLC, grouped convolutions, LRN), ZFNet-512 and VGG-19, each ending in two 4096-wide fully
 * connected layers.
 * </ul>
 */
public final class ModelZoo {
    /** The opset the model zoo's classic classifiers were published at. */
    public static final long OPSET = 9;
    public static final String INPUT = "data_0";
    public static final String OUTPUT = "prob";

    private static final Map<String, Supplier<NetworkModel>> BUILDERS = Map.of(
            "zoo_squeezenet", () -> new ModelZoo("zoo_squeezenet").squeezeNet(),
            "zoo_shufflenet", () -> new ModelZoo("zoo_shufflenet").shuffleNet(),
            "zoo_googlenet", () -> new ModelZoo("zoo_googlenet").googLeNet(),
            "zoo_inception_v2", () -> new ModelZoo("zoo_inception_v2").inceptionV2(),
            "zoo_densenet121", () -> new ModelZoo("zoo_densenet121").denseNet121(),
            "zoo_resnet50_v1", () -> new ModelZoo("zoo_resnet50_v1").resNet50V1(),
            "zoo_alexnet", () -> new ModelZoo("zoo_alexnet").alexNet(),
            "zoo_zfnet512", () -> new ModelZoo("zoo_zfnet512").zfNet512(),
            "zoo_vgg19", () -> new ModelZoo("zoo_vgg19").vgg19());

    /** A tensor being built: its name, channels and (square) spatial size. */
    private record T(String name, int c, int hw) {
    }

    private final NetBuilder b;
    private int count;

    private ModelZoo(String model) {
        this.b = new NetBuilder(model, OPSET);
    }

    /** The names, smallest first; {@link #largeNames()} are left out. */
    public static List<String> names() {
        return List.of("zoo_squeezenet", "zoo_shufflenet", "zoo_googlenet", "zoo_inception_v2", "zoo_densenet121",
                "zoo_resnet50_v1");
    }

    /**
     * The classifiers of 61 to 144 M parameters (0.25 to 0.6 GB of weights each), too heavy for a
     * unit test run; checked by hand ({@code anchors --cases zoo_vgg19 --verify}, README).
     */
    public static List<String> largeNames() {
        return List.of("zoo_alexnet", "zoo_zfnet512", "zoo_vgg19");
    }

    static Supplier<NetworkModel> builder(String name) {
        return BUILDERS.get(name);
    }

    private T input() {
        String x = b.input(INPUT, new long[] {1, 3, 224, 224}, b.uniform("input", 3 * 224 * 224, -1, 1));
        return new T(x, 3, 224);
    }

    // ------------------------------------------------------------------ SqueezeNet 1.0

    private NetworkModel squeezeNet() {
        T x = relu(conv(input(), 96, 7, 2, 0, 1, true));
        x = maxPool(x, 3, 2, 0, true);
        x = fire(x, 16, 64, 64);
        x = fire(x, 16, 64, 64);
        x = fire(x, 32, 128, 128);
        x = maxPool(x, 3, 2, 0, true);
        x = fire(x, 32, 128, 128);
        x = fire(x, 48, 192, 192);
        x = fire(x, 48, 192, 192);
        x = fire(x, 64, 256, 256);
        x = maxPool(x, 3, 2, 0, true);
        x = fire(x, 64, 256, 256);
        x = dropout(x, 0.5f);
        x = relu(conv(x, 1000, 1, 1, 0, 1, true));
        x = globalAveragePool(x);
        String flat = b.onnx.node("Flatten", next("flatten"), List.of(x.name()), next("flat"), integer("axis", 1));
        return finish(softmax(flat), 1000, "SqueezeNet 1.0");
    }

    private T fire(T x, int squeeze, int expand1, int expand3) {
        T s = relu(conv(x, squeeze, 1, 1, 0, 1, true));
        T e1 = relu(conv(s, expand1, 1, 1, 0, 1, true));
        T e3 = relu(conv(s, expand3, 3, 1, 1, 1, true));
        return concat(List.of(e1, e3));
    }

    // ------------------------------------------------------------------ ShuffleNet v1 (g = 3)

    private NetworkModel shuffleNet() {
        int g = 3;
        T x = relu(batchNorm(conv(input(), 24, 3, 2, 1, 1, false)));
        x = maxPool(x, 3, 2, 1, false);
        int[] outs = {240, 480, 960};
        int[] repeats = {4, 8, 4};
        for (int stage = 0; stage < outs.length; stage++) {
            for (int i = 0; i < repeats[stage]; i++) {
                x = shuffleUnit(x, outs[stage], i == 0 ? 2 : 1, g, !(stage == 0 && i == 0));
            }
        }
        x = globalAveragePool(x);
        String flat = b.onnx.node("Flatten", next("flatten"), List.of(x.name()), next("flat"), integer("axis", 1));
        String fc = gemm(flat, x.c(), 1000);
        return finish(softmax(fc), 1000, "ShuffleNet v1 (3 groups, 1x)");
    }

    private T shuffleUnit(T x, int out, int stride, int g, boolean groupedFirst) {
        int branchOut = stride == 2 ? out - x.c() : out;
        int mid = out / 4;
        T y = relu(batchNorm(conv(x, mid, 1, 1, 0, groupedFirst ? g : 1, false)));
        y = shuffle(y, g);
        y = batchNorm(conv(y, mid, 3, stride, 1, mid, false));
        y = batchNorm(conv(y, branchOut, 1, 1, 0, g, false), 0.2, 0.4); // a branch corrects, as trained ones do
        if (stride == 1) {
            return relu(new T(b.onnx.node("Add", next("add"), List.of(y.name(), x.name()), next("sum")), out, y.hw()));
        }
        T shortcut = averagePool(x, 3, 2, 1);
        return relu(concat(List.of(shortcut, y)));
    }

    /** Channel shuffle: {@code [1,c,h,w] → [1,g,c/g,h,w] → transpose(0,2,1,3,4) → [1,c,h,w]}. */
    private T shuffle(T x, int g) {
        String split = b.onnx.int64Initializer(next("shuffle_split_shape"), new long[] {5},
                new long[] {1, g, x.c() / g, x.hw(), x.hw()});
        String joined = b.onnx.int64Initializer(next("shuffle_join_shape"), new long[] {4},
                new long[] {1, x.c(), x.hw(), x.hw()});
        String r = b.onnx.node("Reshape", next("reshape"), List.of(x.name(), split), next("grouped"));
        String t = b.onnx.node("Transpose", next("transpose"), List.of(r), next("shuffled"), ints("perm", 0, 2, 1, 3, 4));
        return new T(b.onnx.node("Reshape", next("reshape"), List.of(t, joined), next("joined")), x.c(), x.hw());
    }

    // ------------------------------------------------------------------ GoogLeNet (Inception v1)

    private NetworkModel googLeNet() {
        T x = relu(conv(input(), 64, 7, 2, 3, 1, true));
        x = lrn(maxPool(x, 3, 2, 0, true));
        x = relu(conv(x, 64, 1, 1, 0, 1, true));
        x = maxPool(lrn(relu(conv(x, 192, 3, 1, 1, 1, true))), 3, 2, 0, true);
        x = inceptionV1(x, 64, 96, 128, 16, 32, 32);
        x = inceptionV1(x, 128, 128, 192, 32, 96, 64);
        x = maxPool(x, 3, 2, 0, true);
        x = inceptionV1(x, 192, 96, 208, 16, 48, 64);
        x = inceptionV1(x, 160, 112, 224, 24, 64, 64);
        x = inceptionV1(x, 128, 128, 256, 24, 64, 64);
        x = inceptionV1(x, 112, 144, 288, 32, 64, 64);
        x = inceptionV1(x, 256, 160, 320, 32, 128, 128);
        x = maxPool(x, 3, 2, 0, true);
        x = inceptionV1(x, 256, 160, 320, 32, 128, 128);
        x = inceptionV1(x, 384, 192, 384, 48, 128, 128);
        x = dropout(averagePool(x, x.hw(), 1, 0), 0.4f);
        String flat = b.onnx.node("Flatten", next("flatten"), List.of(x.name()), next("flat"), integer("axis", 1));
        String fc = gemm(flat, x.c(), 1000);
        return finish(softmax(fc), 1000, "GoogLeNet (Inception v1)");
    }

    private T inceptionV1(T x, int c1, int r3, int c3, int r5, int c5, int proj) {
        T b1 = relu(conv(x, c1, 1, 1, 0, 1, true));
        T b3 = relu(conv(relu(conv(x, r3, 1, 1, 0, 1, true)), c3, 3, 1, 1, 1, true));
        T b5 = relu(conv(relu(conv(x, r5, 1, 1, 0, 1, true)), c5, 5, 1, 2, 1, true));
        T bp = relu(conv(maxPool(x, 3, 1, 1, false), proj, 1, 1, 0, 1, true));
        return concat(List.of(b1, b3, b5, bp));
    }

    /** Caffe's local response normalization across 5 channels (LRN-1). */
    private T lrn(T x) {
        return new T(b.onnx.node("LRN", next("lrn"), List.of(x.name()), next("norm"), integer("size", 5),
                floating("alpha", 1e-4f), floating("beta", 0.75f), floating("bias", 1f)), x.c(), x.hw());
    }

    // ------------------------------------------------------------------ Inception v2 (BN-Inception)

    private NetworkModel inceptionV2() {
        T x = convBnRelu(input(), 64, 7, 2, 3);
        x = maxPool(x, 3, 2, 0, true); // Caffe's pooling rounds up: 112 -> 56
        x = convBnRelu(x, 64, 1, 1, 0);
        x = convBnRelu(x, 192, 3, 1, 1);
        x = maxPool(x, 3, 2, 0, true);
        // per module: 1x1, 3x3 reduce, 3x3, double-3x3 reduce, double 3x3, pool projection (0: pass
        // the max-pooled input through, stride 2), average (true) or max pooling
        x = inception(x, 64, 64, 64, 64, 96, 32, true);
        x = inception(x, 64, 64, 96, 64, 96, 64, true);
        x = inception(x, 0, 128, 160, 64, 96, 0, false);
        x = inception(x, 224, 64, 96, 96, 128, 128, true);
        x = inception(x, 192, 96, 128, 96, 128, 128, true);
        x = inception(x, 160, 128, 160, 128, 160, 128, true);
        x = inception(x, 96, 128, 192, 160, 192, 128, true);
        x = inception(x, 0, 128, 192, 192, 256, 0, false);
        x = inception(x, 352, 192, 320, 160, 224, 128, true);
        x = inception(x, 352, 192, 320, 192, 224, 128, false);
        x = averagePool(x, x.hw(), 1, 0);
        String flat = b.onnx.node("Flatten", next("flatten"), List.of(x.name()), next("flat"), integer("axis", 1));
        String fc = gemm(flat, x.c(), 1000);
        return finish(softmax(fc), 1000, "Inception v2 (BN-Inception)");
    }

    private T inception(T x, int c1, int r3, int c3, int rd, int cd, int proj, boolean average) {
        boolean reduce = proj == 0; // the stride-2 modules
        int stride = reduce ? 2 : 1;
        List<T> branches = new ArrayList<>();
        if (c1 > 0) {
            branches.add(convBnRelu(x, c1, 1, 1, 0));
        }
        branches.add(convBnRelu(convBnRelu(x, r3, 1, 1, 0), c3, 3, stride, 1));
        T d = convBnRelu(convBnRelu(x, rd, 1, 1, 0), cd, 3, 1, 1);
        branches.add(convBnRelu(d, cd, 3, stride, 1));
        if (reduce) {
            branches.add(maxPool(x, 3, 2, 1, false));
        } else {
            T pooled = average ? averagePool(x, 3, 1, 1) : maxPool(x, 3, 1, 1, false);
            branches.add(convBnRelu(pooled, proj, 1, 1, 0));
        }
        return concat(branches);
    }

    private T convBnRelu(T x, int cout, int k, int stride, int pad) {
        return relu(batchNorm(conv(x, cout, k, stride, pad, 1, false)));
    }

    // ------------------------------------------------------------------ DenseNet-121

    private NetworkModel denseNet121() {
        int growth = 32;
        T x = relu(batchNorm(conv(input(), 64, 7, 2, 3, 1, false)));
        x = maxPool(x, 3, 2, 1, false);
        int[] layers = {6, 12, 24, 16};
        for (int block = 0; block < layers.length; block++) {
            for (int i = 0; i < layers[block]; i++) {
                T y = conv(relu(batchNorm(x)), 4 * growth, 1, 1, 0, 1, false);
                y = conv(relu(batchNorm(y)), growth, 3, 1, 1, 1, false);
                x = concat(List.of(x, y));
            }
            if (block < layers.length - 1) {
                x = conv(relu(batchNorm(x)), x.c() / 2, 1, 1, 0, 1, false);
                x = averagePool(x, 2, 2, 0);
            }
        }
        x = globalAveragePool(relu(batchNorm(x)));
        String flat = b.onnx.node("Flatten", next("flatten"), List.of(x.name()), next("flat"), integer("axis", 1));
        String fc = gemm(flat, x.c(), 1000);
        return finish(softmax(fc), 1000, "DenseNet-121");
    }

    // ------------------------------------------------------------------ ResNet-50 v1

    /** ResNet-50 v1: the stride of a downsampling bottleneck on its first 1×1 convolution (v1.5 moves it). */
    private NetworkModel resNet50V1() {
        T x = relu(batchNorm(conv(input(), 64, 7, 2, 3, 1, false)));
        x = maxPool(x, 3, 2, 1, false);
        int[] blocks = {3, 4, 6, 3};
        for (int stage = 0; stage < blocks.length; stage++) {
            int width = 64 << stage;
            for (int i = 0; i < blocks[stage]; i++) {
                int stride = stage > 0 && i == 0 ? 2 : 1;
                T y = relu(batchNorm(conv(x, width, 1, stride, 0, 1, false)));
                y = relu(batchNorm(conv(y, width, 3, 1, 1, 1, false)));
                y = batchNorm(conv(y, width * 4, 1, 1, 0, 1, false), 0.2, 0.4); // a residual branch corrects
                T shortcut = i == 0 ? batchNorm(conv(x, width * 4, 1, stride, 0, 1, false)) : x;
                x = relu(new T(b.onnx.node("Add", next("add"), List.of(y.name(), shortcut.name()), next("sum")),
                        width * 4, y.hw()));
            }
        }
        x = globalAveragePool(x);
        String flat = b.onnx.node("Flatten", next("flatten"), List.of(x.name()), next("flat"), integer("axis", 1));
        return finish(softmax(gemm(flat, x.c(), 1000)), 1000, "ResNet-50 v1");
    }

    // ------------------------------------------------------------------ AlexNet, ZFNet-512, VGG-19

    /** BVLC AlexNet: grouped convolutions (2 groups) where it was split over two GPUs, LRN after the first two. */
    private NetworkModel alexNet() {
        T x = maxPool(lrn(relu(conv(input(), 96, 11, 4, 0, 1, true))), 3, 2, 0, true);
        x = maxPool(lrn(relu(conv(x, 256, 5, 1, 2, 2, true))), 3, 2, 0, true);
        x = relu(conv(x, 384, 3, 1, 1, 1, true));
        x = relu(conv(x, 384, 3, 1, 1, 2, true));
        x = maxPool(relu(conv(x, 256, 3, 1, 1, 2, true)), 3, 2, 0, true);
        return classifier(x, "AlexNet (BVLC)");
    }

    /** ZFNet-512: AlexNet's plan with a 7×7 stride-2 first convolution and 512-1024-512 wide later ones. */
    private NetworkModel zfNet512() {
        T x = maxPool(lrn(relu(conv(input(), 96, 7, 2, 1, 1, true))), 3, 2, 0, true);
        x = maxPool(lrn(relu(conv(x, 256, 5, 2, 0, 1, true))), 3, 2, 0, true);
        x = relu(conv(x, 512, 3, 1, 1, 1, true));
        x = relu(conv(x, 1024, 3, 1, 1, 1, true));
        x = maxPool(relu(conv(x, 512, 3, 1, 1, 1, true)), 3, 2, 0, true);
        return classifier(x, "ZFNet-512");
    }

    private NetworkModel vgg19() {
        T x = input();
        int[][] stages = {{64, 2}, {128, 2}, {256, 4}, {512, 4}, {512, 4}};
        for (int[] stage : stages) {
            for (int i = 0; i < stage[1]; i++) {
                x = relu(conv(x, stage[0], 3, 1, 1, 1, true));
            }
            x = maxPool(x, 2, 2, 0, false);
        }
        return classifier(x, "VGG-19");
    }

    /** Flatten, then two 4096-wide fully connected layers with ReLU and Dropout, then the 1000 classes. */
    private NetworkModel classifier(T x, String architecture) {
        String y = b.onnx.node("Flatten", next("flatten"), List.of(x.name()), next("flat"), integer("axis", 1));
        int in = x.c() * x.hw() * x.hw();
        for (int i = 0; i < 2; i++) {
            y = b.onnx.node("Relu", next("relu"), List.of(gemm(y, in, 4096)), next("relu_y"));
            y = b.onnx.node("Dropout", next("dropout"), List.of(y), next("drop"), floating("ratio", 0.5f));
            in = 4096;
        }
        return finish(softmax(gemm(y, in, 1000)), 1000, architecture);
    }

    // ------------------------------------------------------------------ layers

    private T conv(T x, int cout, int k, int stride, int pad, int group, boolean bias) {
        String name = next("conv");
        int fanIn = x.c() / group * k * k;
        String w = b.param(name + "_w", new long[] {cout, x.c() / group, k, k}, Math.sqrt(6.0 / fanIn));
        List<String> in = new ArrayList<>(List.of(x.name(), w));
        if (bias) {
            in.add(b.param(name + "_b", new long[] {cout}, 0.05));
        }
        String y = b.onnx.node("Conv", name, in, name + "_y", ints("kernel_shape", k, k), ints("pads", pad, pad, pad, pad),
                ints("strides", stride, stride), integer("group", group));
        int hw = (x.hw() + 2 * pad - k) / stride + 1;
        b.addFlops(2.0 * cout * fanIn * hw * hw);
        return new T(y, cout, hw);
    }

    private T batchNorm(T x) {
        return batchNorm(x, 0.8, 1.2);
    }

    /** Inference BatchNormalization with its scale uniform in {@code [scaleLo, scaleHi)}. */
    private T batchNorm(T x, double scaleLo, double scaleHi) {
        String name = next("bn");
        long[] dims = {x.c()};
        String scale = b.param(name + "_scale", dims, scaleLo, scaleHi);
        String shift = b.param(name + "_bias", dims, 0.1);
        String mean = b.buffer(name + "_mean", dims, -0.1, 0.1);
        String var = b.buffer(name + "_var", dims, 0.8, 1.2);
        return new T(b.onnx.node("BatchNormalization", name, List.of(x.name(), scale, shift, mean, var), name + "_y",
                floating("epsilon", 1e-5f), floating("momentum", 0.9f)), x.c(), x.hw());
    }

    private T relu(T x) {
        return new T(b.onnx.node("Relu", next("relu"), List.of(x.name()), next("relu_y")), x.c(), x.hw());
    }

    /**
     * Max pooling as MaxPool-8 writes it: without {@code ceil_mode}, a window count rounded up (the
     * frameworks' ceil mode, {@code ceil}) is one more pixel of end padding, which max pooling never
     * picks.
     */
    private T maxPool(T x, int k, int stride, int pad, boolean ceil) {
        int floor = (x.hw() + 2 * pad - k) / stride + 1;
        int up = (x.hw() + 2 * pad - k + stride - 1) / stride + 1;
        int extra = ceil && up > floor && (up - 1) * stride < x.hw() + pad ? 1 : 0;
        String y = b.onnx.node("MaxPool", next("maxpool"), List.of(x.name()), next("pool"), ints("kernel_shape", k, k),
                ints("pads", pad, pad, pad + extra, pad + extra), ints("strides", stride, stride));
        return new T(y, x.c(), floor + extra);
    }

    private T averagePool(T x, int k, int stride, int pad) {
        String y = b.onnx.node("AveragePool", next("avgpool"), List.of(x.name()), next("pool"), ints("kernel_shape", k, k),
                ints("pads", pad, pad, pad, pad), ints("strides", stride, stride), integer("count_include_pad", 0));
        return new T(y, x.c(), (x.hw() + 2 * pad - k) / stride + 1);
    }

    private T globalAveragePool(T x) {
        return new T(b.onnx.node("GlobalAveragePool", next("gap"), List.of(x.name()), next("gap_y")), x.c(), 1);
    }

    private T concat(List<T> parts) {
        int c = 0;
        for (T t : parts) {
            if (t.hw() != parts.get(0).hw()) {
                throw new IllegalStateException("concatenating " + parts + ": spatial sizes differ");
            }
            c += t.c();
        }
        return new T(b.onnx.node("Concat", next("concat"), parts.stream().map(T::name).toList(), next("cat"),
                integer("axis", 1)), c, parts.get(0).hw());
    }

    private T dropout(T x, float ratio) {
        // Dropout-7: an identity at inference
        return new T(b.onnx.node("Dropout", next("dropout"), List.of(x.name()), next("drop"), floating("ratio", ratio)),
                x.c(), x.hw());
    }

    private String gemm(String x, int in, int out) {
        String name = next("fc");
        String w = b.param(name + "_w", new long[] {out, in}, Math.sqrt(3.0 / in));
        String bias = b.param(name + "_b", new long[] {out}, 1 / Math.sqrt(in));
        b.addFlops(2.0 * in * out);
        return b.onnx.node("Gemm", name, List.of(x, w, bias), name + "_y", floating("alpha", 1), floating("beta", 1),
                integer("transB", 1));
    }

    private String softmax(String x) {
        // Softmax-1 coerces its input to 2-D at axis 1: the class scores of each image
        return b.onnx.node("Softmax", "softmax", List.of(x), OUTPUT, integer("axis", 1));
    }

    private NetworkModel finish(String out, int classes, String architecture) {
        return b.build(architecture + " as the ONNX model zoo publishes it: opset " + OPSET
                + ", batch 1, 3x224x224, seeded He-scaled random weights", out, new long[] {1, classes});
    }

    private String next(String kind) {
        return kind + "_" + count++;
    }
}
