package io.partita.formats.onnx.internal.proto;

import java.util.ArrayList;
import java.util.List;

/** Decodes GraphProto and ValueInfoProto with its TypeProto (field numbers from onnx.proto). */
final class GraphDecoder {
    private GraphDecoder() {
    }

    static GraphProto decode(Wire w) {
        String name = "";
        List<NodeProto> nodes = new ArrayList<>();
        List<TensorProto> inits = new ArrayList<>();
        int sparse = 0;
        List<ValueInfoProto> inputs = new ArrayList<>();
        List<ValueInfoProto> outputs = new ArrayList<>();
        List<ValueInfoProto> infos = new ArrayList<>();
        while (w.next()) {
            switch (w.field()) {
                case 1 -> nodes.add(NodeDecoder.decode(w.message("node", "node[" + nodes.size() + "]")));
                case 2 -> name = w.string("name");
                case 5 -> inits.add(TensorDecoder.decode(w.message("initializer", "initializer[" + inits.size() + "]")));
                case 11 -> inputs.add(valueInfo(w.message("input", "input[" + inputs.size() + "]")));
                case 12 -> outputs.add(valueInfo(w.message("output", "output[" + outputs.size() + "]")));
                case 13 -> infos.add(valueInfo(w.message("value_info", "value_info[" + infos.size() + "]")));
                case 15 -> {
                    w.skip();
                    sparse++;
                }
                default -> w.skip(); // doc_string, quantization annotations, metadata
            }
        }
        return new GraphProto(name, nodes, inits, sparse, inputs, outputs, infos);
    }

    static ValueInfoProto valueInfo(Wire w) {
        String name = "";
        ValueInfoProto type = null;
        while (w.next()) {
            switch (w.field()) {
                case 1 -> name = w.string("name");
                case 2 -> type = typeProto(w.message("type", "type"));
                default -> w.skip();
            }
        }
        if (type == null) {
            return new ValueInfoProto(name, 0, false, new long[0], new String[0], true);
        }
        return new ValueInfoProto(name, type.elemType(), type.hasShape(), type.dims(), type.dimParams(),
                type.tensorType());
    }

    /** TypeProto: only tensor_type (1) is a tensor; sequence, map, optional and sparse types are not. */
    private static ValueInfoProto typeProto(Wire w) {
        ValueInfoProto tensor = null;
        boolean other = false;
        while (w.next()) {
            if (w.field() == 1) {
                tensor = tensorType(w.message("tensor_type", "tensor_type"));
            } else if (w.field() == 6) {
                w.skip(); // denotation
            } else {
                other = true;
                w.skip();
            }
        }
        if (tensor == null) {
            return new ValueInfoProto("", 0, false, new long[0], new String[0], !other);
        }
        return tensor;
    }

    private static ValueInfoProto tensorType(Wire w) {
        int elem = 0;
        List<long[]> dims = null;
        List<String> params = null;
        while (w.next()) {
            switch (w.field()) {
                case 1 -> elem = (int) w.int64("elem_type");
                case 2 -> {
                    dims = new ArrayList<>();
                    params = new ArrayList<>();
                    shape(w.message("shape", "shape"), dims, params);
                }
                default -> w.skip();
            }
        }
        if (dims == null) {
            return new ValueInfoProto("", elem, false, new long[0], new String[0], true);
        }
        long[] d = new long[dims.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = dims.get(i)[0];
        }
        return new ValueInfoProto("", elem, true, d, params.toArray(new String[0]), true);
    }

    private static void shape(Wire w, List<long[]> dims, List<String> params) {
        while (w.next()) {
            if (w.field() != 1) {
                w.skip();
                continue;
            }
            Wire d = w.message("dim", "dim[" + dims.size() + "]");
            long value = -1;
            String param = null;
            while (d.next()) {
                switch (d.field()) {
                    case 1 -> value = d.int64("dim_value");
                    case 2 -> param = d.string("dim_param");
                    default -> d.skip();
                }
            }
            dims.add(new long[] {value});
            params.add(param);
        }
    }
}
