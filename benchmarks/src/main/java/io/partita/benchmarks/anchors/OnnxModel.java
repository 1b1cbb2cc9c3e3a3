package io.partita.benchmarks.anchors;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import com.google.protobuf.CodedOutputStream;

/**
 * Writes the ONNX models of the anchor cases as protobuf bytes: protobuf-java's
 * {@link CodedOutputStream} encodes, the field numbers of the messages involved are named here
 * ({@code ModelProto}, {@code GraphProto}, {@code NodeProto}, {@code AttributeProto},
 * {@code TensorProto}, {@code ValueInfoProto} and the type messages). IR
 * version 8, default-domain opset 17; constant weights are {@code raw_data} initializers (little
 * endian f32) and are not listed as graph inputs, so ONNX Runtime treats them as constants.
 *
 * <p>Field numbers are those of {@code onnx.proto} (proto2); repeated scalars are written
 * unpacked, one tag per element.
 */
public final class OnnxModel {
    /** {@code ModelProto.ir_version}. */
    public static final long IR_VERSION = 8;
    /** Opset of the default ({@code ai.onnx}) domain. */
    public static final long OPSET = 17;
    /** Names of the single graph input and output. */
    public static final String INPUT = "X";
    public static final String OUTPUT = "Y";

    private static final int FLOAT = 1; // TensorProto.DataType.FLOAT
    private static final int ATTR_INT = 2; // AttributeProto.AttributeType.INT
    private static final int ATTR_INTS = 7; // AttributeProto.AttributeType.INTS

    private final List<byte[]> nodes = new ArrayList<>();
    private final List<byte[]> initializers = new ArrayList<>();
    private final List<byte[]> inputs = new ArrayList<>();
    private final List<byte[]> outputs = new ArrayList<>();

    private OnnxModel() {
    }

    /** The model computing {@code c} from input {@value #INPUT} to output {@value #OUTPUT}. */
    public static byte[] of(Case c) {
        OnnxModel m = new OnnxModel();
        m.inputs.add(valueInfo(INPUT, c.srcShape()));
        m.outputs.add(valueInfo(OUTPUT, c.outputShape()));
        switch (c) {
            case Case.MatMul mm -> {
                m.initializers.add(tensor("B", new long[] {mm.k(), mm.n()}, mm.weights()));
                m.nodes.add(node("MatMul", "matmul", List.of(INPUT, "B"), OUTPUT, List.of()));
            }
            case Case.Conv cv -> {
                m.initializers.add(tensor("W", cv.weightsShape(), cv.weights()));
                m.initializers.add(tensor("bias", new long[] {cv.k()}, cv.bias()));
                m.nodes.add(node("Conv", "conv", List.of(INPUT, "W", "bias"), OUTPUT, List.of(
                        ints("kernel_shape", cv.r(), cv.s()),
                        ints("pads", cv.pad(), cv.pad(), cv.pad(), cv.pad()),
                        ints("strides", cv.stride(), cv.stride()),
                        ints("dilations", 1, 1),
                        integer("group", 1))));
            }
            case Case.Mlp mlp -> {
                String in = INPUT;
                for (int l = 0; l < mlp.layers(); l++) {
                    String w = "W" + (l + 1);
                    String b = "b" + (l + 1);
                    m.initializers.add(tensor(w, new long[] {mlp.widths()[l], mlp.widths()[l + 1]}, mlp.weights(l)));
                    m.initializers.add(tensor(b, new long[] {mlp.widths()[l + 1]}, mlp.bias(l)));
                    boolean last = l == mlp.layers() - 1;
                    String gemmOut = last ? OUTPUT : "gemm" + (l + 1);
                    // Gemm: Y = A·B + C with B as [K,N] (transB = 0), C broadcast over rows
                    m.nodes.add(node("Gemm", "fc" + (l + 1), List.of(in, w, b), gemmOut,
                            List.of(integer("transA", 0), integer("transB", 0))));
                    if (mlp.relu(l)) {
                        String r = "relu" + (l + 1);
                        m.nodes.add(node("Relu", r, List.of(gemmOut), r, List.of()));
                        in = r;
                    } else {
                        in = gemmOut;
                    }
                }
            }
        }
        return m.model("partita_anchor_" + c.name());
    }

    /**
     * BERT-style attention with a symbolic batch {@code B} and sequence length {@code S}: inputs
     * {@code Q}, {@code K}, {@code V} [B,heads,S,head] and {@code mask} [B,1,1,S]; output
     * {@value #OUTPUT} [B,S,heads,head] = transpose(softmax(Q K^T / sqrt(head) + mask) V).
     */
    public static byte[] attention(long heads, long head) {
        OnnxModel m = new OnnxModel();
        Object[] qkv = {"B", heads, "S", head};
        for (String n : List.of("Q", "K", "V")) {
            m.inputs.add(symbolicValueInfo(n, qkv));
        }
        m.inputs.add(symbolicValueInfo("mask", new Object[] {"B", 1L, 1L, "S"}));
        m.outputs.add(symbolicValueInfo(OUTPUT, new Object[] {"B", "S", heads, head}));
        m.initializers.add(tensor("scale", new long[0], new float[] {(float) Math.sqrt(head)}));
        m.nodes.add(node("Transpose", "k_t", List.of("K"), "Kt", List.of(ints("perm", 0, 1, 3, 2))));
        m.nodes.add(node("MatMul", "qk", List.of("Q", "Kt"), "scores", List.of()));
        m.nodes.add(node("Div", "scale", List.of("scores", "scale"), "scaled", List.of()));
        m.nodes.add(node("Add", "mask", List.of("scaled", "mask"), "masked", List.of()));
        m.nodes.add(node("Softmax", "softmax", List.of("masked"), "probs", List.of(integer("axis", -1))));
        m.nodes.add(node("MatMul", "pv", List.of("probs", "V"), "context", List.of()));
        m.nodes.add(node("Transpose", "heads_last", List.of("context"), OUTPUT, List.of(ints("perm", 0, 2, 1, 3))));
        return m.model("partita_attention_dynamic");
    }

    /** A value info whose dims are numbers (dim_value) or names (dim_param, symbolic). */
    private static byte[] symbolicValueInfo(String name, Object[] dims) {
        Proto shapeP = new Proto();
        for (Object d : dims) {
            Proto dim = new Proto();
            if (d instanceof String param) {
                dim.string(2, param); // TensorShapeProto.Dimension.dim_param
            } else {
                dim.varint(1, (Long) d); // TensorShapeProto.Dimension.dim_value
            }
            shapeP.bytes(1, dim.toBytes());
        }
        Proto tensorType = new Proto();
        tensorType.varint(1, FLOAT);
        tensorType.bytes(2, shapeP.toBytes());
        Proto type = new Proto();
        type.bytes(1, tensorType.toBytes());
        Proto v = new Proto();
        v.string(1, name);
        v.bytes(2, type.toBytes());
        return v.toBytes();
    }

    private byte[] model(String graphName) {
        Proto g = new Proto();
        nodes.forEach(n -> g.bytes(1, n)); // GraphProto.node
        g.string(2, graphName); // GraphProto.name
        initializers.forEach(t -> g.bytes(5, t)); // GraphProto.initializer
        inputs.forEach(v -> g.bytes(11, v)); // GraphProto.input
        outputs.forEach(v -> g.bytes(12, v)); // GraphProto.output

        Proto opset = new Proto();
        opset.string(1, ""); // OperatorSetIdProto.domain: the default domain
        opset.varint(2, OPSET); // OperatorSetIdProto.version

        Proto m = new Proto();
        m.varint(1, IR_VERSION); // ModelProto.ir_version
        m.string(2, "partita-benchmarks"); // ModelProto.producer_name
        m.string(3, "0.1"); // ModelProto.producer_version
        m.bytes(7, g.toBytes()); // ModelProto.graph
        m.bytes(8, opset.toBytes()); // ModelProto.opset_import
        return m.toBytes();
    }

    private static byte[] node(String opType, String name, List<String> in, String out, List<byte[]> attrs) {
        Proto n = new Proto();
        in.forEach(s -> n.string(1, s)); // NodeProto.input
        n.string(2, out); // NodeProto.output
        n.string(3, name); // NodeProto.name
        n.string(4, opType); // NodeProto.op_type
        attrs.forEach(a -> n.bytes(5, a)); // NodeProto.attribute
        return n.toBytes();
    }

    private static byte[] integer(String name, long v) {
        Proto a = new Proto();
        a.string(1, name); // AttributeProto.name
        a.varint(3, v); // AttributeProto.i
        a.varint(20, ATTR_INT); // AttributeProto.type
        return a.toBytes();
    }

    private static byte[] ints(String name, long... vs) {
        Proto a = new Proto();
        a.string(1, name);
        for (long v : vs) {
            a.varint(8, v); // AttributeProto.ints
        }
        a.varint(20, ATTR_INTS);
        return a.toBytes();
    }

    private static byte[] tensor(String name, long[] dims, float[] data) {
        Proto t = new Proto();
        for (long d : dims) {
            t.varint(1, d); // TensorProto.dims
        }
        t.varint(2, FLOAT); // TensorProto.data_type
        t.string(8, name); // TensorProto.name
        ByteBuffer raw = ByteBuffer.allocate(data.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        raw.asFloatBuffer().put(data);
        t.bytes(9, raw.array()); // TensorProto.raw_data
        return t.toBytes();
    }

    private static byte[] valueInfo(String name, long[] shape) {
        return symbolicValueInfo(name, java.util.Arrays.stream(shape).boxed().toArray());
    }

    /** One message being written: protobuf-java's encoder over a byte buffer. */
    static final class Proto {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final CodedOutputStream coded = CodedOutputStream.newInstance(out);

        void varint(int field, long v) {
            write(() -> coded.writeInt64(field, v));
        }

        void string(int field, String s) {
            write(() -> coded.writeString(field, s));
        }

        void bytes(int field, byte[] b) {
            write(() -> coded.writeByteArray(field, b));
        }

        byte[] toBytes() {
            write(coded::flush);
            return out.toByteArray();
        }

        private interface Write {
            void run() throws IOException;
        }

        private static void write(Write w) {
            try {
                w.run();
            } catch (IOException e) {
                throw new UncheckedIOException("writing to memory cannot fail", e);
            }
        }
    }
}
