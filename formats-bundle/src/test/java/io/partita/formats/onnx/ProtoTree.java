package io.partita.formats.onnx;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;

/**
 * A protobuf message as an editable tree of fields, for structure-aware fuzzing of ONNX files. The
 * ONNX messages the importer reads are parsed into children (field numbers from onnx.proto); every
 * other length-delimited field stays bytes. Serializing an unedited tree gives back the same
 * message (field order kept; packed fields stay packed).
 */
public final class ProtoTree {
    /** The ONNX message types and, per field number, the message type of that field. */
    static final Map<String, Map<Integer, String>> SCHEMA = Map.of(
            "Model", Map.of(7, "Graph", 8, "OpsetId"),
            "Graph", Map.of(1, "Node", 5, "Tensor", 11, "ValueInfo", 12, "ValueInfo", 13, "ValueInfo"),
            "Node", Map.of(5, "Attribute"),
            "Attribute", Map.of(5, "Tensor", 6, "Graph", 10, "Tensor", 11, "Graph"),
            "ValueInfo", Map.of(2, "Type"),
            "Type", Map.of(1, "TensorType"),
            "TensorType", Map.of(2, "Shape"),
            "Shape", Map.of(1, "Dim"),
            "Tensor", Map.of(),
            "Dim", Map.of());

    /** One field occurrence. */
    public static final class Field {
        public int number;
        public int wireType;
        /** varint, fixed32 or fixed64 value */
        public long value;
        /** a length-delimited field that is not a parsed message */
        public byte[] bytes;
        /** a parsed ONNX message */
        public Msg child;

        Field copy() {
            Field f = new Field();
            f.number = number;
            f.wireType = wireType;
            f.value = value;
            f.bytes = bytes;
            f.child = child == null ? null : child.copy();
            return f;
        }
    }

    /** A message: its ONNX type name and its fields in file order. */
    public static final class Msg {
        public final String type;
        public final List<Field> fields = new ArrayList<>();

        Msg(String type) {
            this.type = type;
        }

        public Msg copy() {
            Msg m = new Msg(type);
            for (Field f : fields) {
                m.fields.add(f.copy());
            }
            return m;
        }

        /** The fields with this number. */
        public List<Field> all(int number) {
            return fields.stream().filter(f -> f.number == number).toList();
        }

        public byte[] toByteArray() {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            try {
                for (Field f : fields) {
                    switch (f.wireType) {
                        case WireFormat.WIRETYPE_VARINT -> out.writeUInt64(f.number, f.value);
                        case WireFormat.WIRETYPE_FIXED32 -> out.writeFixed32(f.number, (int) f.value);
                        case WireFormat.WIRETYPE_FIXED64 -> out.writeFixed64(f.number, f.value);
                        default -> out.writeByteArray(f.number, f.child != null ? f.child.toByteArray() : f.bytes);
                    }
                }
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return bytes.toByteArray();
        }

        /** This message and every message below it, depth first. */
        public List<Msg> all() {
            List<Msg> out = new ArrayList<>();
            collect(out);
            return out;
        }

        private void collect(List<Msg> out) {
            out.add(this);
            for (Field f : fields) {
                if (f.child != null) {
                    f.child.collect(out);
                }
            }
        }
    }

    private ProtoTree() {
    }

    /** Parses bytes as a message of an ONNX type; null when they are not a well-formed message. */
    public static Msg parse(byte[] bytes, String type) {
        try {
            return parse(CodedInputStream.newInstance(bytes), type);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static Msg parse(CodedInputStream in, String type) throws IOException {
        Map<Integer, String> children = SCHEMA.get(type);
        Msg m = new Msg(type);
        int tag;
        while ((tag = in.readTag()) != 0) {
            Field f = new Field();
            f.number = WireFormat.getTagFieldNumber(tag);
            f.wireType = WireFormat.getTagWireType(tag);
            switch (f.wireType) {
                case WireFormat.WIRETYPE_VARINT -> f.value = in.readRawVarint64();
                case WireFormat.WIRETYPE_FIXED32 -> f.value = in.readRawLittleEndian32() & 0xffffffffL;
                case WireFormat.WIRETYPE_FIXED64 -> f.value = in.readRawLittleEndian64();
                case WireFormat.WIRETYPE_LENGTH_DELIMITED -> {
                    byte[] b = in.readByteArray();
                    String childType = children.get(f.number);
                    f.child = childType == null ? null : parse(b, childType);
                    f.bytes = f.child == null ? b : null;
                }
                default -> throw new IOException("group wire types are not used by ONNX");
            }
            m.fields.add(f);
        }
        return m;
    }

    /** Reads the values of a packed (or single) varint field. */
    public static long[] packedVarints(Field f) {
        if (f.wireType == WireFormat.WIRETYPE_VARINT) {
            return new long[] {f.value};
        }
        List<Long> v = new ArrayList<>();
        try {
            CodedInputStream in = CodedInputStream.newInstance(f.bytes);
            while (!in.isAtEnd()) {
                v.add(in.readRawVarint64());
            }
        } catch (IOException e) {
            return new long[0];
        }
        return v.stream().mapToLong(Long::longValue).toArray();
    }

    /** Writes values into a field as a packed varint list. */
    public static void setPackedVarints(Field f, long[] values) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try {
            for (long v : values) {
                out.writeUInt64NoTag(v);
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        f.wireType = WireFormat.WIRETYPE_LENGTH_DELIMITED;
        f.bytes = bytes.toByteArray();
        f.child = null;
    }

    public static Field varint(int number, long value) {
        Field f = new Field();
        f.number = number;
        f.wireType = WireFormat.WIRETYPE_VARINT;
        f.value = value;
        return f;
    }

    public static Field bytes(int number, byte[] value) {
        Field f = new Field();
        f.number = number;
        f.wireType = WireFormat.WIRETYPE_LENGTH_DELIMITED;
        f.bytes = value;
        return f;
    }

    public static Field message(int number, Msg value) {
        Field f = new Field();
        f.number = number;
        f.wireType = WireFormat.WIRETYPE_LENGTH_DELIMITED;
        f.child = value;
        return f;
    }
}
