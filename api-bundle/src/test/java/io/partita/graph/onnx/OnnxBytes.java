package io.partita.graph.onnx;

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
final class OnnxBytes {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CodedOutputStream out = CodedOutputStream.newInstance(bytes);

    static OnnxBytes message() {
        return new OnnxBytes();
    }

    OnnxBytes int64(int field, long v) {
        return write(() -> out.writeInt64(field, v));
    }

    OnnxBytes string(int field, String v) {
        return write(() -> out.writeString(field, v));
    }

    OnnxBytes bytes(int field, byte[] v) {
        return write(() -> out.writeByteArray(field, v));
    }

    OnnxBytes message(int field, OnnxBytes m) {
        return bytes(field, m.toByteArray());
    }

    OnnxBytes float32(int field, float v) {
        return write(() -> out.writeFloat(field, v));
    }

    byte[] toByteArray() {
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

    static OnnxBytes model(long opset, OnnxBytes graph) {
        return message().int64(1, 8).message(8, message().string(1, "").int64(2, opset)).message(7, graph);
    }

    /** A float tensor value info with concrete dims. */
    static OnnxBytes valueInfo(String name, int elemType, long... dims) {
        OnnxBytes shape = message();
        for (long d : dims) {
            shape.message(1, message().int64(1, d));
        }
        return message().string(1, name)
                .message(2, message().message(1, message().int64(1, elemType).message(2, shape)));
    }

    /** A tensor value info whose dims are numbers (dim_value) or names (dim_param). */
    static OnnxBytes valueInfoSymbolic(String name, int elemType, Object... dims) {
        OnnxBytes shape = message();
        for (Object d : dims) {
            shape.message(1, d instanceof String p ? message().string(2, p) : message().int64(1, (Long) d));
        }
        return message().string(1, name)
                .message(2, message().message(1, message().int64(1, elemType).message(2, shape)));
    }

    /** A FLOAT initializer with raw_data. */
    static OnnxBytes floatTensor(String name, long[] dims, float... values) {
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

    static OnnxBytes node(String opType, List<String> inputs, List<String> outputs, OnnxBytes... attrs) {
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

    static OnnxBytes intAttr(String name, long v) {
        return message().string(1, name).int64(20, 2).int64(3, v);
    }

    static OnnxBytes floatAttr(String name, float v) {
        return message().string(1, name).int64(20, 1).float32(2, v);
    }

    /** A graph: nodes, initializers, inputs, outputs in that order of the lists. */
    static OnnxBytes graph(List<OnnxBytes> nodes, List<OnnxBytes> inits, List<OnnxBytes> inputs,
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

    static List<OnnxBytes> list(OnnxBytes... items) {
        return new ArrayList<>(List.of(items));
    }
}
