package io.partita.formats.onnx.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.formats.onnx.UnsupportedOnnxException;
import io.partita.formats.onnx.internal.proto.TensorProto;
import io.partita.graph.DataType;

/**
 * Turns a decoded TensorProto into an {@link OnnxTensor}: picks the data field the element type
 * uses (raw_data, or the typed field) and re-encodes it densely in Partita's element encoding.
 */
public final class TensorValues {
    private TensorValues() {
    }

    /**
     * @param where names the tensor's place in messages (e.g. "initializer 'W'")
     * @throws UnsupportedOnnxException for element types Partita has no data type for
     * @throws OnnxImportException for unknown types, external data, or a value count that does not match the dims
     */
    public static OnnxTensor toTensor(TensorProto t, String source, String where) {
        if (!OnnxTypes.known(t.dataType())) {
            throw new OnnxImportException(source + ": " + where + " has unknown data type " + t.dataType()
                    + "; expected an ONNX TensorProto.DataType (1 to 26)");
        }
        DataType dt = OnnxTypes.toPartita(t.dataType());
        if (dt == null) {
            throw UnsupportedOnnxException.ofItem(where, 0,
                    "data type " + OnnxTypes.name(t.dataType()) + " has no Partita data type");
        }
        if (t.external()) {
            throw UnsupportedOnnxException.ofItem(where, 0,
                    "values stored outside the model file (data_location EXTERNAL) are not read; embed them");
        }
        String what = source + ": " + where + " " + OnnxTypes.name(t.dataType()) + dimsText(t.dims());
        long n = 1;
        for (int i = 0; i < t.dims().length; i++) {
            long d = t.dims()[i];
            if (d < 0) {
                throw new OnnxImportException(what + ": dim " + i + " is " + d + "; expected >= 0");
            }
            try {
                n = Math.multiplyExact(n, d);
            } catch (ArithmeticException e) {
                throw new OnnxImportException(what + " has more than 2^63-1 elements");
            }
        }
        if (n > Integer.MAX_VALUE - 8) {
            throw new OnnxImportException(what + " has " + n + " elements; at most " + (Integer.MAX_VALUE - 8)
                    + " are supported");
        }
        int count = (int) n;
        long bytes = dt.byteSize(count);
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new OnnxImportException(what + " has " + n + " elements, " + bytes + " bytes; at most "
                    + (Integer.MAX_VALUE - 8) + " bytes are supported");
        }
        // Before allocating: a model may declare huge dims and ship no (or too few) values.
        if (t.rawData() != null) {
            if (t.rawData().length != bytes) {
                throw new OnnxImportException(what + " has " + n + " elements but " + t.rawData().length
                        + " bytes of raw_data; expected " + bytes);
            }
        } else {
            checkStored(t, count, what);
        }
        byte[] out = new byte[(int) bytes];
        MemorySegment dst = MemorySegment.ofArray(out);
        if (t.rawData() != null) {
            // ONNX raw_data is little-endian, packed as Partita packs (4-bit: low nibble first).
            System.arraycopy(t.rawData(), 0, out, 0, out.length);
            return new OnnxTensor(t.name(), dt, t.dims(), out);
        }
        switch (t.dataType()) {
            case OnnxTypes.FLOAT -> {
                for (int i = 0; i < count; i++) {
                    dst.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, t.floatData()[i]);
                }
            }
            case OnnxTypes.INT64, OnnxTypes.DOUBLE, OnnxTypes.UINT64 -> {
                // 64-bit words as stored; double_data holds the raw IEEE bits (the decoder keeps the
                // fixed64 words as they are).
                long[] words = t.dataType() == OnnxTypes.INT64 ? t.int64Data()
                        : t.dataType() == OnnxTypes.DOUBLE ? t.doubleData() : t.uint64Data();
                for (int i = 0; i < count; i++) {
                    dst.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, words[i]);
                }
            }
            case OnnxTypes.INT32 -> {
                for (int i = 0; i < count; i++) {
                    dst.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) t.int32Data()[i]);
                }
            }
            case OnnxTypes.FLOAT16, OnnxTypes.BFLOAT16, OnnxTypes.INT16, OnnxTypes.UINT16 -> {
                // Stored as their 16 bits (or the 16-bit integer's value), one element per int32_data entry.
                for (int i = 0; i < count; i++) {
                    dst.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) t.int32Data()[i]);
                }
            }
            case OnnxTypes.INT8, OnnxTypes.UINT8, OnnxTypes.BOOL, OnnxTypes.FLOAT8E4M3FN, OnnxTypes.FLOAT8E5M2 -> {
                for (int i = 0; i < count; i++) {
                    out[i] = (byte) t.int32Data()[i];
                }
            }
            case OnnxTypes.INT4, OnnxTypes.UINT4 -> {
                // Two elements per int32_data entry (low nibble first), as in raw_data.
                for (int i = 0; i < out.length; i++) {
                    out[i] = (byte) t.int32Data()[i];
                }
            }
            default -> throw new IllegalStateException("no decoding for " + OnnxTypes.name(t.dataType()));
        }
        return new OnnxTensor(t.name(), dt, t.dims(), out);
    }

    /** The typed data field this element type uses must hold exactly the values the dims call for. */
    private static void checkStored(TensorProto t, int count, String what) {
        String field = switch (t.dataType()) {
            case OnnxTypes.FLOAT -> "float_data";
            case OnnxTypes.INT64 -> "int64_data";
            case OnnxTypes.DOUBLE -> "double_data";
            case OnnxTypes.UINT64 -> "uint64_data";
            case OnnxTypes.INT32, OnnxTypes.FLOAT16, OnnxTypes.BFLOAT16, OnnxTypes.INT8, OnnxTypes.UINT8, OnnxTypes.BOOL,
                    OnnxTypes.FLOAT8E4M3FN, OnnxTypes.FLOAT8E5M2, OnnxTypes.INT16, OnnxTypes.UINT16, OnnxTypes.INT4,
                    OnnxTypes.UINT4 -> "int32_data";
            default -> throw new IllegalStateException("no decoding for " + OnnxTypes.name(t.dataType()));
        };
        int have = switch (field) {
            case "float_data" -> t.floatData().length;
            case "int64_data" -> t.int64Data().length;
            case "double_data" -> t.doubleData().length;
            case "uint64_data" -> t.uint64Data().length;
            default -> t.int32Data().length;
        };
        // 4-bit types: two elements per int32_data entry (low nibble first), as in raw_data.
        int expected = t.dataType() == OnnxTypes.INT4 || t.dataType() == OnnxTypes.UINT4 ? (count + 1) / 2 : count;
        if (have != expected) {
            throw new OnnxImportException(what + " has " + count + " elements but " + have + " values in " + field
                    + "; expected " + expected);
        }
    }

    static String dimsText(long[] dims) {
        return io.partita.graph.LogicalTensor.dimsToString(dims);
    }
}
