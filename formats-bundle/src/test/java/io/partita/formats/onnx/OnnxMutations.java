package io.partita.formats.onnx;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import io.partita.formats.ByteMutations;
import io.partita.formats.FuzzLoop;
import io.partita.formats.onnx.ProtoTree.Field;
import io.partita.formats.onnx.ProtoTree.Msg;

/**
 * Mutations of ONNX files at the protobuf level (the fields the importer reads: dims, data types,
 * raw data, attribute types and values, node inputs and op types, opsets, the graph's lists) and at
 * the byte level. Seeds are the ONNX node tests of the corpus: each {@code model.onnx} and the
 * {@code TensorProto} files of its test data set (which also serve as initializers to add).
 */
final class OnnxMutations {
    private static final long[] INTERESTING = {0, 1, -1, 2, 3, 4, 7, 8, 13, 16, 17, 25, 26, 27, 64, 255, 256, 1023,
        1L << 16, Integer.MAX_VALUE, Integer.MIN_VALUE, 1L << 31, 1L << 32, 1L << 40, 1L << 62, -(1L << 62),
        Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1};

    /** A seed model: file name, bytes, parsed tree, and its test data tensors (bytes and trees). */
    record Seed(String name, byte[] bytes, Msg model, List<byte[]> tensorBytes, List<Msg> tensors) {
    }

    final List<Seed> seeds = new ArrayList<>();
    private final List<Msg> allNodes = new ArrayList<>();
    private final List<Msg> allAttributes = new ArrayList<>();
    private final List<Msg> allTensors = new ArrayList<>();
    private final List<String> opTypes;
    private final List<String> names;

    /** The seeds that import as they are: most mutations start from these, to reach the translators. */
    private final List<Seed> importable = new ArrayList<>();

    /** @param imports whether a model's bytes import (seeds that do not are mutated less often) */
    OnnxMutations(Path onnxNodeDir, java.util.function.Predicate<byte[]> imports) {
        List<Path> models;
        try (Stream<Path> s = Files.walk(onnxNodeDir)) {
            models = s.filter(p -> p.getFileName().toString().equals("model.onnx")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> ops = new LinkedHashSet<>();
        Set<String> nameSet = new LinkedHashSet<>();
        for (Path p : models) {
            byte[] b = read(p);
            Msg tree = ProtoTree.parse(b, "Model");
            if (tree == null) {
                throw new IllegalStateException("corpus model " + p + " is not a protobuf message");
            }
            List<byte[]> tb = new ArrayList<>();
            List<Msg> tt = new ArrayList<>();
            Path data = p.resolveSibling("test_data_set_0");
            if (Files.isDirectory(data)) {
                try (Stream<Path> s = Files.list(data)) {
                    for (Path t : s.filter(f -> f.toString().endsWith(".pb")).sorted().toList()) {
                        byte[] x = read(t);
                        Msg m = ProtoTree.parse(x, "Tensor");
                        if (m != null) {
                            tb.add(x);
                            tt.add(m);
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            String name = onnxNodeDir.relativize(p).toString();
            Seed seed = new Seed(name, b, tree, tb, tt);
            seeds.add(seed);
            if (imports.test(b)) {
                importable.add(seed);
            }
            allTensors.addAll(tt);
            for (Msg m : tree.all()) {
                switch (m.type) {
                    case "Node" -> {
                        allNodes.add(m);
                        for (Field f : m.all(4)) {
                            ops.add(text(f));
                        }
                        for (Field f : m.fields) {
                            if (f.number == 1 || f.number == 2) {
                                nameSet.add(text(f));
                            }
                        }
                    }
                    case "Attribute" -> allAttributes.add(m);
                    case "Tensor" -> allTensors.add(m);
                    default -> {
                    }
                }
            }
        }
        // Op types the importer knows but the node tests may not use.
        ops.addAll(List.of("Constant", "ConstantOfShape", "Shape", "Size", "Slice", "Concat", "Reshape", "Flatten",
                "Squeeze", "Unsqueeze", "Identity", "Cast", "CastLike", "Gemm", "Neg", "Reciprocal", "Erf", "Gelu",
                "Sum", "Max", "Min", "Abs", "Exp", "ReduceMax", "ReduceMin", "ReduceSum", "ReduceProd", "Foo"));
        opTypes = List.copyOf(ops);
        names = List.copyOf(nameSet);
        if (seeds.isEmpty()) {
            throw new IllegalStateException("no model.onnx under " + onnxNodeDir);
        }
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(Field f) {
        return f.bytes == null ? "" : new String(f.bytes, StandardCharsets.UTF_8);
    }

    private static <T> T pick(Random r, List<T> l) {
        return l.isEmpty() ? null : l.get(r.nextInt(l.size()));
    }

    /** ONNX element types with a Partita data type (the others are refused at once). */
    private static final long[] MAPPED_TYPES = {1, 2, 3, 6, 7, 9, 10, 16, 17, 19, 21, 22};

    private static long dataType(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> r.nextInt(30);
            case 1 -> interesting(r);
            default -> MAPPED_TYPES[r.nextInt(MAPPED_TYPES.length)];
        };
    }

    private static long interesting(Random r) {
        return r.nextInt(4) == 0 ? r.nextInt(40) - 4 : INTERESTING[r.nextInt(INTERESTING.length)];
    }

    // ---------------------------------------------------------------- models

    /** A mutated model. */
    FuzzLoop.Input model(Random r) {
        Seed seed = r.nextInt(5) > 0 && !importable.isEmpty() ? pick(r, importable) : pick(r, seeds);
        StringBuilder log = new StringBuilder();
        byte[] out;
        if (r.nextInt(5) == 0) {
            out = seed.bytes();
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) {
                log.append(i > 0 ? "+" : "");
                out = ByteMutations.mutate(out, pick(r, seeds).bytes(), r, log);
            }
        } else {
            Msg m = seed.model().copy();
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) {
                log.append(i > 0 ? "+" : "");
                mutateModel(m, seed, r, log);
            }
            out = m.toByteArray();
            if (r.nextInt(8) == 0) {
                log.append('+');
                out = ByteMutations.mutate(out, pick(r, seeds).bytes(), r, log);
            }
        }
        return new FuzzLoop.Input(out, seed.name(), log.toString(), "onnx");
    }

    /** A mutated TensorProto file (the test data sets' input_N.pb). */
    FuzzLoop.Input tensor(Random r) {
        Seed seed;
        do {
            seed = pick(r, seeds);
        } while (seed.tensors().isEmpty());
        int i = r.nextInt(seed.tensors().size());
        StringBuilder log = new StringBuilder();
        byte[] out;
        if (r.nextInt(4) == 0) {
            out = ByteMutations.mutate(seed.tensorBytes().get(i), pick(r, seeds).bytes(), r, log);
        } else {
            Msg t = seed.tensors().get(i).copy();
            int n = 1 + r.nextInt(3);
            for (int k = 0; k < n; k++) {
                log.append(k > 0 ? "+" : "");
                mutateTensor(t, r, log);
            }
            out = t.toByteArray();
        }
        return new FuzzLoop.Input(out, seed.name() + " test_data_set_0 tensor " + i, log.toString(), "pb");
    }

    private void mutateModel(Msg model, Seed seed, Random r, StringBuilder log) {
        List<Msg> all = model.all();
        switch (r.nextInt(10)) {
            case 0 -> varint(all, r, log);
            case 1 -> {
                List<Msg> shapes = all.stream().filter(m -> m.type.equals("Shape")).toList();
                List<Msg> tensors = all.stream().filter(m -> m.type.equals("Tensor")).toList();
                if (!tensors.isEmpty() && (shapes.isEmpty() || r.nextBoolean())) {
                    tensorDims(pick(r, tensors), r, log);
                } else if (!shapes.isEmpty()) {
                    shape(pick(r, shapes), r, log);
                } else {
                    varint(all, r, log);
                }
            }
            case 2 -> {
                List<Msg> typed = all.stream().filter(m -> m.type.equals("Tensor") || m.type.equals("TensorType"))
                        .toList();
                Msg m = pick(r, typed);
                if (m == null) {
                    varint(all, r, log);
                    return;
                }
                int field = m.type.equals("Tensor") ? 2 : 1;
                long v = dataType(r);
                m.fields.removeIf(f -> f.number == field);
                m.fields.add(ProtoTree.varint(field, v));
                log.append("onnx.dtype(").append(m.type).append('=').append(v).append(')');
            }
            case 3 -> {
                List<Msg> tensors = all.stream().filter(m -> m.type.equals("Tensor")).toList();
                if (tensors.isEmpty()) {
                    addInitializer(model, seed, r, log);
                } else {
                    tensorData(pick(r, tensors), r, log);
                }
            }
            case 4 -> name(model, r, log);
            case 5 -> attribute(all, r, log);
            case 6 -> opset(model, r, log);
            case 7 -> node(model, r, log);
            case 8 -> graph(model, seed, r, log);
            default -> splice(all, r, log);
        }
    }

    private void mutateTensor(Msg t, Random r, StringBuilder log) {
        switch (r.nextInt(4)) {
            case 0 -> tensorDims(t, r, log);
            case 1 -> {
                long v = dataType(r);
                t.fields.removeIf(f -> f.number == 2);
                t.fields.add(ProtoTree.varint(2, v));
                log.append("onnx.dtype(Tensor=").append(v).append(')');
            }
            case 2 -> tensorData(t, r, log);
            default -> varint(List.of(t), r, log);
        }
    }

    /** Any varint field anywhere (ir_version, data types, dim values, attribute types and ints, opsets). */
    private static void varint(List<Msg> all, Random r, StringBuilder log) {
        List<Field> fields = new ArrayList<>();
        List<String> where = new ArrayList<>();
        for (Msg m : all) {
            for (Field f : m.fields) {
                if (f.wireType == com.google.protobuf.WireFormat.WIRETYPE_VARINT) {
                    fields.add(f);
                    where.add(m.type + "." + f.number);
                }
            }
        }
        if (fields.isEmpty()) {
            log.append("onnx.varint(none)");
            return;
        }
        int i = r.nextInt(fields.size());
        long v = interesting(r);
        fields.get(i).value = v;
        log.append("onnx.varint(").append(where.get(i)).append('=').append(v).append(')');
    }

    private static void tensorDims(Msg t, Random r, StringBuilder log) {
        List<Long> dims = new ArrayList<>();
        for (Field f : t.all(1)) {
            for (long d : ProtoTree.packedVarints(f)) {
                dims.add(d);
            }
        }
        String what;
        int k = dims.isEmpty() ? 0 : r.nextInt(dims.size());
        switch (r.nextInt(5)) {
            case 0 -> {
                dims.add(k, interesting(r));
                what = "insert";
            }
            case 1 -> {
                if (!dims.isEmpty()) {
                    dims.remove(k);
                }
                what = "remove";
            }
            case 2 -> {
                dims.clear();
                what = "scalar";
            }
            case 3 -> {
                if (!dims.isEmpty()) {
                    dims.set(k, dims.get(k) * (r.nextBoolean() ? 2 : -1));
                }
                what = "scale";
            }
            default -> {
                if (dims.isEmpty()) {
                    dims.add(0L);
                }
                dims.set(k, interesting(r));
                what = "set";
            }
        }
        int at = t.fields.indexOf(t.all(1).isEmpty() ? null : t.all(1).get(0));
        t.fields.removeIf(f -> f.number == 1);
        Field f = new Field();
        f.number = 1;
        ProtoTree.setPackedVarints(f, dims.stream().mapToLong(Long::longValue).toArray());
        if (r.nextBoolean() && !dims.isEmpty()) {
            // unpacked, as old exporters wrote dims
            for (int i = dims.size() - 1; i >= 0; i--) {
                t.fields.add(Math.max(at, 0), ProtoTree.varint(1, dims.get(i)));
            }
        } else {
            t.fields.add(Math.max(at, 0), f);
        }
        log.append("onnx.dims(").append(what).append(' ').append(dims).append(')');
    }

    private static void shape(Msg shape, Random r, StringBuilder log) {
        List<Field> dims = shape.all(1);
        Field d = pick(r, dims);
        switch (r.nextInt(5)) {
            case 0 -> {
                if (d != null) {
                    shape.fields.remove(d);
                }
                log.append("onnx.shape(remove)");
            }
            case 1 -> {
                Msg nd = new Msg("Dim");
                nd.fields.add(ProtoTree.varint(1, interesting(r)));
                shape.fields.add(dims.isEmpty() ? 0 : r.nextInt(shape.fields.size() + 1), ProtoTree.message(1, nd));
                log.append("onnx.shape(insert)");
            }
            case 2 -> {
                if (d != null && d.child != null) {
                    d.child.fields.clear();
                    d.child.fields.add(ProtoTree.bytes(2, "N".getBytes(StandardCharsets.UTF_8)));
                }
                log.append("onnx.shape(symbolic)");
            }
            case 3 -> {
                shape.fields.clear();
                log.append("onnx.shape(scalar)");
            }
            default -> {
                long v = interesting(r);
                if (d != null && d.child != null) {
                    d.child.fields.clear();
                    d.child.fields.add(ProtoTree.varint(1, v));
                }
                log.append("onnx.shape(dim=").append(v).append(')');
            }
        }
    }

    private void tensorData(Msg t, Random r, StringBuilder log) {
        Field raw = t.all(9).isEmpty() ? null : t.all(9).get(0);
        long type = t.all(2).isEmpty() ? 0 : t.all(2).get(0).value;
        if (type == 7 && r.nextBoolean()) {
            intValues(t, raw, r, log);
            return;
        }
        switch (r.nextInt(7)) {
            case 0 -> {
                if (raw != null) {
                    int len = raw.bytes.length == 0 ? 0 : r.nextInt(raw.bytes.length);
                    raw.bytes = Arrays.copyOf(raw.bytes, len);
                    log.append("onnx.data(raw truncate ").append(len).append(')');
                } else {
                    t.fields.add(ProtoTree.bytes(9, new byte[] {1, 2, 3}));
                    log.append("onnx.data(raw add 3)");
                }
            }
            case 1 -> {
                int extra = r.nextBoolean() ? 1 + r.nextInt(8) : 4 * (1 + r.nextInt(64));
                if (raw != null) {
                    raw.bytes = Arrays.copyOf(raw.bytes, raw.bytes.length + extra);
                } else {
                    t.fields.add(ProtoTree.bytes(9, new byte[extra]));
                }
                log.append("onnx.data(raw grow ").append(extra).append(')');
            }
            case 2 -> {
                t.fields.removeIf(f -> f.number == 4 || f.number == 5 || f.number == 7 || f.number == 9
                        || f.number == 10 || f.number == 11);
                log.append("onnx.data(none)");
            }
            case 3 -> {
                // The values in a typed field instead of (or besides) raw_data.
                int field = new int[] {4, 5, 6, 7, 10, 11}[r.nextInt(6)];
                int n = r.nextInt(10);
                if (r.nextBoolean()) {
                    t.fields.removeIf(f -> f.number == 9);
                }
                for (int i = 0; i < n; i++) {
                    switch (field) {
                        case 4 -> {
                            Field f = new Field();
                            f.number = 4;
                            f.wireType = com.google.protobuf.WireFormat.WIRETYPE_FIXED32;
                            f.value = Float.floatToRawIntBits(r.nextFloat()) & 0xffffffffL;
                            t.fields.add(f);
                        }
                        case 10 -> {
                            Field f = new Field();
                            f.number = 10;
                            f.wireType = com.google.protobuf.WireFormat.WIRETYPE_FIXED64;
                            f.value = Double.doubleToRawLongBits(r.nextDouble());
                            t.fields.add(f);
                        }
                        case 6 -> t.fields.add(ProtoTree.bytes(6, "s".getBytes(StandardCharsets.UTF_8)));
                        default -> t.fields.add(ProtoTree.varint(field, interesting(r)));
                    }
                }
                log.append("onnx.data(typed field ").append(field).append(" x").append(n).append(')');
            }
            case 4 -> {
                t.fields.add(ProtoTree.varint(14, r.nextBoolean() ? 1 : interesting(r)));
                log.append("onnx.data(data_location)");
            }
            case 5 -> {
                if (raw != null && raw.bytes.length > 0) {
                    raw.bytes = raw.bytes.clone();
                    for (int i = 0; i < raw.bytes.length; i += 1 + r.nextInt(8)) {
                        raw.bytes[i] = (byte) (r.nextBoolean() ? 0xff : 0x7f);
                    }
                }
                log.append("onnx.data(raw values)");
            }
            default -> {
                Msg other = pick(r, allTensors);
                t.fields.removeIf(f -> f.number == 9 || f.number == 4 || f.number == 7 || f.number == 5);
                for (Field f : other.fields) {
                    if (f.number == 9 || f.number == 4 || f.number == 7 || f.number == 5) {
                        t.fields.add(f.copy());
                    }
                }
                log.append("onnx.data(from other tensor)");
            }
        }
    }

    /**
     * An INT64 tensor's values (shapes, axes, slice bounds once it is an initializer) set to edge
     * values, the count kept.
     */
    private static void intValues(Msg t, Field raw, Random r, StringBuilder log) {
        if (raw != null && raw.bytes.length >= 8) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(raw.bytes.clone()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            int n = raw.bytes.length / 8;
            int k = r.nextInt(n);
            long v = interesting(r);
            b.putLong(8 * k, v);
            raw.bytes = b.array();
            log.append("onnx.data(int64 raw[").append(k).append("]=").append(v).append(')');
            return;
        }
        List<Field> values = t.all(7);
        Field f = pick(r, values);
        if (f != null) {
            long[] v = ProtoTree.packedVarints(f);
            if (v.length > 0) {
                v[r.nextInt(v.length)] = interesting(r);
                ProtoTree.setPackedVarints(f, v);
            }
        }
        log.append("onnx.data(int64_data value)");
    }

    /** A value name (node input or output, graph input or output, initializer) changed. */
    private void name(Msg model, Random r, StringBuilder log) {
        List<Field> refs = new ArrayList<>();
        Set<String> local = new LinkedHashSet<>();
        for (Msg m : model.all()) {
            for (Field f : m.fields) {
                boolean ref = m.type.equals("Node") && (f.number == 1 || f.number == 2)
                        || m.type.equals("ValueInfo") && f.number == 1 || m.type.equals("Tensor") && f.number == 8;
                if (ref && f.bytes != null) {
                    refs.add(f);
                    local.add(text(f));
                }
            }
        }
        Field f = pick(r, refs);
        if (f == null) {
            log.append("onnx.name(none)");
            return;
        }
        String v = switch (r.nextInt(5)) {
            case 0 -> "";
            case 1 -> "fuzz_" + r.nextInt(4);
            case 2 -> pick(r, names);
            default -> pick(r, List.copyOf(local));
        };
        f.bytes = v.getBytes(StandardCharsets.UTF_8);
        log.append("onnx.name('").append(v).append("')");
    }

    private void attribute(List<Msg> all, Random r, StringBuilder log) {
        List<Msg> attrs = all.stream().filter(m -> m.type.equals("Attribute")).toList();
        List<Msg> nodes = all.stream().filter(m -> m.type.equals("Node")).toList();
        Msg a = pick(r, attrs);
        int choice = a == null ? 0 : r.nextInt(7);
        switch (choice) {
            case 0 -> {
                Msg n = pick(r, nodes);
                if (n != null) {
                    n.fields.add(ProtoTree.message(5, pick(r, allAttributes).copy()));
                }
                log.append("onnx.attr(add)");
            }
            case 1 -> {
                long type = r.nextInt(16);
                a.fields.removeIf(f -> f.number == 20);
                if (r.nextInt(4) > 0) {
                    a.fields.add(ProtoTree.varint(20, type));
                }
                log.append("onnx.attr(type ").append(type).append(')');
            }
            case 2 -> {
                // Values of all kinds: i, f, ints, floats, s, t.
                int field = new int[] {2, 3, 4, 5, 7, 8}[r.nextInt(6)];
                a.fields.removeIf(f -> f.number == field);
                switch (field) {
                    case 3 -> a.fields.add(ProtoTree.varint(3, interesting(r)));
                    case 2 -> {
                        Field f = new Field();
                        f.number = 2;
                        f.wireType = com.google.protobuf.WireFormat.WIRETYPE_FIXED32;
                        float[] fs = {0, -1, Float.NaN, Float.POSITIVE_INFINITY, 1e30f, -0f, 1e-40f};
                        f.value = Float.floatToRawIntBits(fs[r.nextInt(fs.length)]) & 0xffffffffL;
                        a.fields.add(f);
                    }
                    case 4 -> a.fields.add(ProtoTree.bytes(4,
                            new String[] {"", "NOTSET", "SAME_UPPER", "VALID", "tanh", "x\u00ff"}[r.nextInt(6)]
                                    .getBytes(StandardCharsets.UTF_8)));
                    case 5 -> a.fields.add(ProtoTree.message(5, pick(r, allTensors).copy()));
                    case 8 -> {
                        Field f = new Field();
                        f.number = 8;
                        long[] v = new long[r.nextInt(8)];
                        for (int i = 0; i < v.length; i++) {
                            v[i] = interesting(r);
                        }
                        ProtoTree.setPackedVarints(f, v);
                        a.fields.add(f);
                    }
                    default -> {
                        Field f = new Field();
                        f.number = 7;
                        f.wireType = com.google.protobuf.WireFormat.WIRETYPE_FIXED32;
                        f.value = Float.floatToRawIntBits(r.nextFloat() * 4 - 2) & 0xffffffffL;
                        a.fields.add(f);
                    }
                }
                log.append("onnx.attr(value field ").append(field).append(')');
            }
            case 3 -> {
                for (Msg n : nodes) {
                    n.fields.removeIf(f -> f.child == a);
                }
                log.append("onnx.attr(remove)");
            }
            case 4 -> {
                Msg other = pick(r, allAttributes);
                a.fields.clear();
                for (Field f : other.fields) {
                    a.fields.add(f.copy());
                }
                log.append("onnx.attr(replace)");
            }
            case 5 -> {
                a.fields.add(ProtoTree.bytes(21, "ref".getBytes(StandardCharsets.UTF_8)));
                log.append("onnx.attr(ref_attr_name)");
            }
            default -> {
                // An INTS attribute's list: emptied, lengthened, one value changed.
                for (Field f : a.all(8)) {
                    long[] v = ProtoTree.packedVarints(f);
                    v = switch (r.nextInt(3)) {
                        case 0 -> new long[0];
                        case 1 -> Arrays.copyOf(v, v.length + 1 + r.nextInt(4));
                        default -> {
                            if (v.length > 0) {
                                v[r.nextInt(v.length)] = interesting(r);
                            }
                            yield v;
                        }
                    };
                    ProtoTree.setPackedVarints(f, v);
                }
                log.append("onnx.attr(ints)");
            }
        }
    }

    private static void opset(Msg model, Random r, StringBuilder log) {
        List<Field> opsets = model.all(8);
        Field o = pick(r, opsets);
        switch (r.nextInt(4)) {
            case 0 -> {
                long v = r.nextBoolean() ? 11 + r.nextInt(17) : interesting(r);
                if (o != null && o.child != null) {
                    o.child.fields.removeIf(f -> f.number == 2);
                    o.child.fields.add(ProtoTree.varint(2, v));
                }
                log.append("onnx.opset(version ").append(v).append(')');
            }
            case 1 -> {
                model.fields.removeIf(f -> f.number == 8);
                log.append("onnx.opset(none)");
            }
            case 2 -> {
                if (o != null) {
                    model.fields.add(o.copy());
                }
                log.append("onnx.opset(duplicate)");
            }
            default -> {
                String d = new String[] {"ai.onnx", "com.microsoft", "ai.onnx.ml", ""}[r.nextInt(4)];
                if (o != null && o.child != null) {
                    o.child.fields.removeIf(f -> f.number == 1);
                    o.child.fields.add(0, ProtoTree.bytes(1, d.getBytes(StandardCharsets.UTF_8)));
                }
                log.append("onnx.opset(domain '").append(d).append("')");
            }
        }
    }

    private void node(Msg model, Random r, StringBuilder log) {
        Msg graph = graphOf(model);
        if (graph == null) {
            log.append("onnx.node(no graph)");
            return;
        }
        List<Field> nodes = graph.all(1);
        Field n = pick(r, nodes);
        switch (n == null ? 3 : r.nextInt(7)) {
            case 0 -> {
                String op = pick(r, opTypes);
                n.child.fields.removeIf(f -> f.number == 4);
                n.child.fields.add(ProtoTree.bytes(4, op.getBytes(StandardCharsets.UTF_8)));
                log.append("onnx.node(op_type ").append(op).append(')');
            }
            case 1 -> {
                graph.fields.remove(n);
                log.append("onnx.node(remove)");
            }
            case 2 -> {
                graph.fields.add(graph.fields.indexOf(n), n.copy());
                log.append("onnx.node(duplicate)");
            }
            case 3 -> {
                Field f = ProtoTree.message(1, pick(r, allNodes).copy());
                graph.fields.add(r.nextInt(graph.fields.size() + 1), f);
                log.append("onnx.node(insert from another model)");
            }
            case 4 -> {
                graph.fields.remove(n);
                graph.fields.add(r.nextInt(graph.fields.size() + 1), n);
                log.append("onnx.node(move)");
            }
            case 5 -> {
                List<Field> ins = n.child.all(1);
                if (!ins.isEmpty() && r.nextBoolean()) {
                    n.child.fields.remove(pick(r, ins));
                    log.append("onnx.node(drop input)");
                } else {
                    n.child.fields.add(ProtoTree.bytes(1, pick(r, names).getBytes(StandardCharsets.UTF_8)));
                    log.append("onnx.node(add input)");
                }
            }
            default -> {
                List<Field> outs = n.child.all(2);
                if (!outs.isEmpty() && r.nextBoolean()) {
                    n.child.fields.remove(pick(r, outs));
                    log.append("onnx.node(drop output)");
                } else {
                    n.child.fields.add(ProtoTree.bytes(2, ("fuzz_out" + r.nextInt(3)).getBytes(StandardCharsets.UTF_8)));
                    log.append("onnx.node(add output)");
                }
            }
        }
    }

    private static Msg graphOf(Msg model) {
        for (Field f : model.all(7)) {
            if (f.child != null) {
                return f.child;
            }
        }
        return null;
    }

    private void graph(Msg model, Seed seed, Random r, StringBuilder log) {
        Msg graph = graphOf(model);
        switch (r.nextInt(6)) {
            case 0, 1 -> addInitializer(model, seed, r, log);
            case 2 -> {
                if (graph != null && !graph.fields.isEmpty()) {
                    Field f = pick(r, graph.fields);
                    graph.fields.remove(f);
                    log.append("onnx.graph(remove field ").append(f.number).append(')');
                } else {
                    log.append("onnx.graph(empty)");
                }
            }
            case 3 -> {
                if (graph != null && !graph.fields.isEmpty()) {
                    Field f = pick(r, graph.fields);
                    graph.fields.add(f.copy());
                    log.append("onnx.graph(duplicate field ").append(f.number).append(')');
                } else {
                    log.append("onnx.graph(empty)");
                }
            }
            case 4 -> {
                // Fields the importer refuses or skips: sparse initializer, functions, no ir_version.
                int what = r.nextInt(3);
                if (what == 0 && graph != null) {
                    graph.fields.add(ProtoTree.bytes(15, new byte[0]));
                } else if (what == 1) {
                    model.fields.add(ProtoTree.bytes(25, new byte[0]));
                } else {
                    model.fields.removeIf(f -> f.number == 1);
                }
                log.append("onnx.graph(special ").append(what).append(')');
            }
            default -> {
                model.fields.removeIf(f -> f.number == 7);
                if (r.nextBoolean()) {
                    Seed other = pick(r, seeds);
                    model.fields.add(ProtoTree.message(7, graphOf(other.model()).copy()));
                }
                log.append("onnx.graph(replace)");
            }
        }
    }

    /** A test data tensor (named like a graph input) added as an initializer: that input becomes constant. */
    private void addInitializer(Msg model, Seed seed, Random r, StringBuilder log) {
        Msg graph = graphOf(model);
        Msg t = seed.tensors().isEmpty() || r.nextInt(4) == 0 ? pick(r, allTensors) : pick(r, seed.tensors());
        if (graph == null || t == null) {
            log.append("onnx.graph(no initializer)");
            return;
        }
        t = t.copy();
        if (r.nextInt(3) == 0) {
            mutateTensor(t, r, log);
            log.append('+');
        }
        graph.fields.add(ProtoTree.message(5, t));
        log.append("onnx.graph(add initializer)");
    }

    /** A message replaced by one of the same type from another model. */
    private void splice(List<Msg> all, Random r, StringBuilder log) {
        Msg target = pick(r, all.stream().filter(m -> !m.type.equals("Model") && !m.type.equals("Graph")).toList());
        if (target == null) {
            log.append("onnx.splice(none)");
            return;
        }
        Seed other = pick(r, seeds);
        List<Msg> same = other.model().all().stream().filter(m -> m.type.equals(target.type)).toList();
        Msg src = pick(r, same);
        if (src != null) {
            target.fields.clear();
            for (Field f : src.fields) {
                target.fields.add(f.copy());
            }
        }
        log.append("onnx.splice(").append(target.type).append(')');
    }
}
