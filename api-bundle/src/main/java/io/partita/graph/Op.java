package io.partita.graph;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One operation of a graph: id, kind, name, typed attributes, and its input and output logical
 * tensors. Immutable; build it with {@link #builder(long, OpKind)}.
 */
public final class Op {
    private final long id;
    private final OpKind kind;
    private final String name;
    private final Map<String, AttrValue> attrs;
    private final List<LogicalTensor> inputs;
    private final List<LogicalTensor> outputs;

    private Op(Builder b) {
        this.id = b.id;
        this.kind = b.kind;
        this.name = b.name != null ? b.name : kind.spelling() + "_" + b.id;
        this.attrs = Collections.unmodifiableMap(new LinkedHashMap<>(b.attrs));
        this.inputs = List.copyOf(b.inputs);
        this.outputs = List.copyOf(b.outputs);
    }

    public static Builder builder(long id, OpKind kind) {
        return new Builder(id, kind);
    }

    public long id() {
        return id;
    }

    public OpKind kind() {
        return kind;
    }

    public String name() {
        return name;
    }

    /** All attributes, in insertion order. */
    public Map<String, AttrValue> attrs() {
        return attrs;
    }

    public boolean hasAttr(String attr) {
        return attrs.containsKey(attr);
    }

    public Optional<AttrValue> attr(String attr) {
        return Optional.ofNullable(attrs.get(attr));
    }

    public boolean boolAttr(String attr) {
        return required(attr).asBool();
    }

    public long longAttr(String attr) {
        return required(attr).asLong();
    }

    public long[] longsAttr(String attr) {
        return required(attr).asLongs();
    }

    public float floatAttr(String attr) {
        return required(attr).asFloat();
    }

    public float[] floatsAttr(String attr) {
        return required(attr).asFloats();
    }

    public String stringAttr(String attr) {
        return required(attr).asString();
    }

    private AttrValue required(String attr) {
        AttrValue v = attrs.get(attr);
        if (v == null) {
            throw new IllegalStateException("op " + id + " (" + kind.spelling() + ") has no attribute '" + attr + "'");
        }
        return v;
    }

    public List<LogicalTensor> inputs() {
        return inputs;
    }

    public List<LogicalTensor> outputs() {
        return outputs;
    }

    public LogicalTensor input(int i) {
        return inputs.get(i);
    }

    public LogicalTensor output(int i) {
        return outputs.get(i);
    }

    /** A builder pre-filled with this op, to derive a modified copy. */
    public Builder toBuilder() {
        Builder b = new Builder(id, kind).name(name);
        b.attrs.putAll(attrs);
        b.inputs.addAll(inputs);
        b.outputs.addAll(outputs);
        return b;
    }

    /** Short description used in error messages: {@code op 3 (MatMul "fc1")}. */
    public String describe() {
        return "op " + id + " (" + kind.spelling() + (name.equals(kind.spelling() + "_" + id) ? "" : " \"" + name + "\"") + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Op op && op.id == id && op.kind == kind && op.name.equals(name) && op.attrs.equals(attrs)
                && op.inputs.equals(inputs) && op.outputs.equals(outputs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, kind, name, attrs, inputs, outputs);
    }

    @Override
    public String toString() {
        return describe() + " attrs " + attrs + " inputs " + inputs + " outputs " + outputs;
    }

    /** Builds an {@link Op}. */
    public static final class Builder {
        private final long id;
        private final OpKind kind;
        private String name;
        private final Map<String, AttrValue> attrs = new LinkedHashMap<>();
        private final List<LogicalTensor> inputs = new ArrayList<>();
        private final List<LogicalTensor> outputs = new ArrayList<>();

        private Builder(long id, OpKind kind) {
            if (id < 0) {
                throw new IllegalArgumentException("op id must be >= 0, got " + id);
            }
            this.id = id;
            this.kind = Objects.requireNonNull(kind, "op kind");
        }

        public Builder name(String n) {
            this.name = n;
            return this;
        }

        public Builder attr(String attr, AttrValue value) {
            attrs.put(Objects.requireNonNull(attr, "attribute name"), Objects.requireNonNull(value, attr));
            return this;
        }

        public Builder attr(String attr, boolean value) {
            return attr(attr, AttrValue.of(value));
        }

        public Builder attr(String attr, long value) {
            return attr(attr, AttrValue.of(value));
        }

        public Builder attr(String attr, long... value) {
            return attr(attr, AttrValue.of(value));
        }

        public Builder attr(String attr, float value) {
            return attr(attr, AttrValue.of(value));
        }

        public Builder attr(String attr, float... value) {
            return attr(attr, AttrValue.of(value));
        }

        public Builder attr(String attr, String value) {
            return attr(attr, AttrValue.of(value));
        }

        public Builder removeAttr(String attr) {
            attrs.remove(attr);
            return this;
        }

        public Builder input(LogicalTensor t) {
            inputs.add(Objects.requireNonNull(t, "input"));
            return this;
        }

        public Builder inputs(LogicalTensor... ts) {
            for (LogicalTensor t : ts) {
                input(t);
            }
            return this;
        }

        public Builder setInput(int i, LogicalTensor t) {
            inputs.set(i, Objects.requireNonNull(t, "input"));
            return this;
        }

        public Builder output(LogicalTensor t) {
            outputs.add(Objects.requireNonNull(t, "output"));
            return this;
        }

        public Builder outputs(LogicalTensor... ts) {
            for (LogicalTensor t : ts) {
                output(t);
            }
            return this;
        }

        public Builder setOutput(int i, LogicalTensor t) {
            outputs.set(i, Objects.requireNonNull(t, "output"));
            return this;
        }

        public Builder clearInputs() {
            inputs.clear();
            return this;
        }

        public Builder clearOutputs() {
            outputs.clear();
            return this;
        }

        public Op build() {
            return new Op(this);
        }
    }
}
