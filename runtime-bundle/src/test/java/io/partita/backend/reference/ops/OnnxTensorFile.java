package io.partita.backend.reference.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the float tensors of the ONNX node-test corpus ({@code TensorProto}: dims = field 1,
 * data_type = field 2, float_data = field 4, raw_data = field 9, little-endian), enough to use
 * its golden inputs and outputs.
 */
record OnnxTensorFile(long[] dims, double[] data) {

    static OnnxTensorFile read(Path file) {
        byte[] b;
        try {
            b = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Long> dims = new ArrayList<>();
        long dataType = -1;
        byte[] raw = null;
        List<Float> floats = new ArrayList<>();
        int[] pos = {0};
        while (pos[0] < b.length) {
            long key = varint(b, pos);
            int field = (int) (key >>> 3);
            int wire = (int) (key & 7);
            switch (wire) {
                case 0 -> {
                    long v = varint(b, pos);
                    if (field == 1) {
                        dims.add(v);
                    } else if (field == 2) {
                        dataType = v;
                    }
                }
                case 1 -> pos[0] += 8;
                case 5 -> {
                    if (field == 4) {
                        floats.add(ByteBuffer.wrap(b, pos[0], 4).order(ByteOrder.LITTLE_ENDIAN).getFloat());
                    }
                    pos[0] += 4;
                }
                case 2 -> {
                    int len = (int) varint(b, pos);
                    int start = pos[0];
                    if (field == 1) {
                        int[] p = {start};
                        while (p[0] < start + len) {
                            dims.add(varint(b, p));
                        }
                    } else if (field == 4) {
                        ByteBuffer bb = ByteBuffer.wrap(b, start, len).order(ByteOrder.LITTLE_ENDIAN);
                        while (bb.remaining() >= 4) {
                            floats.add(bb.getFloat());
                        }
                    } else if (field == 9) {
                        raw = java.util.Arrays.copyOfRange(b, start, start + len);
                    }
                    pos[0] = start + len;
                }
                default -> throw new IllegalStateException(file + ": unsupported protobuf wire type " + wire);
            }
        }
        if (dataType != 1) {
            throw new IllegalStateException(file + ": data type " + dataType + ", only FLOAT (1) is read");
        }
        long n = 1;
        long[] d = new long[dims.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = dims.get(i);
            n *= d[i];
        }
        double[] v = new double[(int) n];
        if (raw != null) {
            ByteBuffer bb = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < v.length; i++) {
                v[i] = bb.getFloat();
            }
        } else {
            for (int i = 0; i < v.length; i++) {
                v[i] = floats.get(i);
            }
        }
        return new OnnxTensorFile(d, v);
    }

    private static long varint(byte[] b, int[] pos) {
        long r = 0;
        int shift = 0;
        while (true) {
            byte x = b[pos[0]++];
            r |= (long) (x & 0x7f) << shift;
            if ((x & 0x80) == 0) {
                return r;
            }
            shift += 7;
        }
    }
}
