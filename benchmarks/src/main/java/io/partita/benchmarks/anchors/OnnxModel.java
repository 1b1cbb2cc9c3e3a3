package io.partita.benchmarks.anchors;

import static io.partita.benchmarks.onnx.OnnxWriter.integer;
import static io.partita.benchmarks.onnx.OnnxWriter.ints;

import java.util.List;

import io.partita.benchmarks.onnx.OnnxWriter;

/**
 * The ONNX models of the anchor cases, written by {@link OnnxWriter} (IR version
 * {@value OnnxWriter#IR_VERSION}, opset {@value OnnxWriter#OPSET}): the single-op cases' one-node
 * models, the network cases' models ({@link io.partita.benchmarks.models.Networks}) and the
 * attention model of the dynamic benchmark.
 */
public final class OnnxModel {
    /** {@code ModelProto.ir_version}. */
    public static final long IR_VERSION = OnnxWriter.IR_VERSION;
    /** Opset of the default ({@code ai.onnx}) domain. */
    public static final long OPSET = OnnxWriter.OPSET;
    /** Names of the single graph input and output of the single-op cases (and of the networks' first input and output). */
    public static final String INPUT = "X";
    public static final String OUTPUT = "Y";

    private OnnxModel() {
    }

    /** The model computing {@code c}; for the single-op cases from input {@value #INPUT} to output {@value #OUTPUT}. */
    public static byte[] of(Case c) {
        if (c instanceof Case.Network net) {
            return net.model().bytes();
        }
        OnnxWriter m = new OnnxWriter("partita_anchor_" + c.name());
        m.input(INPUT, c.srcShape());
        m.output(OUTPUT, c.outputShape());
        switch (c) {
            case Case.MatMul mm -> {
                m.initializer("B", new long[] {mm.k(), mm.n()}, mm.weights());
                m.node("MatMul", "matmul", List.of(INPUT, "B"), OUTPUT);
            }
            case Case.Conv cv -> {
                m.initializer("W", cv.weightsShape(), cv.weights());
                m.initializer("bias", new long[] {cv.k()}, cv.bias());
                m.node("Conv", "conv", List.of(INPUT, "W", "bias"), OUTPUT,
                        ints("kernel_shape", cv.r(), cv.s()),
                        ints("pads", cv.pad(), cv.pad(), cv.pad(), cv.pad()),
                        ints("strides", cv.stride(), cv.stride()),
                        ints("dilations", 1, 1),
                        integer("group", 1));
            }
            case Case.Mlp mlp -> {
                String in = INPUT;
                for (int l = 0; l < mlp.layers(); l++) {
                    String w = m.initializer("W" + (l + 1), new long[] {mlp.widths()[l], mlp.widths()[l + 1]}, mlp.weights(l));
                    String b = m.initializer("b" + (l + 1), new long[] {mlp.widths()[l + 1]}, mlp.bias(l));
                    boolean last = l == mlp.layers() - 1;
                    // Gemm: Y = A·B + C with B as [K,N] (transB = 0), C broadcast over rows
                    String gemmOut = m.node("Gemm", "fc" + (l + 1), List.of(in, w, b), last ? OUTPUT : "gemm" + (l + 1),
                            integer("transA", 0), integer("transB", 0));
                    in = mlp.relu(l) ? m.node("Relu", "relu" + (l + 1), List.of(gemmOut), "relu" + (l + 1)) : gemmOut;
                }
            }
            case Case.Network net -> throw new AssertionError("handled above: " + net.name());
        }
        return m.toBytes();
    }

    /**
     * BERT-style attention with a symbolic batch {@code B} and sequence length {@code S}: inputs
     * {@code Q}, {@code K}, {@code V} [B,heads,S,head] and {@code mask} [B,1,1,S]; output
     * {@value #OUTPUT} [B,S,heads,head] = transpose(softmax(Q K^T / sqrt(head) + mask) V).
     */
    public static byte[] attention(long heads, long head) {
        OnnxWriter m = new OnnxWriter("partita_attention_dynamic");
        Object[] qkv = {"B", heads, "S", head};
        for (String n : List.of("Q", "K", "V")) {
            m.input(n, qkv);
        }
        m.input("mask", new Object[] {"B", 1L, 1L, "S"});
        m.output(OUTPUT, new Object[] {"B", "S", heads, head});
        m.initializer("scale", new long[0], new float[] {(float) Math.sqrt(head)});
        m.node("Transpose", "k_t", List.of("K"), "Kt", ints("perm", 0, 1, 3, 2));
        m.node("MatMul", "qk", List.of("Q", "Kt"), "scores");
        m.node("Div", "scale", List.of("scores", "scale"), "scaled");
        m.node("Add", "mask", List.of("scaled", "mask"), "masked");
        m.node("Softmax", "softmax", List.of("masked"), "probs", integer("axis", -1));
        m.node("MatMul", "pv", List.of("probs", "V"), "context");
        m.node("Transpose", "heads_last", List.of("context"), OUTPUT, ints("perm", 0, 2, 1, 3));
        return m.toBytes();
    }
}
