package io.partita.benchmarks.onnx;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.google.protobuf.CodedOutputStream;

/**
 * Builds one ONNX model and writes it as protobuf bytes: the benchmarks' only ONNX writer (the
 * anchor cases' single-op models, the attention model of the dynamic benchmark and the network
 * models all go through it). protobuf-java's {@link CodedOutputStream} encodes; the field numbers
 * of the messages involved are named here ({@code ModelProto}, {@code GraphProto},
 * {@code NodeProto}, {@code AttributeProto}, {@code TensorProto}, {@code ValueInfoProto} and the
 * type messages). IR version {@value #IR_VERSION}, default-domain opset {@value #OPSET}; weights
 * are {@code raw_data} initializers (little endian) and are not listed as graph inputs, so ONNX
 * Runtime treats them as constants.
 *
 * <p>Nodes are encoded as they are added, so a graph of hundreds of nodes keeps no builder objects
 * alive; each value name may be produced once (by an initializer, a graph input or a node), which
 * {@link #node} checks so a typo in a model builder fails where it is made.
 *
 * <p>Field numbers are those of {@code onnx.proto} (proto2); repeated scalars are written
 * unpacked, one tag per element.
 */
public final class OnnxWriter {
    /** {@code ModelProto.ir_version}. */
    public static final long IR_VERSION = 8;
    /** Opset of the default ({@code ai.onnx}) domain. */
    public static final long OPSET = 17;

    private static final int FLOAT = 1; // TensorProto.DataType.FLOAT
    private static final int INT64 = 7; // TensorProto.DataType.INT64
    private static final int ATTR_FLOAT = 1; // AttributeProto.AttributeType.FLOAT
    private static final int ATTR_INT = 2; // AttributeProto.AttributeType.INT
    private static final int ATTR_INTS = 7; // AttributeProto.AttributeType.INTS

    private final String graphName;
    private final long opset;
    private final List<byte[]> nodes = new ArrayList<>();
    private final List<byte[]> initializers = new ArrayList<>();
    private final List<byte[]> inputs = new ArrayList<>();
    private final List<byte[]> outputs = new ArrayList<>();
    private final Set<String> defined = new HashSet<>();
    private final List<String> outputNames = new ArrayList<>();
    private long initializerElements;

    /** An attribute of a node, already encoded. */
    public record Attribute(byte[] bytes) {
    }

    public OnnxWriter(String graphName) {
        this(graphName, OPSET);
    }

    /** A model importing {@code opset} of the default domain (the model zoo's classics are opset 9). */
    public OnnxWriter(String graphName, long opset) {
        if (opset < 1 || opset > OPSET) {
            throw new IllegalArgumentException("opset " + opset + ": expected 1 to " + OPSET);
        }
        this.graphName = graphName;
        this.opset = opset;
    }

    /** A graph input of element type f32 with fixed dims. */
    public OnnxWriter input(String name, long... shape) {
        return input(name, Arrays.stream(shape).boxed().toArray());
    }

    /** A graph input of element type f32 whose dims are numbers (dim_value) or names (dim_param, symbolic). */
    public OnnxWriter input(String name, Object[] dims) {
        define(name);
        inputs.add(valueInfo(name, dims));
        return this;
    }

    /** A graph output of element type f32 with fixed dims; some node must produce it. */
    public OnnxWriter output(String name, long... shape) {
        return output(name, Arrays.stream(shape).boxed().toArray());
    }

    public OnnxWriter output(String name, Object[] dims) {
        outputNames.add(name);
        outputs.add(valueInfo(name, dims));
        return this;
    }

    /** An f32 initializer (a constant); returns its name. */
    public String initializer(String name, long[] dims, float[] data) {
        checkCount(name, dims, data.length);
        define(name);
        ByteBuffer raw = ByteBuffer.allocate(data.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        raw.asFloatBuffer().put(data);
        initializers.add(tensor(name, dims, FLOAT, raw.array()));
        initializerElements += data.length;
        return name;
    }

    /** An int64 initializer (shapes for {@code Reshape}, axes); returns its name. */
    public String int64Initializer(String name, long[] dims, long[] data) {
        checkCount(name, dims, data.length);
        define(name);
        ByteBuffer raw = ByteBuffer.allocate(data.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        raw.asLongBuffer().put(data);
        initializers.add(tensor(name, dims, INT64, raw.array()));
        initializerElements += data.length;
        return name;
    }

    /**
     * A node of the default domain with one output. Every input must have been defined (an empty
     * name is ONNX's "optional input absent"); returns the output's name.
     */
    public String node(String opType, String name, List<String> in, String out, Attribute... attrs) {
        for (String i : in) {
            if (!i.isEmpty() && !defined.contains(i)) {
                throw new IllegalArgumentException("node " + name + " (" + opType + ") reads " + i
                        + ", which no initializer, graph input or earlier node defines");
            }
        }
        define(out);
        Proto n = new Proto();
        in.forEach(s -> n.string(1, s)); // NodeProto.input
        n.string(2, out); // NodeProto.output
        n.string(3, name); // NodeProto.name
        n.string(4, opType); // NodeProto.op_type
        for (Attribute a : attrs) {
            n.bytes(5, a.bytes()); // NodeProto.attribute
        }
        nodes.add(n.toBytes());
        return out;
    }

    /** Nodes added so far. */
    public int nodeCount() {
        return nodes.size();
    }

    /** Elements of all initializers added so far. */
    public long initializerElements() {
        return initializerElements;
    }

    /** The {@code ModelProto} bytes. */
    public byte[] toBytes() {
        for (String o : outputNames) {
            if (!defined.contains(o)) {
                throw new IllegalStateException("graph " + graphName + " lists output " + o + ", which nothing produces");
            }
        }
        Proto g = new Proto();
        nodes.forEach(n -> g.bytes(1, n)); // GraphProto.node
        g.string(2, graphName); // GraphProto.name
        initializers.forEach(t -> g.bytes(5, t)); // GraphProto.initializer
        inputs.forEach(v -> g.bytes(11, v)); // GraphProto.input
        outputs.forEach(v -> g.bytes(12, v)); // GraphProto.output

        Proto opset = new Proto();
        opset.string(1, ""); // OperatorSetIdProto.domain: the default domain
        opset.varint(2, this.opset); // OperatorSetIdProto.version

        Proto m = new Proto();
        m.varint(1, IR_VERSION); // ModelProto.ir_version
        m.string(2, "partita-benchmarks"); // ModelProto.producer_name
        m.string(3, "0.1"); // ModelProto.producer_version
        m.bytes(7, g.toBytes()); // ModelProto.graph
        m.bytes(8, opset.toBytes()); // ModelProto.opset_import
        return m.toBytes();
    }

    // ---------------------------------------------------------------- attributes

    public static Attribute integer(String name, long v) {
        Proto a = new Proto();
        a.string(1, name); // AttributeProto.name
        a.varint(3, v); // AttributeProto.i
        a.varint(20, ATTR_INT); // AttributeProto.type
        return new Attribute(a.toBytes());
    }

    public static Attribute ints(String name, long... vs) {
        Proto a = new Proto();
        a.string(1, name);
        for (long v : vs) {
            a.varint(8, v); // AttributeProto.ints
        }
        a.varint(20, ATTR_INTS);
        return new Attribute(a.toBytes());
    }

    public static Attribute floating(String name, float v) {
        Proto a = new Proto();
        a.string(1, name);
        a.fixed32(2, Float.floatToRawIntBits(v)); // AttributeProto.f
        a.varint(20, ATTR_FLOAT);
        return new Attribute(a.toBytes());
    }

    // ---------------------------------------------------------------- encoding

    private void define(String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a value of graph " + graphName + " needs a non-empty name");
        }
        if (!defined.add(name)) {
            throw new IllegalArgumentException("value " + name + " of graph " + graphName + " is defined twice");
        }
    }

    private static void checkCount(String name, long[] dims, int count) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        if (n != count) {
            throw new IllegalArgumentException("initializer " + name + " has dims " + Arrays.toString(dims) + " ("
                    + n + " elements) but " + count + " values");
        }
    }

    private static byte[] tensor(String name, long[] dims, int dataType, byte[] raw) {
        Proto t = new Proto();
        for (long d : dims) {
            t.varint(1, d); // TensorProto.dims
        }
        t.varint(2, dataType); // TensorProto.data_type
        t.string(8, name); // TensorProto.name
        t.bytes(9, raw); // TensorProto.raw_data
        return t.toBytes();
    }

    private static byte[] valueInfo(String name, Object[] dims) {
        Proto shape = new Proto();
        for (Object d : dims) {
            Proto dim = new Proto();
            if (d instanceof String param) {
                dim.string(2, param); // TensorShapeProto.Dimension.dim_param
            } else {
                dim.varint(1, ((Number) d).longValue()); // TensorShapeProto.Dimension.dim_value
            }
            shape.bytes(1, dim.toBytes());
        }
        Proto tensorType = new Proto();
        tensorType.varint(1, FLOAT); // TypeProto.Tensor.elem_type
        tensorType.bytes(2, shape.toBytes()); // TypeProto.Tensor.shape
        Proto type = new Proto();
        type.bytes(1, tensorType.toBytes()); // TypeProto.tensor_type
        Proto v = new Proto();
        v.string(1, name); // ValueInfoProto.name
        v.bytes(2, type.toBytes()); // ValueInfoProto.type
        return v.toBytes();
    }

    /** One message being written: protobuf-java's encoder over a byte buffer. */
    private static final class Proto {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final CodedOutputStream coded = CodedOutputStream.newInstance(out);

        void varint(int field, long v) {
            write(() -> coded.writeInt64(field, v));
        }

        void fixed32(int field, int v) {
            write(() -> coded.writeFixed32(field, v));
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
