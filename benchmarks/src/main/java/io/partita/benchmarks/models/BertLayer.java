package io.partita.benchmarks.models;

import static io.partita.benchmarks.onnx.OnnxWriter.floating;
import static io.partita.benchmarks.onnx.OnnxWriter.integer;
import static io.partita.benchmarks.onnx.OnnxWriter.ints;

import java.util.List;

/**
 * One BERT-base encoder layer as PyTorch (Hugging Face {@code BertLayer}) exports it at opset 17,
 * batch 1, sequence 128, hidden 768, 12 heads of 64, feed-forward 3072. Inputs: the hidden states
 * {@value #INPUT} {@code [1,128,768]} and the additive attention mask {@value #MASK}
 * {@code [1,1,1,128]} (0 where a token is attended, -10000 where it is padding); output
 * {@value #OUTPUT} {@code [1,128,768]}.
 *
 * <p>Nodes, in export order: Q, K and V as MatMul + Add(bias, ·), each Reshape to
 * {@code [1,128,12,64]} and Transpose to heads ({@code [0,2,1,3]}; the key straight to
 * {@code [0,2,3,1]}, i.e. already transposed for the product); MatMul, Div by sqrt(64), Add mask,
 * Softmax, MatMul; Transpose and Reshape back to {@code [1,128,768]}; output projection, residual
 * Add, LayerNormalization (epsilon 1e-12); FFN MatMul + Add, GELU in the Erf form PyTorch exports
 * ({@code x * (erf(x / sqrt 2) + 1) * 0.5}: Div, Erf, Add, Mul, Mul; opset 17 has no Gelu op, and
 * the importer translates these ops one by one), MatMul + Add, residual Add, LayerNormalization.
 * 34 nodes, 7,087,872 parameters.
 *
 * <p>Weights are seeded random: the linear layers Xavier-uniform ({@code ±sqrt(6 / (fan_in +
 * fan_out))}), biases ±0.1, LayerNorm scales in [0.9, 1.1] and shifts ±0.1; the hidden states
 * input is uniform with unit variance (as a LayerNorm output), so the attention scores have a
 * spread that makes the softmax neither uniform nor one-hot.
 */
public final class BertLayer {
    public static final String NAME = "bert_layer";
    public static final String INPUT = "hidden_states";
    public static final String MASK = "attention_mask";
    public static final String OUTPUT = "output";
    public static final int SEQ = 128;
    public static final int HIDDEN = 768;
    public static final int HEADS = 12;
    public static final int HEAD = 64;
    public static final int FFN = 3072;
    /** Tokens at the end of the sequence that the mask hides (padding). */
    public static final int PADDING = 16;

    private final NetBuilder b = new NetBuilder(NAME);

    private BertLayer() {
    }

    public static NetworkModel build() {
        return new BertLayer().model();
    }

    private NetworkModel model() {
        long[] hidden = {1, SEQ, HIDDEN};
        double unit = Math.sqrt(3); // uniform in ±sqrt(3) has variance 1
        String x = b.input(INPUT, hidden, b.uniform("hidden_states", SEQ * HIDDEN, -unit, unit));
        float[] maskValues = new float[SEQ];
        for (int i = SEQ - PADDING; i < SEQ; i++) {
            maskValues[i] = -10000f;
        }
        String mask = b.input(MASK, new long[] {1, 1, 1, SEQ}, maskValues);
        String headsShape = b.onnx.int64Initializer("heads_shape", new long[] {4}, new long[] {1, SEQ, HEADS, HEAD});
        String hiddenShape = b.onnx.int64Initializer("hidden_shape", new long[] {3}, hidden);

        String p = "attention.self.";
        String q = heads(linear(x, p + "query", HIDDEN, HIDDEN), "query", headsShape, 0, 2, 1, 3);
        String kt = heads(linear(x, p + "key", HIDDEN, HIDDEN), "key", headsShape, 0, 2, 3, 1);
        String v = heads(linear(x, p + "value", HIDDEN, HIDDEN), "value", headsShape, 0, 2, 1, 3);
        String scores = b.onnx.node("MatMul", "scores", List.of(q, kt), "scores");
        b.addFlops(2.0 * HEADS * SEQ * SEQ * HEAD);
        String sqrtHead = b.constant("sqrt_head", new long[0], new float[] {(float) Math.sqrt(HEAD)});
        String scaled = b.onnx.node("Div", "scale", List.of(scores, sqrtHead), "scaled");
        String masked = b.onnx.node("Add", "mask", List.of(scaled, mask), "masked");
        String probs = b.onnx.node("Softmax", "softmax", List.of(masked), "probs", integer("axis", -1));
        String context = b.onnx.node("MatMul", "context", List.of(probs, v), "context");
        b.addFlops(2.0 * HEADS * SEQ * SEQ * HEAD);
        String merged = b.onnx.node("Transpose", "context_t", List.of(context), "context_t", ints("perm", 0, 2, 1, 3));
        merged = b.onnx.node("Reshape", "context_merge", List.of(merged, hiddenShape), "context_merged");

        String attn = linear(merged, "attention.output.dense", HIDDEN, HIDDEN);
        String res1 = b.onnx.node("Add", "attention.output.residual", List.of(attn, x), "attention.residual");
        String ln1 = layerNorm(res1, "attention.output.LayerNorm");

        String h = linear(ln1, "intermediate.dense", HIDDEN, FFN);
        String g = gelu(h, "intermediate.gelu");
        String out = linear(g, "output.dense", FFN, HIDDEN);
        String res2 = b.onnx.node("Add", "output.residual", List.of(out, ln1), "output.residual");
        layerNormTo(res2, "output.LayerNorm", OUTPUT);
        return b.build("BERT-base encoder layer (Hugging Face BertLayer export), batch 1, sequence 128, hidden 768, "
                + "12 heads, FFN 3072, GELU as Erf, ONNX opset 17, seeded Xavier-scaled random weights", OUTPUT, hidden);
    }

    /** {@code x · W + b} as torch exports a Linear on a 3-D input: MatMul, then Add(bias, product). */
    private String linear(String x, String name, int in, int out) {
        String w = b.param(name + ".weight", new long[] {in, out}, Math.sqrt(6.0 / (in + out)));
        String bias = b.param(name + ".bias", new long[] {out}, 0.1);
        String mm = b.onnx.node("MatMul", name + ".matmul", List.of(x, w), name + ".matmul");
        b.addFlops(2.0 * SEQ * in * out);
        return b.onnx.node("Add", name + ".add", List.of(bias, mm), name);
    }

    /** {@code [1,S,768]} → {@code [1,S,12,64]} → transposed by {@code perm}. */
    private String heads(String x, String name, String shape, long... perm) {
        String r = b.onnx.node("Reshape", name + ".split_heads", List.of(x, shape), name + ".split");
        return b.onnx.node("Transpose", name + ".heads", List.of(r), name + ".heads", ints("perm", perm));
    }

    private String gelu(String x, String name) {
        String sqrt2 = b.constant(name + ".sqrt2", new long[0], new float[] {(float) Math.sqrt(2)});
        String one = b.constant(name + ".one", new long[0], new float[] {1f});
        String half = b.constant(name + ".half", new long[0], new float[] {0.5f});
        String d = b.onnx.node("Div", name + ".div", List.of(x, sqrt2), name + ".div");
        String e = b.onnx.node("Erf", name + ".erf", List.of(d), name + ".erf");
        String a = b.onnx.node("Add", name + ".add", List.of(e, one), name + ".add");
        String m = b.onnx.node("Mul", name + ".mul", List.of(x, a), name + ".mul");
        return b.onnx.node("Mul", name + ".half", List.of(m, half), name);
    }

    private String layerNorm(String x, String name) {
        return layerNormTo(x, name, name);
    }

    private String layerNormTo(String x, String name, String out) {
        long[] dims = {HIDDEN};
        String scale = b.param(name + ".weight", dims, 0.9, 1.1);
        String shift = b.param(name + ".bias", dims, 0.1);
        return b.onnx.node("LayerNormalization", name, List.of(x, scale, shift), out, integer("axis", -1),
                floating("epsilon", 1e-12f));
    }
}
