package io.partita.formats.onnx;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import com.google.protobuf.CodedOutputStream;

/**
 * Writes small ONNX models for tests, field by field (numbers from onnx.proto), so each test can
 * break exactly one thing.
 */
public final class OnnxBytes {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CodedOutputStream out = CodedOutputStream.newInstance(bytes);

    public static OnnxBytes message() {
        return new OnnxBytes();
    }

    public OnnxBytes int64(int field, long v) {
        return write(() -> out.writeInt64(field, v));
    }

    public OnnxBytes string(int field, String v) {
        return write(() -> out.writeString(field, v));
    }

    public OnnxBytes bytes(int field, byte[] v) {
        return write(() -> out.writeByteArray(field, v));
    }

    public OnnxBytes message(int field, OnnxBytes m) {
        return bytes(field, m.toByteArray());
    }

    public OnnxBytes float32(int field, float v) {
        return write(() -> out.writeFloat(field, v));
    }

    /** A repeated varint field in packed encoding (one length-delimited record). */
    public OnnxBytes packedVarints(int field, long... values) {
        return write(() -> {
            int size = 0;
            for (long v : values) {
                size += CodedOutputStream.computeInt64SizeNoTag(v);
            }
            out.writeTag(field, com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(size);
            for (long v : values) {
                out.writeInt64NoTag(v);
            }
        });
    }

    public byte[] toByteArray() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private interface Io {
        void run() throws IOException;
    }

    private OnnxBytes write(Io w) {
        try {
            w.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    // ---------------------------------------------------------------- ONNX messages

    public static OnnxBytes model(long opset, OnnxBytes graph) {
        return message().int64(1, 8).message(8, message().string(1, "").int64(2, opset)).message(7, graph);
    }

    /** A float tensor value info with concrete dims. */
    public static OnnxBytes valueInfo(String name, int elemType, long... dims) {
        OnnxBytes shape = message();
        for (long d : dims) {
            shape.message(1, message().int64(1, d));
        }
        return message().string(1, name)
                .message(2, message().message(1, message().int64(1, elemType).message(2, shape)));
    }

    /** A tensor value info whose dims are numbers (dim_value) or names (dim_param). */
    public static OnnxBytes valueInfoSymbolic(String name, int elemType, Object... dims) {
        OnnxBytes shape = message();
        for (Object d : dims) {
            shape.message(1, d instanceof String p ? message().string(2, p) : message().int64(1, (Long) d));
        }
        return message().string(1, name)
                .message(2, message().message(1, message().int64(1, elemType).message(2, shape)));
    }

    /** A FLOAT initializer with raw_data. */
    public static OnnxBytes floatTensor(String name, long[] dims, float... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : values) {
            b.putFloat(f);
        }
        OnnxBytes t = message();
        for (long d : dims) {
            t.int64(1, d);
        }
        return t.int64(2, 1).string(8, name).bytes(9, b.array());
    }

    /** A tensor of any element type (ONNX number) with its values as raw_data bytes. */
    public static OnnxBytes rawTensor(String name, int elemType, long[] dims, byte[] raw) {
        OnnxBytes t = message();
        for (long d : dims) {
            t.int64(1, d);
        }
        return t.int64(2, elemType).string(8, name).bytes(9, raw);
    }

    /** An INT64 tensor with its values in int64_data (unpacked, as old exporters wrote them). */
    public static OnnxBytes int64Tensor(String name, long[] dims, long... values) {
        OnnxBytes t = message();
        for (long d : dims) {
            t.int64(1, d);
        }
        t.int64(2, 7).string(8, name);
        for (long v : values) {
            t.int64(7, v);
        }
        return t;
    }

    public static OnnxBytes node(String opType, List<String> inputs, List<String> outputs, OnnxBytes... attrs) {
        OnnxBytes n = message();
        for (String i : inputs) {
            n.string(1, i);
        }
        for (String o : outputs) {
            n.string(2, o);
        }
        n.string(3, opType.toLowerCase() + "_node").string(4, opType);
        for (OnnxBytes a : attrs) {
            n.message(5, a);
        }
        return n;
    }

    public static OnnxBytes intAttr(String name, long v) {
        return message().string(1, name).int64(20, 2).int64(3, v);
    }

    public static OnnxBytes floatAttr(String name, float v) {
        return message().string(1, name).int64(20, 1).float32(2, v);
    }

    /** An INTS attribute (values packed). */
    public static OnnxBytes intsAttr(String name, long... v) {
        return message().string(1, name).int64(20, 7).packedVarints(8, v);
    }

    /** An attribute of the given AttributeType number with only a name and that type (no value field). */
    public static OnnxBytes emptyAttr(String name, int type) {
        return message().string(1, name).int64(20, type);
    }

    /** A graph: nodes, initializers, inputs, outputs in that order of the lists. */
    public static OnnxBytes graph(List<OnnxBytes> nodes, List<OnnxBytes> inits, List<OnnxBytes> inputs,
            List<OnnxBytes> outputs) {
        OnnxBytes g = message().string(2, "g");
        for (OnnxBytes n : nodes) {
            g.message(1, n);
        }
        for (OnnxBytes t : inits) {
            g.message(5, t);
        }
        for (OnnxBytes i : inputs) {
            g.message(11, i);
        }
        for (OnnxBytes o : outputs) {
            g.message(12, o);
        }
        return g;
    }

    public static List<OnnxBytes> list(OnnxBytes... items) {
        return new ArrayList<>(List.of(items));
    }
}
