package io.partita.formats.onnx.internal.proto;

/** Decodes TensorProto (field numbers from onnx.proto). */
public final class TensorDecoder {
    private TensorDecoder() {
    }

    /** Decodes a standalone TensorProto file (the test data sets' input_N.pb / output_N.pb). */
    public static TensorProto decode(byte[] bytes, String source) {
        return decode(Wire.of(bytes, source, "TensorProto"));
    }

    static TensorProto decode(Wire w) {
        String name = "";
        int dataType = 0;
        Wire.LongList dims = new Wire.LongList();
        byte[] raw = null;
        Wire.LongList floats = new Wire.LongList();
        Wire.LongList int32 = new Wire.LongList();
        Wire.LongList int64 = new Wire.LongList();
        Wire.LongList doubles = new Wire.LongList();
        Wire.LongList uint64 = new Wire.LongList();
        int strings = 0;
        boolean external = false;
        while (w.next()) {
            switch (w.field()) {
                case 1 -> w.varints("dims", dims);
                case 2 -> dataType = (int) w.int64("data_type");
                case 4 -> w.fixed32s("float_data", floats);
                case 5 -> w.varints("int32_data", int32);
                case 6 -> {
                    w.bytes("string_data");
                    strings++;
                }
                case 7 -> w.varints("int64_data", int64);
                case 8 -> name = w.string("name");
                case 9 -> raw = w.bytes("raw_data");
                case 10 -> w.fixed64s("double_data", doubles);
                case 11 -> w.varints("uint64_data", uint64);
                case 14 -> external = w.int64("data_location") == 1;
                default -> w.skip(); // segment, doc_string, external_data entries, metadata
            }
        }
        long[] d = dims.toArray();
        for (int i = 0; i < d.length; i++) {
            if (d[i] < 0) {
                throw w.error("dims[" + i + "] = " + d[i] + " of tensor '" + name + "' is negative");
            }
        }
        return new TensorProto(name, dataType, d, raw, floats.toFloats(), int32.toArray(), int64.toArray(),
                doubles.toArray(), uint64.toArray(), strings, external);
    }
}
