package io.partita.testkit.benchdnn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.partita.graph.AttrType;
import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.FpMathMode;
import io.partita.graph.GraphDescription;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.AttrSpec;
import io.partita.graph.OpSchema;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.PropertyType;

/**
 * Applies a case line's knobs to a graph the way benchdnn's graph driver does. Comma-separated
 * alternatives of different knobs form a Cartesian product; an empty alternative keeps the file's
 * value. Shapes of tensors produced by ops are re-inferred after shape rewrites.
 */
public final class CaseRewriter {
    /** Knobs with comma alternatives, in the order they are applied. */
    private static final List<String> ORDER = List.of("op-kind", "dt", "in-shapes", "mb", "op-attrs",
            "tensor-property", "attr-fpmath");

    private CaseRewriter() {
    }

    /** Every variant of the line applied to the case's graph. */
    public static List<Variant> expand(OpSchemaRegistry schemas, CaseLine line, GraphDescription base) {
        for (String key : line.options().keySet()) {
            if (!HarnessFile.KNOWN_OPTIONS.contains(key)) {
                throw new CaseRewriteException("unsupported option --" + key + "; supported: "
                        + HarnessFile.KNOWN_OPTIONS.stream().sorted().toList());
            }
        }
        List<Map<String, String>> combos = new ArrayList<>();
        combos.add(new LinkedHashMap<>());
        for (String key : ORDER) {
            String v = line.options().get(key);
            if (v == null) {
                continue;
            }
            List<Map<String, String>> next = new ArrayList<>();
            for (String alt : v.split(",", -1)) {
                for (Map<String, String> c : combos) {
                    Map<String, String> m = new LinkedHashMap<>(c);
                    m.put(key, alt);
                    next.add(m);
                }
            }
            combos = next;
        }
        List<Variant> out = new ArrayList<>();
        for (Map<String, String> c : combos) {
            StringBuilder label = new StringBuilder();
            c.forEach((k, v) -> label.append(label.length() == 0 ? "" : " ").append(k).append('=').append(v));
            Editor e = edit(schemas, base, c);
            if (!e.ignored.isEmpty()) {
                label.append(" (not in this graph: ").append(String.join(", ", e.ignored)).append(')');
            }
            out.add(new Variant(line, label.toString(), e.result()));
        }
        return out;
    }

    /** Applies one choice of each knob. */
    public static GraphDescription apply(OpSchemaRegistry schemas, GraphDescription base, Map<String, String> knobs) {
        return edit(schemas, base, knobs).result();
    }

    private static Editor edit(OpSchemaRegistry schemas, GraphDescription base, Map<String, String> knobs) {
        Editor e = new Editor(schemas, base);
        for (String key : ORDER) {
            String v = knobs.get(key);
            if (v == null || v.isEmpty()) {
                continue;
            }
            switch (key) {
                case "op-kind" -> e.opKinds(v);
                case "dt" -> e.dataTypes(v);
                case "in-shapes" -> e.inShapes(v);
                case "mb" -> e.minibatch(v);
                case "op-attrs" -> e.opAttrs(v);
                case "tensor-property" -> e.properties(v);
                case "attr-fpmath" -> e.fpmath(v);
                default -> throw new IllegalStateException(key);
            }
        }
        return e;
    }

    /** Mutable working copy of a graph description. */
    private static final class Editor {
        private final OpSchemaRegistry schemas;
        private final GraphDescription base;
        private final List<Op.Builder> ops = new ArrayList<>();
        private FpMathMode fpmath;
        private boolean applyToInt;
        private boolean reinfer;
        private final Set<Long> pinnedOutputs = new HashSet<>();
        private final List<String> ignored = new ArrayList<>();

        Editor(OpSchemaRegistry schemas, GraphDescription base) {
            this.schemas = schemas;
            this.base = base;
            base.ops().forEach(op -> ops.add(op.toBuilder()));
            fpmath = base.fpMathMode();
            applyToInt = base.fpMathApplyToInt();
        }

        private List<Op> built() {
            return ops.stream().map(Op.Builder::build).toList();
        }

        private Set<Long> produced() {
            Set<Long> p = new HashSet<>();
            for (Op op : built()) {
                op.outputs().forEach(t -> p.add(t.id()));
            }
            return p;
        }

        private Set<Long> consumed() {
            Set<Long> c = new HashSet<>();
            for (Op op : built()) {
                op.inputs().forEach(t -> c.add(t.id()));
            }
            return c;
        }

        private int indexOfOp(long id, String knob) {
            List<Op> b = built();
            for (int i = 0; i < b.size(); i++) {
                if (b.get(i).id() == id) {
                    return i;
                }
            }
            throw new CaseRewriteException("--" + knob + ": the graph has no op " + id + "; its ops are "
                    + b.stream().map(Op::id).toList());
        }

        /** Replaces every mention of a tensor id. */
        private void mapTensor(long id, java.util.function.UnaryOperator<LogicalTensor> f, String knob) {
            boolean found = false;
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i).build();
                Op.Builder b = ops.get(i);
                for (int k = 0; k < op.inputs().size(); k++) {
                    if (op.input(k).id() == id) {
                        b.setInput(k, f.apply(op.input(k)));
                        found = true;
                    }
                }
                for (int k = 0; k < op.outputs().size(); k++) {
                    if (op.output(k).id() == id) {
                        b.setOutput(k, f.apply(op.output(k)));
                        found = true;
                    }
                }
            }
            if (!found) {
                throw new CaseRewriteException("--" + knob + ": the graph has no tensor " + id);
            }
        }

        void opKinds(String spec) {
            for (String entry : spec.split("\\+")) {
                String[] kv = split2(entry, "op-kind", "OP_ID:KIND");
                long id = parseLong(kv[0], "op-kind", entry);
                int idx = indexOfOp(id, "op-kind");
                if ("undef".equals(kv[1])) {
                    removeOp(idx);
                    continue;
                }
                OpKind kind;
                try {
                    kind = OpKind.fromSpelling(kv[1]);
                } catch (IllegalArgumentException e) {
                    throw new CaseRewriteException("--op-kind=" + entry + ": " + e.getMessage());
                }
                Op old = ops.get(idx).build();
                OpSchema schema = schemas.find(kind).orElse(null);
                Op.Builder b = Op.builder(old.id(), kind).name(old.name());
                old.inputs().forEach(b::input);
                old.outputs().forEach(b::output);
                // Keep the attributes the new kind takes, as benchdnn does for compatible kinds.
                old.attrs().forEach((k, v) -> {
                    if (schema != null && schema.attrs().containsKey(k)) {
                        b.attr(k, v);
                    }
                });
                ops.set(idx, b);
            }
        }

        /** Removes an op and connects its consumers to the input it passes through. */
        private void removeOp(int idx) {
            Op op = ops.get(idx).build();
            Set<Long> produced = produced();
            LogicalTensor through;
            if (op.inputs().size() == 1) {
                through = op.input(0);
            } else {
                List<LogicalTensor> fromOps = op.inputs().stream().filter(t -> produced.contains(t.id())).toList();
                if (fromOps.size() != 1 || op.outputs().size() != 1) {
                    throw new CaseRewriteException("--op-kind=" + op.id() + ":undef: cannot tell which input of "
                            + op.describe() + " to pass through");
                }
                through = fromOps.get(0);
            }
            long out = op.output(0).id();
            ops.remove(idx);
            for (Op.Builder b : ops) {
                Op o = b.build();
                for (int k = 0; k < o.inputs().size(); k++) {
                    if (o.input(k).id() == out) {
                        b.setInput(k, through);
                    }
                }
            }
        }

        void dataTypes(String spec) {
            if (!spec.contains(":")) {
                DataType dt = parseDataType(spec, "dt");
                if (dt != DataType.F32 && dt != DataType.BF16 && dt != DataType.F16 && dt != DataType.UNDEF) {
                    throw new CaseRewriteException("--dt=" + spec + ": the global form takes f32, bf16, f16 or undef");
                }
                if (dt == DataType.UNDEF) {
                    return;
                }
                for (Op.Builder b : ops) {
                    Op o = b.build();
                    for (int k = 0; k < o.inputs().size(); k++) {
                        if (isFloat(o.input(k).dataType())) {
                            b.setInput(k, o.input(k).withDataType(dt));
                        }
                    }
                    for (int k = 0; k < o.outputs().size(); k++) {
                        if (isFloat(o.output(k).dataType())) {
                            b.setOutput(k, o.output(k).withDataType(dt));
                        }
                    }
                }
                return;
            }
            for (String entry : spec.split("\\+")) {
                String[] kv = split2(entry, "dt", "ID:DT");
                DataType dt = parseDataType(kv[1], "dt");
                mapTensor(parseLong(kv[0], "dt", entry), t -> t.withDataType(dt), "dt");
            }
        }

        private static boolean isFloat(DataType dt) {
            return dt == DataType.F32 || dt == DataType.BF16 || dt == DataType.F16;
        }

        void inShapes(String spec) {
            Set<Long> produced = produced();
            Set<Long> consumed = consumed();
            for (String entry : spec.split("\\+")) {
                String[] kv = split2(entry, "in-shapes", "ID:SHAPE[*TAG|*STRIDES]");
                String idText = kv[0];
                if (idText.contains("*")) {
                    throw new CaseRewriteException("--in-shapes=" + entry + ": expected ID:SHAPE*TAG, the tag goes after the shape");
                }
                long id = parseLong(idText, "in-shapes", entry);
                if (!produced.contains(id) && !consumed.contains(id)) {
                    // benchdnn looks the graph's tensors up in the option, so other ids (often
                    // knobs carried over from an earlier --case line) do nothing.
                    ignored.add("in-shapes " + id);
                    continue;
                }
                boolean boundary = !produced.contains(id) || !consumed.contains(id);
                if (!boundary) {
                    throw new CaseRewriteException("--in-shapes=" + entry + ": tensor " + id
                            + " is internal to the graph; only graph inputs and outputs can be rewritten");
                }
                String value = kv[1];
                String shapeText = value;
                String layoutText = null;
                int star = value.indexOf('*');
                if (star >= 0) {
                    shapeText = value.substring(0, star);
                    layoutText = value.substring(star + 1);
                }
                long[] dims = shapeText.isEmpty() ? null : parseShape(shapeText, entry);
                String layout = layoutText;
                mapTensor(id, t -> reshaped(t, dims, layout, entry), "in-shapes");
                if (produced.contains(id)) {
                    pinnedOutputs.add(id);
                }
                reinfer |= dims != null;
            }
        }

        private static long[] parseShape(String text, String entry) {
            // "-" is the older spelling of a rank-zero tensor, still used by harness files.
            if (text.equals("scalar") || text.equals("-")) {
                return new long[0];
            }
            String[] parts = text.split("x");
            long[] d = new long[parts.length];
            for (int i = 0; i < parts.length; i++) {
                try {
                    d[i] = Long.parseLong(parts[i]);
                } catch (NumberFormatException e) {
                    throw new CaseRewriteException("--in-shapes=" + entry + ": '" + text
                            + "' is not a shape; expected dims joined by x (e.g. 2x64x56x56) or 'scalar'");
                }
                if (d[i] < 0) {
                    throw new CaseRewriteException("--in-shapes=" + entry + ": negative dim " + d[i]);
                }
            }
            return d;
        }

        private static LogicalTensor reshaped(LogicalTensor t, long[] dims, String layout, String entry) {
            long[] d = dims != null ? dims : t.dims();
            LogicalTensor r = dims != null ? t.withDims(d) : t;
            if (layout == null) {
                return r;
            }
            if (d == null) {
                throw new CaseRewriteException("--in-shapes=" + entry + ": tensor " + t.id() + " has no known shape to lay out");
            }
            long[] strides = layout.chars().allMatch(Character::isLetter) ? stridesOfTag(layout, d, entry)
                    : parseStrides(layout, d.length, entry);
            return LogicalTensor.of(t.id(), t.dataType(), d, LayoutType.STRIDED, strides, t.property());
        }

        /** A tag lists dims from outermost to innermost, e.g. acdb = channels last for 4-D. */
        static long[] stridesOfTag(String tag, long[] dims, String entry) {
            if (tag.length() != dims.length) {
                throw new CaseRewriteException("--in-shapes=" + entry + ": tag '" + tag + "' has " + tag.length()
                        + " letters for a rank-" + dims.length + " tensor");
            }
            long[] s = new long[dims.length];
            boolean[] seen = new boolean[dims.length];
            long acc = 1;
            for (int i = tag.length() - 1; i >= 0; i--) {
                int dim = tag.charAt(i) - 'a';
                if (dim < 0 || dim >= dims.length || seen[dim]) {
                    throw new CaseRewriteException("--in-shapes=" + entry + ": tag '" + tag
                            + "' must be a permutation of the first " + dims.length + " letters");
                }
                seen[dim] = true;
                s[dim] = acc;
                acc *= Math.max(dims[dim], 1);
            }
            return s;
        }

        private static long[] parseStrides(String text, int rank, String entry) {
            String[] parts = text.split("x");
            if (parts.length != rank) {
                throw new CaseRewriteException("--in-shapes=" + entry + ": " + parts.length + " strides for rank " + rank);
            }
            long[] s = new long[rank];
            for (int i = 0; i < rank; i++) {
                try {
                    s[i] = Long.parseLong(parts[i]);
                } catch (NumberFormatException e) {
                    throw new CaseRewriteException("--in-shapes=" + entry + ": '" + text
                            + "' is neither a tag (letters) nor strides (numbers joined by x)");
                }
            }
            return s;
        }

        void minibatch(String spec) {
            long mb = parseLong(spec, "mb", spec);
            if (mb < 0) {
                throw new CaseRewriteException("--mb=" + spec + ": expected a non-negative integer");
            }
            if (mb == 0) {
                return;
            }
            // The minibatch is dim 0 of the variable graph inputs that share the first one's dim 0.
            Set<Long> produced = produced();
            Long batch = null;
            Map<Long, LogicalTensor> inputs = new LinkedHashMap<>();
            for (Op op : built()) {
                for (LogicalTensor t : op.inputs()) {
                    if (!produced.contains(t.id()) && t.property() != PropertyType.CONSTANT && t.ndims() > 0) {
                        inputs.putIfAbsent(t.id(), t);
                    }
                }
            }
            for (LogicalTensor t : inputs.values()) {
                if (batch == null) {
                    batch = t.dim(0);
                }
                if (t.dim(0) == batch) {
                    long[] d = t.dims();
                    d[0] = mb;
                    mapTensor(t.id(), x -> x.withDims(d), "mb");
                    reinfer = true;
                }
            }
        }

        void opAttrs(String spec) {
            for (String opEntry : spec.split("\\+")) {
                int colon = opEntry.indexOf(':');
                if (colon < 0) {
                    throw new CaseRewriteException("--op-attrs=" + opEntry + ": expected OP_ID:NAME:VALUE[*NAME:VALUE]");
                }
                long id = parseLong(opEntry.substring(0, colon), "op-attrs", opEntry);
                if (built().stream().noneMatch(o -> o.id() == id)) {
                    ignored.add("op-attrs " + id); // as benchdnn: only the graph's ops are looked up
                    continue;
                }
                int idx = indexOfOp(id, "op-attrs");
                Op op = ops.get(idx).build();
                OpSchema schema = schemas.find(op.kind()).orElse(null);
                for (String attr : opEntry.substring(colon + 1).split("\\*")) {
                    String[] kv = split2(attr, "op-attrs", "NAME:VALUE");
                    if ("undef".equals(kv[1])) {
                        ops.get(idx).removeAttr(kv[0]);
                        continue;
                    }
                    AttrSpec as = schema == null ? null : schema.attrs().get(kv[0]);
                    AttrType type = as != null ? as.type() : op.attr(kv[0]).map(AttrValue::type).orElse(null);
                    if (type == null) {
                        throw new CaseRewriteException("--op-attrs=" + opEntry + ": " + op.describe()
                                + " has no attribute '" + kv[0] + "'");
                    }
                    ops.get(idx).attr(kv[0], parseAttr(type, kv[1], opEntry));
                }
                // Attributes decide shapes (keep_dims, strides, shape...): infer again.
                reinfer = true;
            }
        }

        private static AttrValue parseAttr(AttrType type, String text, String entry) {
            try {
                return switch (type) {
                    case BOOL -> {
                        String t = text.toLowerCase(Locale.ROOT);
                        if (!List.of("0", "1", "true", "false").contains(t)) {
                            throw new CaseRewriteException("--op-attrs=" + entry + ": '" + text
                                    + "' is not a bool; expected 0, 1, true or false");
                        }
                        yield AttrValue.of(t.equals("1") || t.equals("true"));
                    }
                    case S64 -> AttrValue.of(Long.parseLong(text));
                    case F32 -> AttrValue.of(Float.parseFloat(text));
                    case STRING -> AttrValue.of(text);
                    case S64_ARRAY -> AttrValue.of(Arrays.stream(text.split("x")).mapToLong(Long::parseLong).toArray());
                    case F32_ARRAY -> {
                        String[] parts = text.split("x");
                        float[] f = new float[parts.length];
                        for (int i = 0; i < f.length; i++) {
                            f[i] = Float.parseFloat(parts[i]);
                        }
                        yield AttrValue.of(f);
                    }
                };
            } catch (NumberFormatException e) {
                throw new CaseRewriteException("--op-attrs=" + entry + ": '" + text + "' is not a valid " + type + " value");
            }
        }

        void properties(String spec) {
            for (String entry : spec.split("\\+")) {
                String[] kv = split2(entry, "tensor-property", "ID:PROPERTY");
                PropertyType p;
                try {
                    p = PropertyType.fromSpelling(kv[1]);
                } catch (IllegalArgumentException e) {
                    throw new CaseRewriteException("--tensor-property=" + entry + ": " + e.getMessage());
                }
                mapTensor(parseLong(kv[0], "tensor-property", entry), t -> t.withProperty(p), "tensor-property");
            }
        }

        void fpmath(String spec) {
            String[] parts = spec.split(":");
            try {
                fpmath = FpMathMode.fromSpelling(parts[0]);
            } catch (IllegalArgumentException e) {
                throw new CaseRewriteException("--attr-fpmath=" + spec + ": " + e.getMessage());
            }
            if (parts.length > 1) {
                if (!parts[1].equals("true") && !parts[1].equals("false")) {
                    throw new CaseRewriteException("--attr-fpmath=" + spec + ": APPLY_TO_INT must be true or false");
                }
                applyToInt = Boolean.parseBoolean(parts[1]);
            } else {
                applyToInt = false;
            }
        }

        GraphDescription result() {
            List<Op> result = built();
            if (reinfer) {
                result = forgetInferredShapes(resizeChannelScales(result));
            }
            return new GraphDescription(base.version(), base.engineKind(), fpmath, applyToInt, base.inputPorts(),
                    base.outputPorts(), result);
        }

        /**
         * Per-channel Quantize/Dequantize carry one scale (and zero point) per channel: when a
         * shape rewrite changes the channel count, the lists follow it, as benchdnn's linked
         * attribute rewrite does (the first value is repeated).
         */
        private static List<Op> resizeChannelScales(List<Op> in) {
            List<Op> out = new ArrayList<>(in.size());
            for (Op op : in) {
                boolean quant = op.kind() == OpKind.Quantize || op.kind() == OpKind.Dequantize;
                long[] dims = op.inputs().isEmpty() ? null : op.input(0).dims();
                if (!quant || dims == null || !op.hasAttr("qtype") || !"per_channel".equals(op.stringAttr("qtype"))
                        || !op.hasAttr("scales") || !op.hasAttr("axis")) {
                    out.add(op);
                    continue;
                }
                long axis = op.longAttr("axis");
                int a = (int) (axis < 0 ? axis + dims.length : axis);
                if (a < 0 || a >= dims.length || dims[a] < 0 || op.floatsAttr("scales").length == dims[a]) {
                    out.add(op);
                    continue;
                }
                int channels = (int) dims[a];
                Op.Builder b = op.toBuilder();
                float[] scales = new float[channels];
                java.util.Arrays.fill(scales, op.floatsAttr("scales")[0]);
                b.attr("scales", scales);
                if (op.hasAttr("zps") && op.longsAttr("zps").length > 0) {
                    long[] zps = new long[channels];
                    java.util.Arrays.fill(zps, op.longsAttr("zps")[0]);
                    b.attr("zps", zps);
                }
                out.add(b.build());
            }
            return out;
        }

        /**
         * After a shape rewrite, tensors computed by ops get unknown dims (unless their shape was
         * rewritten too) so finalization infers them from the new inputs.
         */
        private List<Op> forgetInferredShapes(List<Op> in) {
            Set<Long> produced = new HashSet<>();
            in.forEach(op -> op.outputs().forEach(t -> produced.add(t.id())));
            Map<Long, LogicalTensor> cache = new HashMap<>();
            List<Op> out = new ArrayList<>();
            for (Op op : in) {
                Op.Builder b = op.toBuilder();
                for (int k = 0; k < op.inputs().size(); k++) {
                    b.setInput(k, forget(op.input(k), produced, cache));
                }
                for (int k = 0; k < op.outputs().size(); k++) {
                    b.setOutput(k, forget(op.output(k), produced, cache));
                }
                out.add(b.build());
            }
            return out;
        }

        private LogicalTensor forget(LogicalTensor t, Set<Long> produced, Map<Long, LogicalTensor> cache) {
            if (!produced.contains(t.id()) || pinnedOutputs.contains(t.id())) {
                return t;
            }
            return cache.computeIfAbsent(t.id(),
                    id -> LogicalTensor.unknownRank(id, t.dataType()).withProperty(t.property()));
        }

        private static String[] split2(String entry, String knob, String form) {
            int c = entry.indexOf(':');
            if (c <= 0 || c == entry.length() - 1) {
                throw new CaseRewriteException("--" + knob + "=" + entry + ": expected " + form);
            }
            return new String[] {entry.substring(0, c), entry.substring(c + 1)};
        }

        private static long parseLong(String text, String knob, String entry) {
            try {
                return Long.parseLong(text.trim());
            } catch (NumberFormatException e) {
                throw new CaseRewriteException("--" + knob + "=" + entry + ": '" + text + "' is not an integer id");
            }
        }

        private static DataType parseDataType(String text, String knob) {
            try {
                return DataType.fromSpelling(text);
            } catch (IllegalArgumentException e) {
                throw new CaseRewriteException("--" + knob + ": " + e.getMessage());
            }
        }
    }
}
