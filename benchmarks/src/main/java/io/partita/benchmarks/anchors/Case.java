package io.partita.benchmarks.anchors;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One workload of the anchor benchmark: its kind, dimensions, FLOP count and its data. All tensors
 * are f32, dense, row-major (C order) in the layouts documented on each record, and are generated
 * from a seed derived from the case name and the tensor's role, so every contender (in every child
 * JVM) sees bit-identical inputs and weights.
 *
 * <p>Weights and biases are constants: a contender may transform (prepack) them in
 * {@link Contender#prepare}, untimed. The activation input ({@link #src()}) is also set up in
 * {@code prepare}; {@link Contender#runOnce} computes {@link #outputShape()} from it.
 */
public sealed interface Case permits Case.MatMul, Case.Conv, Case.Mlp, Case.Network {

    /** Stable identifier, used on the command line of the child JVM and in result lines. */
    String name();

    /** The family, as selected with {@code --cases}: {@code matmul}, {@code conv}, {@code mlp} or {@code network}. */
    String kind();

    /** Floating-point operations of one inference (multiply and add counted separately). */
    double flops();

    /** Shape of the activation input returned by {@link #src()}. */
    long[] srcShape();

    /** Shape of the output, row-major. */
    long[] outputShape();

    /** The activation input, row-major in {@link #srcShape()}. A fresh array on each call. */
    default float[] src() {
        return uniform(this, "src", Math.toIntExact(count(srcShape())), 1.0);
    }

    /**
     * Reference values of the output at the given flat indices, computed in double precision.
     *
     * @throws IllegalStateException when the case has none ({@link #hasReference()} is false)
     */
    double[] reference(int[] indices);

    /** Whether {@link #reference} computes the output here; the network cases are checked against ONNX Runtime instead. */
    default boolean hasReference() {
        return true;
    }

    /** Number of output elements. */
    default int outputSize() {
        return Math.toIntExact(count(outputShape()));
    }

    /**
     * {@code C[M,N] = A[M,K] · B[K,N]}. {@code A} ({@link #src()}) is the activation; {@code B}
     * ({@link #weights()}) is constant, row-major {@code [K,N]}.
     */
    record MatMul(int m, int k, int n) implements Case {
        public String name() {
            return "matmul_" + m + "x" + k + "x" + n;
        }

        public String kind() {
            return "matmul";
        }

        public double flops() {
            return 2.0 * m * k * n;
        }

        public long[] srcShape() {
            return new long[] {m, k};
        }

        public long[] outputShape() {
            return new long[] {m, n};
        }

        /** Constant {@code B}, row-major {@code [K,N]}. */
        public float[] weights() {
            return uniform(this, "weights", k * n, Math.sqrt(3.0 / k));
        }

        public double[] reference(int[] indices) {
            float[] a = src();
            float[] b = weights();
            double[] out = new double[indices.length];
            for (int t = 0; t < indices.length; t++) {
                int i = indices[t] / n;
                int j = indices[t] % n;
                double s = 0;
                for (int p = 0; p < k; p++) {
                    s += (double) a[i * k + p] * b[p * n + j];
                }
                out[t] = s;
            }
            return out;
        }
    }

    /**
     * 2-D convolution (cross-correlation, as in ONNX {@code Conv} and oneDNN), no dilation, one
     * group. Source NCHW {@code [n,c,h,w]}; weights OIHW {@code [k,c,r,s]}; bias {@code [k]};
     * output NCHW {@code [n,k,oh,ow]}.
     */
    record Conv(int n, int c, int h, int w, int k, int r, int s, int pad, int stride) implements Case {
        public String name() {
            return "conv_n" + n + "c" + c + "h" + h + "w" + w + "k" + k + "r" + r + "s" + s + "p" + pad + "s" + stride;
        }

        public String kind() {
            return "conv";
        }

        public int oh() {
            return (h + 2 * pad - r) / stride + 1;
        }

        public int ow() {
            return (w + 2 * pad - s) / stride + 1;
        }

        public double flops() {
            return 2.0 * n * k * c * r * s * oh() * ow();
        }

        public long[] srcShape() {
            return new long[] {n, c, h, w};
        }

        public long[] outputShape() {
            return new long[] {n, k, oh(), ow()};
        }

        public long[] weightsShape() {
            return new long[] {k, c, r, s};
        }

        /** Constant weights, OIHW {@code [k,c,r,s]}. */
        public float[] weights() {
            return uniform(this, "weights", k * c * r * s, Math.sqrt(3.0 / (c * r * s)));
        }

        /** Constant bias {@code [k]}. */
        public float[] bias() {
            return uniform(this, "bias", k, 0.1);
        }

        public double[] reference(int[] indices) {
            float[] x = src();
            float[] wt = weights();
            float[] b = bias();
            int oh = oh();
            int ow = ow();
            double[] out = new double[indices.length];
            for (int t = 0; t < indices.length; t++) {
                int idx = indices[t];
                int ox = idx % ow;
                int oy = (idx / ow) % oh;
                int ko = (idx / (ow * oh)) % k;
                int ni = idx / (ow * oh * k);
                double acc = b[ko];
                for (int ci = 0; ci < c; ci++) {
                    for (int ry = 0; ry < r; ry++) {
                        int iy = oy * stride - pad + ry;
                        if (iy < 0 || iy >= h) {
                            continue;
                        }
                        for (int sx = 0; sx < s; sx++) {
                            int ix = ox * stride - pad + sx;
                            if (ix < 0 || ix >= w) {
                                continue;
                            }
                            acc += (double) x[((ni * c + ci) * h + iy) * w + ix] * wt[((ko * c + ci) * r + ry) * s + sx];
                        }
                    }
                }
                out[t] = acc;
            }
            return out;
        }
    }

    /**
     * A multi-layer perceptron {@code x → relu(x·W1+b1) → relu(·W2+b2) → ·W3+b3} (no activation
     * after the last layer). {@code widths} = input width followed by each layer's output width.
     * Layer {@code i} (0-based) has weights row-major {@code [widths[i], widths[i+1]]} and bias
     * {@code [widths[i+1]]}.
     */
    record Mlp(int batch, int[] widths) implements Case {
        public String name() {
            StringBuilder sb = new StringBuilder("mlp_b").append(batch);
            for (int i = 0; i < widths.length; i++) {
                sb.append(i == 0 ? "_" : "-").append(widths[i]);
            }
            return sb.toString();
        }

        public String kind() {
            return "mlp";
        }

        public int layers() {
            return widths.length - 1;
        }

        public double flops() {
            double f = 0;
            for (int i = 0; i < layers(); i++) {
                f += 2.0 * batch * widths[i] * widths[i + 1];
            }
            return f;
        }

        public long[] srcShape() {
            return new long[] {batch, widths[0]};
        }

        public long[] outputShape() {
            return new long[] {batch, widths[layers()]};
        }

        /** Constant weights of layer {@code i}, row-major {@code [widths[i], widths[i+1]]}. */
        public float[] weights(int i) {
            return uniform(this, "w" + (i + 1), widths[i] * widths[i + 1], Math.sqrt(6.0 / widths[i]));
        }

        /** Constant bias of layer {@code i}, {@code [widths[i+1]]}. */
        public float[] bias(int i) {
            return uniform(this, "b" + (i + 1), widths[i + 1], 0.1);
        }

        /** Whether layer {@code i} is followed by ReLU (all but the last). */
        public boolean relu(int i) {
            return i < layers() - 1;
        }

        public double[] reference(int[] indices) {
            float[] x = src();
            double[] act = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                act[i] = x[i];
            }
            for (int l = 0; l < layers(); l++) {
                int kIn = widths[l];
                int nOut = widths[l + 1];
                float[] wt = weights(l);
                float[] b = bias(l);
                double[] next = new double[batch * nOut];
                for (int i = 0; i < batch; i++) {
                    for (int j = 0; j < nOut; j++) {
                        next[i * nOut + j] = b[j];
                    }
                    for (int p = 0; p < kIn; p++) {
                        double av = act[i * kIn + p];
                        int row = p * nOut;
                        int o = i * nOut;
                        for (int j = 0; j < nOut; j++) {
                            next[o + j] += av * wt[row + j];
                        }
                    }
                    if (relu(l)) {
                        for (int j = 0; j < nOut; j++) {
                            next[i * nOut + j] = Math.max(0, next[i * nOut + j]);
                        }
                    }
                }
                act = next;
            }
            double[] out = new double[indices.length];
            for (int t = 0; t < indices.length; t++) {
                out[t] = act[indices[t]];
            }
            return out;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Mlp m && m.batch == batch && java.util.Arrays.equals(m.widths, widths);
        }

        @Override
        public int hashCode() {
            return 31 * batch + java.util.Arrays.hashCode(widths);
        }

        @Override
        public String toString() {
            return name();
        }
    }

    /**
     * A whole network ({@link io.partita.benchmarks.models.Networks}): an ONNX model with seeded
     * weights, run by each contender from the model's bytes. {@link #src()} is the model's first
     * input; {@link #inputs()} lists them all (BERT's layer also has its attention mask). There is
     * no double-precision reference here (a ResNet-50 in double precision would take minutes):
     * Partita's outputs are compared with ONNX Runtime's.
     */
    record Network(String name) implements Case {
        public io.partita.benchmarks.models.NetworkModel model() {
            return io.partita.benchmarks.models.Networks.get(name);
        }

        public String kind() {
            return "network";
        }

        public double flops() {
            return model().flops();
        }

        public long[] srcShape() {
            return model().inputs().get(0).shape();
        }

        public long[] outputShape() {
            return model().output().shape();
        }

        @Override
        public float[] src() {
            return model().inputs().get(0).values().clone();
        }

        /** The model's inputs with their values, in model order. */
        public List<io.partita.benchmarks.models.NetworkModel.Input> inputs() {
            return model().inputs();
        }

        @Override
        public boolean hasReference() {
            return false;
        }

        public double[] reference(int[] indices) {
            throw new IllegalStateException("network case " + name + " has no double-precision reference: its outputs are "
                    + "checked against ONNX Runtime's");
        }
    }

    /** The standard cases, in report order. */
    static List<Case> standard() {
        List<Case> l = new ArrayList<>();
        l.add(new MatMul(1, 1024, 1024));
        l.add(new MatMul(64, 1024, 1024));
        l.add(new MatMul(256, 1024, 4096));
        l.add(new MatMul(1024, 1024, 1024));
        l.add(new MatMul(2048, 2048, 2048));
        l.add(new Conv(1, 64, 56, 56, 64, 3, 3, 1, 1));
        l.add(new Mlp(64, new int[] {784, 1024, 1024, 10}));
        for (String n : io.partita.benchmarks.models.Networks.names()) {
            l.add(new Network(n));
        }
        return l;
    }

    /** {@link Conv#name()}'s form, for convolution cases named on the command line. */
    Pattern AD_HOC_CONV = Pattern.compile(
            "conv_n(\\d{1,4})c(\\d{1,5})h(\\d{1,5})w(\\d{1,5})k(\\d{1,5})r(\\d{1,2})s(\\d{1,2})p(\\d{1,2})s(\\d{1,2})");

    /** {@link MatMul#name()}'s form, for matmul cases named on the command line (e.g. a network's layers). */
    Pattern AD_HOC_MATMUL = Pattern.compile("matmul_(\\d{1,5})x(\\d{1,5})x(\\d{1,5})");

    /** Whether {@code name} has the form of a matmul or convolution case named by its shape. */
    static boolean isShapeName(String name) {
        return AD_HOC_MATMUL.matcher(name).matches() || AD_HOC_CONV.matcher(name).matches();
    }

    /**
     * The standard case with this {@link #name()}, the model zoo classifier of that name, or the
     * matmul or convolution the name describes ({@link #isShapeName}).
     */
    static Case byName(String name) {
        Map<String, Case> m = new LinkedHashMap<>();
        for (Case c : standard()) {
            m.put(c.name(), c);
        }
        Case c = m.get(name);
        if (c == null && (io.partita.benchmarks.models.ModelZoo.names().contains(name)
                || io.partita.benchmarks.models.ModelZoo.largeNames().contains(name))) {
            return new Network(name);
        }
        Matcher mm = AD_HOC_MATMUL.matcher(name);
        if (c == null && mm.matches()) {
            int[] v = {Integer.parseInt(mm.group(1)), Integer.parseInt(mm.group(2)), Integer.parseInt(mm.group(3))};
            if (v[0] < 1 || v[1] < 1 || v[2] < 1) {
                throw new IllegalArgumentException("case " + name + ": expected positive M, K and N");
            }
            return new MatMul(v[0], v[1], v[2]);
        }
        Matcher conv = AD_HOC_CONV.matcher(name);
        if (c == null && conv.matches()) {
            // any convolution shape, named as Conv.name() prints it: per-layer comparisons of a network
            int[] v = new int[9];
            for (int i = 0; i < v.length; i++) {
                v[i] = Integer.parseInt(conv.group(i + 1));
            }
            if (v[0] < 1 || v[1] < 1 || v[4] < 1 || v[5] < 1 || v[6] < 1 || v[8] < 1
                    || v[2] + 2 * v[7] < v[5] || v[3] + 2 * v[7] < v[6]) {
                throw new IllegalArgumentException("case " + name + ": expected positive sizes and a kernel no larger"
                        + " than the padded image");
            }
            return new Conv(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
        }
        if (c == null) {
            throw new IllegalArgumentException("unknown case " + name + "; known: " + m.keySet()
                    + ", any matmul_<M>x<K>x<N>, any conv_n<N>c<C>h<H>w<W>k<K>r<R>s<S>p<pad>s<stride> and the model zoo's");
        }
        return c;
    }

    /** A short human-readable label, e.g. {@code matmul 64x1024x1024}. */
    default String label() {
        return switch (this) {
            case MatMul mm -> String.format(Locale.ROOT, "matmul %dx%dx%d", mm.m(), mm.k(), mm.n());
            case Conv cv -> String.format(Locale.ROOT, "conv n%d c%d %dx%d k%d %dx%d p%d s%d",
                    cv.n(), cv.c(), cv.h(), cv.w(), cv.k(), cv.r(), cv.s(), cv.pad(), cv.stride());
            case Mlp mlp -> {
                StringBuilder sb = new StringBuilder("mlp b").append(mlp.batch()).append(' ');
                for (int i = 0; i < mlp.widths().length; i++) {
                    sb.append(i == 0 ? "" : "-").append(mlp.widths()[i]);
                }
                yield sb.toString();
            }
            case Network net -> switch (net.name()) {
                case io.partita.benchmarks.models.ResNet50.NAME -> "resnet50 b1 3x224x224";
                case io.partita.benchmarks.models.BertLayer.NAME -> "bert_layer b1 s128 h768";
                default -> net.name();
            };
        };
    }

    /**
     * Flat output indices checked by {@code anchors --verify}: the first and last element and
     * {@code count - 2} seeded random ones (with repetition, if the output is small).
     */
    default int[] sampleIndices(int count) {
        int size = outputSize();
        int[] idx = new int[Math.min(count, size)];
        SplittableRandom rnd = new SplittableRandom(seed(this, "sample"));
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i == 0 ? 0 : i == 1 ? size - 1 : rnd.nextInt(size);
        }
        return idx;
    }

    private static long count(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return n;
    }

    private static long seed(Case c, String role) {
        long h = 0x9E3779B97F4A7C15L;
        for (char ch : (c.name() + "/" + role).toCharArray()) {
            h = (h ^ ch) * 0x100000001B3L;
        }
        return h;
    }

    /** {@code n} values uniform in {@code [-scale, scale)}, seeded by case name and role. */
    private static float[] uniform(Case c, String role, int n, double scale) {
        SplittableRandom rnd = new SplittableRandom(seed(c, role));
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) ((rnd.nextDouble() * 2 - 1) * scale);
        }
        return a;
    }
}
