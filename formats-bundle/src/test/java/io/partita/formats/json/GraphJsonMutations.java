package io.partita.formats.json;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.partita.formats.ByteMutations;
import io.partita.formats.FuzzLoop;
import io.partita.graph.AttrType;
import io.partita.graph.DataType;
import io.partita.graph.LayoutType;
import io.partita.graph.OpKind;
import io.partita.graph.PropertyType;

/**
 * Mutations of oneDNN graph JSON files: byte-level ones, and (since most byte flips only break
 * the syntax) structure-aware ones on the Jackson tree: numbers, dims and strides set to edge
 * values, arrays emptied or lengthened, fields deleted, duplicated or renamed, tensor ids pointing
 * at other tensors, data, layout and property types, op kinds, attributes of the wrong type or
 * from another op, ops spliced in from other files.
 */
final class GraphJsonMutations {
    /** Writes what the mutations nest deeper than Jackson's default limit, so the reader meets it. */
    private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(100_000).build()).build());
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final long[] INTERESTING = {0, 1, -1, -2, 2, 3, 4, 7, 8, 63, 64, 255, 1023, 1L << 16,
        Integer.MAX_VALUE, Integer.MIN_VALUE, 1L << 31, 1L << 32, 1L << 40, 1L << 62, -(1L << 62), Long.MAX_VALUE,
        Long.MIN_VALUE, Long.MIN_VALUE + 1};
    private static final double[] DOUBLES = {0.5, -0.0, 1e308, -1e308, 3.5e38, 1e-45, 1e-320, 2.5};

    /** A seed: file name, bytes, parsed tree. */
    record Seed(String name, byte[] bytes, ObjectNode root) {
    }

    final List<Seed> seeds = new ArrayList<>();
    private final List<ObjectNode> allOps = new ArrayList<>();
    private final List<ObjectNode> allTensors = new ArrayList<>();
    private final List<Map.Entry<String, JsonNode>> allAttrs = new ArrayList<>();

    GraphJsonMutations(List<Path> files, Path base) {
        for (Path p : files) {
            byte[] b;
            JsonNode root;
            try {
                b = Files.readAllBytes(p);
                root = MAPPER.readTree(b);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read corpus file " + p, e);
            }
            ObjectNode o = (ObjectNode) root;
            seeds.add(new Seed(base.relativize(p).toString(), b, o));
            for (JsonNode op : o.path("graph")) {
                allOps.add((ObjectNode) op);
                op.path("inputs").forEach(t -> allTensors.add((ObjectNode) t));
                op.path("outputs").forEach(t -> allTensors.add((ObjectNode) t));
                allAttrs.addAll(op.path("attrs").properties());
            }
        }
        if (seeds.isEmpty()) {
            throw new IllegalStateException("no graph JSON seeds");
        }
    }

    private static <T> T pick(Random r, List<T> l) {
        return l.isEmpty() ? null : l.get(r.nextInt(l.size()));
    }

    private static <T> T pick(Random r, T[] a) {
        return a[r.nextInt(a.length)];
    }

    private static long interestingLong(Random r) {
        return r.nextInt(4) == 0 ? r.nextInt(20) - 3 : INTERESTING[r.nextInt(INTERESTING.length)];
    }

    /** An edge value of any JSON type, numbers mostly. */
    private static JsonNode interesting(Random r) {
        return switch (r.nextInt(12)) {
            case 0 -> F.numberNode(new BigInteger("9223372036854775808").shiftLeft(r.nextInt(70)));
            case 1 -> F.numberNode(DOUBLES[r.nextInt(DOUBLES.length)]);
            case 2 -> F.textNode(pick(r, new String[] {"", "NaN", "inf", "-1", "0", "f32", "strided", "x"}));
            case 3 -> F.booleanNode(r.nextBoolean());
            case 4 -> F.nullNode();
            case 5 -> F.arrayNode();
            case 6 -> F.objectNode();
            default -> F.numberNode(interestingLong(r));
        };
    }

    /**
     * A node for the mutation log: scalars as written, containers by size (a container nested
     * deeper than Jackson writes would not print).
     */
    private static String brief(JsonNode n) {
        if (n.isContainerNode()) {
            StringBuilder b = new StringBuilder(n.isArray() ? "[" : "{");
            int i = 0;
            for (JsonNode c : n) {
                if (i++ == 8) {
                    return b.append("... ").append(n.size()).append(" items]").toString();
                }
                b.append(i > 1 ? "," : "").append(c.isContainerNode() ? "..." : c.toString());
            }
            return b.append(n.isArray() ? "]" : "}").toString();
        }
        return n.toString();
    }

    /** A mutated input from a random seed. */
    FuzzLoop.Input next(Random r) {
        Seed seed = pick(r, seeds);
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
            ObjectNode root = seed.root().deepCopy();
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) {
                log.append(i > 0 ? "+" : "");
                mutate(root, r, log);
            }
            try {
                out = MAPPER.writeValueAsBytes(root);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (r.nextInt(10) == 0) {
                log.append('+');
                out = ByteMutations.mutate(out, pick(r, seeds).bytes(), r, log);
            }
        }
        return new FuzzLoop.Input(out, seed.name(), log.toString(), "json");
    }

    /** Where a node sits: its parent and key (object field) or index (array element). */
    private record Slot(JsonNode parent, String field, int index, JsonNode node) {
        void set(JsonNode v) {
            if (parent instanceof ObjectNode o) {
                o.set(field, v);
            } else {
                ((ArrayNode) parent).set(index, v);
            }
        }

        void remove() {
            if (parent instanceof ObjectNode o) {
                o.remove(field);
            } else {
                ((ArrayNode) parent).remove(index);
            }
        }
    }

    private static List<Slot> slots(JsonNode root) {
        List<Slot> out = new ArrayList<>();
        collect(root, out);
        return out;
    }

    private static void collect(JsonNode n, List<Slot> out) {
        if (n instanceof ObjectNode o) {
            for (Map.Entry<String, JsonNode> e : o.properties()) {
                out.add(new Slot(o, e.getKey(), -1, e.getValue()));
                collect(e.getValue(), out);
            }
        } else if (n instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                out.add(new Slot(a, null, i, a.get(i)));
                collect(a.get(i), out);
            }
        }
    }

    private static List<ObjectNode> ops(ObjectNode root) {
        List<ObjectNode> out = new ArrayList<>();
        root.path("graph").forEach(op -> {
            if (op instanceof ObjectNode o) {
                out.add(o);
            }
        });
        return out;
    }

    private static List<ObjectNode> tensors(ObjectNode root) {
        List<ObjectNode> out = new ArrayList<>();
        for (ObjectNode op : ops(root)) {
            for (String side : new String[] {"inputs", "outputs"}) {
                op.path(side).forEach(t -> {
                    if (t instanceof ObjectNode o) {
                        out.add(o);
                    }
                });
            }
        }
        return out;
    }

    private void mutate(ObjectNode root, Random r, StringBuilder log) {
        switch (r.nextInt(11)) {
            case 0 -> number(root, r, log);
            case 1, 2 -> dims(root, r, log);
            case 3 -> tensor(root, r, log);
            case 4 -> op(root, r, log);
            case 5 -> attr(root, r, log);
            case 6 -> type(root, r, log);
            case 7 -> field(root, r, log);
            case 8 -> array(root, r, log);
            case 9 -> header(root, r, log);
            default -> ids(root, r, log);
        }
    }

    /** Any number in the file set to an edge value. */
    private static void number(ObjectNode root, Random r, StringBuilder log) {
        List<Slot> nums = slots(root).stream().filter(s -> s.node().isNumber()).toList();
        Slot s = pick(r, nums);
        if (s == null) {
            log.append("json.number(none)");
            return;
        }
        JsonNode v = r.nextInt(3) == 0 ? interesting(r) : F.numberNode(interestingLong(r));
        s.set(v);
        log.append("json.number(").append(s.field() != null ? s.field() : "[" + s.index() + "]").append('=')
                .append(v).append(')');
    }

    /** A tensor's shape or stride: a dim set to an edge value, added, removed, emptied, mismatched. */
    private static void dims(ObjectNode root, Random r, StringBuilder log) {
        ObjectNode t = pick(r, tensors(root));
        if (t == null) {
            log.append("json.dims(none)");
            return;
        }
        String field = r.nextInt(3) == 0 ? "stride" : "shape";
        JsonNode a = t.get(field);
        ArrayNode arr = a instanceof ArrayNode x ? x : F.arrayNode();
        t.set(field, arr);
        int k = arr.isEmpty() ? 0 : r.nextInt(arr.size());
        String what;
        // Strides mostly keep their rank: a rank mismatch stops at the reader's first check.
        switch (field.equals("stride") && r.nextInt(4) > 0 ? 5 : r.nextInt(6)) {
            case 0 -> {
                arr.insert(k, interestingLong(r));
                what = "insert";
            }
            case 1 -> {
                if (!arr.isEmpty()) {
                    arr.remove(k);
                }
                what = "remove";
            }
            case 2 -> {
                arr.removeAll();
                what = "empty";
            }
            case 3 -> {
                arr.removeAll();
                arr.add(Long.MIN_VALUE); // oneDNN's unknown rank
                what = "unknown rank";
            }
            case 4 -> {
                int n = r.nextBoolean() ? 7 + r.nextInt(4) : 64 + r.nextInt(200);
                for (int i = 0; i < n; i++) {
                    arr.add(1);
                }
                what = "rank+" + n;
            }
            default -> {
                if (arr.isEmpty()) {
                    arr.add(1);
                }
                arr.set(k, F.numberNode(interestingLong(r)));
                what = "set";
            }
        }
        if (field.equals("shape") && r.nextInt(5) > 0 && t.get("stride") instanceof ArrayNode st
                && st.size() != arr.size()) {
            // Dense strides for the new rank, so the change reaches shape inference, not the rank check.
            st.removeAll();
            long s = 1;
            long[] strides = new long[arr.size()];
            for (int i = arr.size() - 1; i >= 0; i--) {
                strides[i] = s;
                s *= Math.max(1, arr.get(i).asLong());
            }
            for (long x : strides) {
                st.add(x);
            }
            what += " restrided";
        }
        log.append("json.dims(").append(field).append(' ').append(what).append(' ').append(brief(arr)).append(')');
    }

    /** A tensor's dtype, layout, property or layout id changed, or the tensor replaced by another. */
    private void tensor(ObjectNode root, Random r, StringBuilder log) {
        List<ObjectNode> ts = tensors(root);
        ObjectNode t = pick(r, ts);
        if (t == null) {
            log.append("json.tensor(none)");
            return;
        }
        switch (r.nextInt(6)) {
            case 0 -> {
                String v = pick(r, DataType.values()).spelling();
                t.put("dtype", v);
                log.append("json.tensor(dtype ").append(v).append(')');
            }
            case 1 -> {
                String v = pick(r, LayoutType.values()).spelling();
                t.put("layout_type", v);
                if (r.nextBoolean()) {
                    t.put("layout_id", interestingLong(r));
                }
                log.append("json.tensor(layout ").append(v).append(')');
            }
            case 2 -> {
                String v = pick(r, PropertyType.values()).spelling();
                t.put("property_type", v);
                log.append("json.tensor(property ").append(v).append(')');
            }
            case 3 -> {
                // The same id with another declaration (dims, type) elsewhere.
                ObjectNode other = pick(r, allTensors).deepCopy();
                other.set("id", t.get("id"));
                t.removeAll();
                t.setAll(other);
                log.append("json.tensor(redeclare)");
            }
            case 4 -> {
                ObjectNode other = pick(r, ts);
                t.set("id", other.get("id"));
                log.append("json.tensor(id of another)");
            }
            default -> {
                t.remove("stride");
                log.append("json.tensor(no stride)");
            }
        }
    }

    /** An op's kind changed, or the op removed, duplicated, moved, or spliced in from another file. */
    private void op(ObjectNode root, Random r, StringBuilder log) {
        JsonNode g = root.get("graph");
        if (!(g instanceof ArrayNode graph) || graph.isEmpty()) {
            log.append("json.op(no graph)");
            return;
        }
        int k = r.nextInt(graph.size());
        JsonNode op = graph.get(k);
        switch (r.nextInt(8)) {
            case 0, 1 -> {
                String kind = pick(r, OpKind.values()).spelling();
                if (op instanceof ObjectNode o) {
                    o.put("kind", kind);
                }
                log.append("json.op(kind ").append(kind).append(')');
            }
            case 2 -> {
                graph.remove(k);
                log.append("json.op(remove)");
            }
            case 3 -> {
                graph.insert(k, op.deepCopy());
                log.append("json.op(duplicate)");
            }
            case 4 -> {
                graph.remove(k);
                graph.insert(r.nextInt(graph.size() + 1), op);
                log.append("json.op(move)");
            }
            case 5 -> {
                graph.insert(r.nextInt(graph.size() + 1), pick(r, allOps).deepCopy());
                log.append("json.op(splice)");
            }
            case 6 -> {
                // Inputs and outputs swapped: cycles and self-loops.
                if (op instanceof ObjectNode o && o.has("inputs") && o.has("outputs")) {
                    JsonNode in = o.get("inputs");
                    o.set("inputs", o.get("outputs"));
                    o.set("outputs", in);
                }
                log.append("json.op(swap inputs/outputs)");
            }
            default -> {
                // An output of this op fed back as an input, or an extra input from elsewhere.
                if (op instanceof ObjectNode o && o.get("inputs") instanceof ArrayNode ins) {
                    JsonNode outs = o.path("outputs");
                    JsonNode extra = r.nextBoolean() && outs.isArray() && !outs.isEmpty()
                            ? outs.get(0).deepCopy() : pick(r, allTensors).deepCopy();
                    ins.insert(r.nextInt(ins.size() + 1), extra);
                }
                log.append("json.op(extra input)");
            }
        }
    }

    /** An attribute's type or value changed, removed, or one of another op added. */
    private void attr(ObjectNode root, Random r, StringBuilder log) {
        ObjectNode op = pick(r, ops(root));
        if (op == null) {
            log.append("json.attr(none)");
            return;
        }
        JsonNode a = op.get("attrs");
        ObjectNode attrs = a instanceof ObjectNode o ? o : F.objectNode();
        op.set("attrs", attrs);
        List<String> names = new ArrayList<>();
        attrs.fieldNames().forEachRemaining(names::add);
        String name = pick(r, names);
        int choice = name == null ? 0 : r.nextInt(6);
        switch (choice) {
            case 0 -> {
                Map.Entry<String, JsonNode> e = pick(r, allAttrs);
                attrs.set(e.getKey(), e.getValue().deepCopy());
                log.append("json.attr(add ").append(e.getKey()).append(')');
            }
            case 1 -> {
                attrs.remove(name);
                log.append("json.attr(remove ").append(name).append(')');
            }
            case 2 -> {
                String t = pick(r, AttrType.values()).spelling();
                if (attrs.get(name) instanceof ObjectNode o) {
                    o.put("type", t);
                }
                log.append("json.attr(").append(name).append(" type ").append(t).append(')');
            }
            case 3 -> {
                JsonNode v = interesting(r);
                if (attrs.get(name) instanceof ObjectNode o) {
                    o.set("value", v);
                }
                log.append("json.attr(").append(name).append(" value ").append(v).append(')');
            }
            case 4 -> {
                // An array value emptied, lengthened or with an edge element.
                if (attrs.get(name) instanceof ObjectNode o && o.get("value") instanceof ArrayNode arr) {
                    switch (r.nextInt(3)) {
                        case 0 -> arr.removeAll();
                        case 1 -> {
                            int n = 1 + r.nextInt(r.nextBoolean() ? 4 : 100);
                            for (int i = 0; i < n; i++) {
                                arr.add(interestingLong(r));
                            }
                        }
                        default -> {
                            if (!arr.isEmpty()) {
                                arr.set(r.nextInt(arr.size()), F.numberNode(interestingLong(r)));
                            }
                        }
                    }
                    log.append("json.attr(").append(name).append(" array ").append(brief(arr)).append(')');
                } else {
                    log.append("json.attr(").append(name).append(" not an array)");
                }
            }
            default -> {
                // A value of another attribute under this name.
                Map.Entry<String, JsonNode> e = pick(r, allAttrs);
                attrs.set(name, e.getValue().deepCopy());
                log.append("json.attr(").append(name).append(" = ").append(e.getKey()).append("'s)");
            }
        }
    }

    /** Any node replaced by an edge value of another JSON type. */
    private static void type(ObjectNode root, Random r, StringBuilder log) {
        Slot s = pick(r, slots(root));
        if (s == null) {
            log.append("json.type(none)");
            return;
        }
        JsonNode v = interesting(r);
        s.set(v);
        log.append("json.type(").append(s.field() != null ? s.field() : "[" + s.index() + "]").append('=').append(v)
                .append(')');
    }

    /** An object field deleted, renamed, duplicated under another object's name, or set to null. */
    private static void field(ObjectNode root, Random r, StringBuilder log) {
        List<Slot> fs = slots(root).stream().filter(s -> s.field() != null).toList();
        Slot s = pick(r, fs);
        if (s == null) {
            log.append("json.field(none)");
            return;
        }
        ObjectNode o = (ObjectNode) s.parent();
        switch (r.nextInt(4)) {
            case 0 -> {
                s.remove();
                log.append("json.field(delete ").append(s.field()).append(')');
            }
            case 1 -> {
                o.remove(s.field());
                String n = pick(r, new String[] {"id", "kind", "shape", "stride", "dtype", "inputs", "outputs",
                    "attrs", "graph", "layout_id", "name", "value", "type", "unknown"});
                o.set(n, s.node());
                log.append("json.field(rename ").append(s.field()).append(" to ").append(n).append(')');
            }
            case 2 -> {
                o.set(s.field(), F.nullNode());
                log.append("json.field(null ").append(s.field()).append(')');
            }
            default -> {
                // The field copied into another object (an id on an attribute, a shape on an op).
                Slot other = pick(r, slots(root).stream().filter(x -> x.node() instanceof ObjectNode).toList());
                if (other != null) {
                    ((ObjectNode) other.node()).set(s.field(), s.node().deepCopy());
                }
                log.append("json.field(copy ").append(s.field()).append(')');
            }
        }
    }

    /** An array emptied, an element repeated or removed, the array lengthened or nested deeply. */
    private static void array(ObjectNode root, Random r, StringBuilder log) {
        List<Slot> arrays = slots(root).stream().filter(s -> s.node() instanceof ArrayNode).toList();
        Slot s = pick(r, arrays);
        if (s == null) {
            log.append("json.array(none)");
            return;
        }
        ArrayNode a = (ArrayNode) s.node();
        switch (r.nextInt(5)) {
            case 0 -> {
                a.removeAll();
                log.append("json.array(empty ").append(s.field()).append(')');
            }
            case 1 -> {
                if (!a.isEmpty()) {
                    int k = r.nextInt(a.size());
                    int n = 1 + r.nextInt(r.nextBoolean() ? 3 : 200);
                    for (int i = 0; i < n; i++) {
                        a.add(a.get(k).deepCopy());
                    }
                }
                log.append("json.array(repeat ").append(s.field()).append(')');
            }
            case 2 -> {
                if (!a.isEmpty()) {
                    a.remove(r.nextInt(a.size()));
                }
                log.append("json.array(remove ").append(s.field()).append(')');
            }
            case 3 -> {
                JsonNode nested = s.node();
                int depth = r.nextBoolean() ? 2 + r.nextInt(10) : 900 + r.nextInt(300);
                for (int i = 0; i < depth; i++) {
                    nested = F.arrayNode().add(nested);
                }
                s.set(nested);
                log.append("json.array(nest ").append(depth).append(')');
            }
            default -> {
                a.add(interesting(r));
                log.append("json.array(append ").append(s.field()).append(')');
            }
        }
    }

    /** The header: engine kind, fpmath mode, version, input and output ports. */
    private static void header(ObjectNode root, Random r, StringBuilder log) {
        switch (r.nextInt(5)) {
            case 0 -> {
                String v = pick(r, new String[] {"cpu", "gpu", "any", "CPU", ""});
                root.put("engine_kind", v);
                log.append("json.header(engine_kind ").append(v).append(')');
            }
            case 1 -> {
                String v = pick(r, new String[] {"strict", "bf16", "f16", "tf32", "any", "fast"});
                root.put("fpmath_mode", v);
                log.append("json.header(fpmath_mode ").append(v).append(')');
            }
            case 2 -> {
                JsonNode v = pick(r, new JsonNode[] {F.textNode("true"), F.textNode("yes"), F.booleanNode(true),
                    F.numberNode(1)});
                root.set("fpmath_mode_apply_to_int", v);
                log.append("json.header(apply_to_int ").append(v).append(')');
            }
            default -> {
                String f = r.nextBoolean() ? "input_ports" : "output_ports";
                ArrayNode ports = F.arrayNode();
                List<ObjectNode> ts = tensors(root);
                int n = r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    ports.add(r.nextInt(3) == 0 || ts.isEmpty() ? F.numberNode(interestingLong(r))
                            : pick(r, ts).path("id"));
                }
                root.set(f, ports);
                log.append("json.header(").append(f).append(' ').append(brief(ports)).append(')');
            }
        }
    }

    /** Op and tensor ids: duplicated, negative, huge. */
    private static void ids(ObjectNode root, Random r, StringBuilder log) {
        List<ObjectNode> os = ops(root);
        List<ObjectNode> ts = tensors(root);
        boolean onOp = r.nextBoolean() && !os.isEmpty();
        List<ObjectNode> pool = onOp ? os : ts;
        ObjectNode x = pick(r, pool);
        if (x == null) {
            log.append("json.ids(none)");
            return;
        }
        JsonNode v = r.nextBoolean() ? pick(r, pool).path("id") : F.numberNode(interestingLong(r));
        x.set("id", v);
        log.append("json.ids(").append(onOp ? "op" : "tensor").append(" id ").append(brief(v)).append(')');
    }
}
