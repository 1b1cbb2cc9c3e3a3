package io.partita.runtime.schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.partita.graph.AttrType;
import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.AttrSpec;
import io.partita.graph.OpSchema.Port;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.graph.OpSchema;

/**
 * The rules of one op kind: ports (arity, data types), attributes (names, types, defaults,
 * required), extra validation and shape inference. Names follow oneDNN's op specifications.
 */
public final class OpSchemaImpl implements OpSchema {
    private final OpKind kind;
    private final List<Port> inputs;
    private final List<Port> outputs;
    private final Map<String, AttrSpec> attrs;
    private final List<OpValidator> validators;
    private final ShapeInferer shapeInferer;

    private OpSchemaImpl(Builder b) {
        this.kind = b.kind;
        this.inputs = List.copyOf(b.inputs);
        this.outputs = List.copyOf(b.outputs);
        this.attrs = Map.copyOf(b.attrs);
        this.validators = List.copyOf(b.validators);
        this.shapeInferer = b.shapeInferer;
    }

    public static Builder builder(OpKind kind) {
        return new Builder(kind);
    }

    public OpKind kind() {
        return kind;
    }

    public List<Port> inputs() {
        return inputs;
    }

    public List<Port> outputs() {
        return outputs;
    }

    public Map<String, AttrSpec> attrs() {
        return attrs;
    }

    /** The port an input index maps to (the variadic last port repeats). */
    public Port inputPort(int i) {
        return port(inputs, i);
    }

    public Port outputPort(int i) {
        return port(outputs, i);
    }

    private static Port port(List<Port> ports, int i) {
        if (i < ports.size()) {
            return ports.get(i);
        }
        Port last = ports.isEmpty() ? null : ports.get(ports.size() - 1);
        return last != null && last.variadic() ? last : null;
    }

    static int minCount(List<Port> ports) {
        int n = 0;
        for (Port p : ports) {
            if (!p.optional()) {
                n++;
            }
        }
        return n;
    }

    static int maxCount(List<Port> ports) {
        if (!ports.isEmpty() && ports.get(ports.size() - 1).variadic()) {
            return Integer.MAX_VALUE;
        }
        return ports.size();
    }

    /**
     * Checks an op against this schema in isolation: arity, attribute names/types/values, data
     * types. Returns the op with attribute defaults filled in.
     */
    public Op validate(Op op) {
        checkArity(op, "input", op.inputs().size(), inputs);
        checkArity(op, "output", op.outputs().size(), outputs);
        Op.Builder withDefaults = op.toBuilder();
        for (Map.Entry<String, AttrValue> e : op.attrs().entrySet()) {
            AttrSpec spec = attrs.get(e.getKey());
            if (spec == null) {
                throw new InvalidGraphException(op.id(), op.describe() + ": unknown attribute '" + e.getKey()
                        + "'; " + kind.spelling() + " takes " + attrNames());
            }
            AttrValue v = e.getValue();
            if (v.type() != spec.type()) {
                throw new InvalidGraphException(op.id(), op.describe() + ": attribute '" + e.getKey() + "' is of type "
                        + v.type() + ", expected " + spec.type());
            }
            if (spec.check() != null && !spec.check().test(v)) {
                throw new InvalidGraphException(op.id(), op.describe() + ": attribute '" + e.getKey() + "' = " + v
                        + " is invalid; expected " + spec.expected());
            }
        }
        for (AttrSpec spec : attrs.values()) {
            if (!op.hasAttr(spec.name())) {
                if (spec.required()) {
                    throw new InvalidGraphException(op.id(), op.describe() + ": missing required attribute '"
                            + spec.name() + "' of type " + spec.type());
                }
                if (spec.defaultValue() != null) {
                    withDefaults.attr(spec.name(), spec.defaultValue());
                }
            }
        }
        checkTypes(op);
        Op result = withDefaults.build();
        for (OpValidator v : validators) {
            v.validate(result);
        }
        return result;
    }

    private String attrNames() {
        if (attrs.isEmpty()) {
            return "no attributes";
        }
        List<String> names = new ArrayList<>(attrs.keySet());
        names.sort(null);
        return "attributes " + names;
    }

    private void checkArity(Op op, String what, int n, List<Port> ports) {
        int min = minCount(ports);
        int max = maxCount(ports);
        if (n < min || n > max) {
            String expected = min == max ? Integer.toString(min)
                    : max == Integer.MAX_VALUE ? "at least " + min : "between " + min + " and " + max;
            throw new InvalidGraphException(op.id(), op.describe() + ": has " + n + " " + what + "s, expected "
                    + expected + " (" + portNames(ports) + ")");
        }
    }

    private static String portNames(List<Port> ports) {
        List<String> names = new ArrayList<>();
        for (Port p : ports) {
            names.add(p.name() + (p.optional() ? "?" : "") + (p.variadic() ? "..." : ""));
        }
        return String.join(", ", names);
    }

    private void checkTypes(Op op) {
        Map<String, DataType> bound = new HashMap<>();
        Map<String, String> boundBy = new HashMap<>();
        for (int i = 0; i < op.inputs().size(); i++) {
            checkType(op, "input", i, op.inputs().get(i), inputPort(i), bound, boundBy);
        }
        for (int i = 0; i < op.outputs().size(); i++) {
            checkType(op, "output", i, op.outputs().get(i), outputPort(i), bound, boundBy);
        }
    }

    private static void checkType(Op op, String what, int i, LogicalTensor t, Port port, Map<String, DataType> bound,
            Map<String, String> boundBy) {
        DataType dt = t.dataType();
        String where = what + " " + i + " (" + port.name() + ", tensor " + t.id() + ")";
        if (dt == DataType.UNDEF) {
            throw new InvalidGraphException(op.id(), op.describe() + ": " + where + " has undefined data type");
        }
        if (!port.types().contains(dt)) {
            throw new InvalidGraphException(op.id(), op.describe() + ": " + where + " has data type " + dt
                    + ", expected one of " + sorted(port.types()));
        }
        if (port.typeVar() != null) {
            DataType prev = bound.putIfAbsent(port.typeVar(), dt);
            if (prev != null && prev != dt) {
                throw new InvalidGraphException(op.id(), op.describe() + ": " + where + " has data type " + dt
                        + " but " + boundBy.get(port.typeVar()) + " has " + prev + "; they must match");
            }
            boundBy.putIfAbsent(port.typeVar(), where);
        }
    }

    private static List<String> sorted(Set<DataType> types) {
        return types.stream().map(DataType::spelling).sorted().toList();
    }

    /**
     * Infers output dims for the given input descriptions and merges them with the declared
     * outputs: a declared known dim that contradicts the inferred one is an error.
     *
     * @return the outputs with merged dims
     */
    public List<LogicalTensor> inferOutputs(Op op, List<LogicalTensor> currentInputs, Map<Long, long[]> values) {
        List<LogicalTensor> declared = op.outputs();
        if (shapeInferer == null) {
            return declared;
        }
        ShapeContext ctx = new ShapeContext(op, currentInputs, values);
        shapeInferer.infer(ctx);
        List<LogicalTensor> result = new ArrayList<>(declared.size());
        for (int i = 0; i < declared.size(); i++) {
            LogicalTensor d = declared.get(i);
            if (!ctx.isOutputSet(i) || ctx.outputDims(i) == null) {
                result.add(d);
                continue;
            }
            long[] inferred = ctx.outputDims(i);
            long[] dd = d.dims();
            if (dd == null) {
                result.add(d.withDims(inferred));
                continue;
            }
            if (dd.length != inferred.length) {
                throw new InvalidGraphException(op.id(), op.describe() + ": output " + i + " (tensor " + d.id()
                        + ") is declared with rank " + dd.length + " " + LogicalTensor.dimsToString(dd)
                        + " but its inputs give rank " + inferred.length + " " + LogicalTensor.dimsToString(inferred));
            }
            long[] merged = new long[dd.length];
            for (int k = 0; k < dd.length; k++) {
                Long m = Dims.merge(dd[k], inferred[k]);
                if (m == null) {
                    throw new InvalidGraphException(op.id(), op.describe() + ": output " + i + " (tensor " + d.id()
                            + ") is declared " + LogicalTensor.dimsToString(dd) + " but its inputs give "
                            + LogicalTensor.dimsToString(inferred) + " (dim " + k + ")");
                }
                // A dynamic inferred dim stays dynamic even when the declaration is concrete:
                // the value is only known at execution.
                merged[k] = inferred[k] == LogicalTensor.DYNAMIC_DIM ? LogicalTensor.DYNAMIC_DIM : m;
            }
            result.add(Arrays.equals(merged, dd) ? d : keepLayout(d, merged));
        }
        return result;
    }

    private static LogicalTensor keepLayout(LogicalTensor d, long[] dims) {
        return d.withDims(dims);
    }

    @Override
    public String toString() {
        return "OpSchemaImpl[" + kind.spelling() + "]";
    }

    /** Builds an {@link OpSchemaImpl}. */
    public static final class Builder {
        private final OpKind kind;
        private final List<Port> inputs = new ArrayList<>();
        private final List<Port> outputs = new ArrayList<>();
        private final Map<String, AttrSpec> attrs = new LinkedHashMap<>();
        private final List<OpValidator> validators = new ArrayList<>();
        private final Map<String, Set<DataType>> typeVars = new HashMap<>();
        private ShapeInferer shapeInferer;

        private Builder(OpKind kind) {
            this.kind = kind;
        }

        /** Declares a type variable: ports using it accept these types and must agree. */
        public Builder typeVar(String name, DataType... types) {
            typeVars.put(name, Set.copyOf(Arrays.asList(types)));
            return this;
        }

        private Set<DataType> typesOf(String typeVar) {
            Set<DataType> t = typeVars.get(typeVar);
            if (t == null) {
                throw new IllegalStateException(kind + ": type variable " + typeVar + " not declared");
            }
            return t;
        }

        /** A required input bound to a type variable. */
        public Builder input(String name, String typeVar) {
            return input(name, typeVar, ValueDomain.ANY);
        }

        public Builder input(String name, String typeVar, ValueDomain domain) {
            inputs.add(new Port(name, typeVar, typesOf(typeVar), false, false, domain));
            return this;
        }

        /** A required input accepting a set of types, not tied to other ports. */
        public Builder input(String name, Set<DataType> types, ValueDomain domain) {
            inputs.add(new Port(name, null, Set.copyOf(types), false, false, domain));
            return this;
        }

        public Builder optionalInput(String name, String typeVar) {
            return optionalInput(name, typeVar, ValueDomain.ANY);
        }

        public Builder optionalInput(String name, String typeVar, ValueDomain domain) {
            inputs.add(new Port(name, typeVar, typesOf(typeVar), true, false, domain));
            return this;
        }

        public Builder optionalInput(String name, Set<DataType> types, ValueDomain domain) {
            inputs.add(new Port(name, null, Set.copyOf(types), true, false, domain));
            return this;
        }

        /** A repeating last input (at least {@code min} required in total is checked by arity). */
        public Builder variadicInput(String name, String typeVar) {
            inputs.add(new Port(name, typeVar, typesOf(typeVar), false, true, ValueDomain.ANY));
            return this;
        }

        public Builder output(String name, String typeVar) {
            outputs.add(new Port(name, typeVar, typesOf(typeVar), false, false, ValueDomain.ANY));
            return this;
        }

        public Builder output(String name, Set<DataType> types) {
            outputs.add(new Port(name, null, Set.copyOf(types), false, false, ValueDomain.ANY));
            return this;
        }

        public Builder optionalOutput(String name, String typeVar) {
            outputs.add(new Port(name, typeVar, typesOf(typeVar), true, false, ValueDomain.ANY));
            return this;
        }

        public Builder optionalOutput(String name, Set<DataType> types) {
            outputs.add(new Port(name, null, Set.copyOf(types), true, false, ValueDomain.ANY));
            return this;
        }

        public Builder attr(AttrSpec spec) {
            attrs.put(spec.name(), spec);
            return this;
        }

        public Builder requiredAttr(String name, AttrType type) {
            return attr(AttrSpec.required(name, type));
        }

        public Builder optionalAttr(String name, AttrType type) {
            return attr(AttrSpec.optional(name, type));
        }

        public Builder attr(String name, boolean def) {
            return attr(AttrSpec.withDefault(name, AttrValue.of(def)));
        }

        public Builder attr(String name, long def) {
            return attr(AttrSpec.withDefault(name, AttrValue.of(def)));
        }

        public Builder attr(String name, float def) {
            return attr(AttrSpec.withDefault(name, AttrValue.of(def)));
        }

        public Builder attr(String name, String def, String... allowed) {
            AttrSpec s = AttrSpec.withDefault(name, AttrValue.of(def));
            return attr(allowed.length == 0 ? s : s.oneOf(allowed));
        }

        public Builder attr(String name, long[] def) {
            return attr(AttrSpec.withDefault(name, AttrValue.of(def)));
        }

        public Builder attr(String name, float[] def) {
            return attr(AttrSpec.withDefault(name, AttrValue.of(def)));
        }

        public Builder validator(OpValidator v) {
            validators.add(v);
            return this;
        }

        public Builder shape(ShapeInferer inferer) {
            this.shapeInferer = inferer;
            return this;
        }

        public OpSchemaImpl build() {
            if (shapeInferer == null && !outputs.isEmpty() && kind != OpKind.Wildcard) {
                throw new IllegalStateException(kind + " has outputs but no shape inference");
            }
            return new OpSchemaImpl(this);
        }
    }

    /** Common data-type sets. */
    public static final Set<DataType> FLOATS = Set.copyOf(EnumSet.of(DataType.F32, DataType.BF16, DataType.F16));
    public static final Set<DataType> ALL_TYPES = Set.copyOf(EnumSet.complementOf(EnumSet.of(DataType.UNDEF)));
}
