package io.partita.formats.onnx.internal.proto;

import java.io.IOException;
import java.util.Arrays;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;

/**
 * One message being decoded: a {@link CodedInputStream} over its bytes plus the message path used
 * in error messages. Repeated scalar fields accept both the packed and the unpacked encoding, as
 * protobuf parsers must.
 */
final class Wire {
    private final CodedInputStream in;
    private final String source;
    private final String path;
    private int tag;

    private Wire(byte[] bytes, String source, String path) {
        this.in = CodedInputStream.newInstance(bytes);
        // Models can exceed the default 64 MB limit; the byte array bounds every read anyway.
        in.setSizeLimit(Integer.MAX_VALUE);
        this.source = source;
        this.path = path;
    }

    static Wire of(byte[] bytes, String source, String path) {
        return new Wire(bytes, source, path);
    }

    /** Advances to the next field; false at the end of the message. */
    boolean next() {
        try {
            tag = in.readTag();
            return tag != 0;
        } catch (IOException e) {
            throw malformed(e);
        }
    }

    int field() {
        return WireFormat.getTagFieldNumber(tag);
    }

    private int wireType() {
        return WireFormat.getTagWireType(tag);
    }

    void skip() {
        try {
            if (!in.skipField(tag)) {
                throw error("unexpected end-group tag of field " + field());
            }
        } catch (IOException e) {
            throw malformed(e);
        }
    }

    String string(String name) {
        expect(name, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        try {
            return in.readStringRequireUtf8();
        } catch (IOException e) {
            throw malformed(e);
        }
    }

    byte[] bytes(String name) {
        expect(name, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        try {
            return in.readByteArray();
        } catch (IOException e) {
            throw malformed(e);
        }
    }

    /** The bytes of an embedded message, decoded by the caller with a child {@link Wire}. */
    Wire message(String name, String childPath) {
        return new Wire(bytes(name), source, path + "." + childPath);
    }

    long int64(String name) {
        expect(name, WireFormat.WIRETYPE_VARINT);
        try {
            return in.readInt64();
        } catch (IOException e) {
            throw malformed(e);
        }
    }

    float float32(String name) {
        expect(name, WireFormat.WIRETYPE_FIXED32);
        try {
            return in.readFloat();
        } catch (IOException e) {
            throw malformed(e);
        }
    }

    /** Appends one or (packed) several varints of a repeated int64/int32/uint64 field. */
    void varints(String name, LongList into) {
        try {
            if (wireType() == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                int limit = in.pushLimit(in.readRawVarint32());
                while (in.getBytesUntilLimit() > 0) {
                    into.add(in.readRawVarint64());
                }
                in.popLimit(limit);
            } else {
                expect(name, WireFormat.WIRETYPE_VARINT);
                into.add(in.readRawVarint64());
            }
        } catch (IOException e) {
            throw malformed(e);
        }
    }

    /** Appends one or (packed) several fixed32 values of a repeated float field, as raw bits. */
    void fixed32s(String name, LongList into) {
        try {
            if (wireType() == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                int len = in.readRawVarint32();
                if (len % 4 != 0) {
                    throw error("packed field " + name + " has " + len + " bytes, not a multiple of 4");
                }
                int limit = in.pushLimit(len);
                while (in.getBytesUntilLimit() > 0) {
                    into.add(in.readRawLittleEndian32() & 0xffffffffL);
                }
                in.popLimit(limit);
            } else {
                expect(name, WireFormat.WIRETYPE_FIXED32);
                into.add(in.readRawLittleEndian32() & 0xffffffffL);
            }
        } catch (IOException e) {
            throw malformed(e);
        }
    }

    /** Appends one or (packed) several fixed64 values of a repeated double field, as raw bits. */
    void fixed64s(String name, LongList into) {
        try {
            if (wireType() == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                int len = in.readRawVarint32();
                if (len % 8 != 0) {
                    throw error("packed field " + name + " has " + len + " bytes, not a multiple of 8");
                }
                int limit = in.pushLimit(len);
                while (in.getBytesUntilLimit() > 0) {
                    into.add(in.readRawLittleEndian64());
                }
                in.popLimit(limit);
            } else {
                expect(name, WireFormat.WIRETYPE_FIXED64);
                into.add(in.readRawLittleEndian64());
            }
        } catch (IOException e) {
            throw malformed(e);
        }
    }

    private void expect(String name, int wireType) {
        if (wireType() != wireType) {
            throw error("field " + name + " (" + field() + ") has wire type " + wireType() + ", expected "
                    + wireType);
        }
    }

    String path() {
        return path;
    }

    OnnxFormatException error(String what) {
        return new OnnxFormatException(source + ": malformed " + path + ": " + what);
    }

    private OnnxFormatException malformed(IOException e) {
        String why = e instanceof InvalidProtocolBufferException && e.getMessage() != null ? e.getMessage()
                : e.toString();
        return new OnnxFormatException(source + ": malformed protobuf in " + path + " (after "
                + in.getTotalBytesRead() + " bytes): " + why, e);
    }

    /** A growable list of longs (values of repeated scalar fields). */
    static final class LongList {
        private long[] values = new long[8];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        int size() {
            return size;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }

        float[] toFloats() {
            float[] f = new float[size];
            for (int i = 0; i < size; i++) {
                f[i] = Float.intBitsToFloat((int) values[i]);
            }
            return f;
        }
    }
}
