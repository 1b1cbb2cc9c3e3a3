package io.partita.formats.onnx.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.formats.onnx.UnsupportedOnnxException;
import io.partita.formats.onnx.internal.proto.AttributeProto;
import io.partita.formats.onnx.internal.proto.NodeProto;
import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.Port;
import io.partita.graph.OpSchema;
import io.partita.graph.OpSchemaRegistry;
import io.partita.graph.PropertyType;

/**
 * The state of one import: ONNX value names bound to logical tensors or constant values, the ops
 * emitted so far, and the node being translated (attribute access through this class records
 * which attributes a translator used, so an attribute nobody read is reported, not dropped).
 *
 * <p>Every op is checked against its schema as it is emitted: a data type the oneDNN op does not
 * take becomes an {@link UnsupportedOnnxException}, and output dims are inferred at once so the
 * next translators see concrete shapes.
 */
public final class ImportContext {
    private final OpSchemaRegistry schemas;
    private final String source;
    private final long opset;
    private final Map<String, LogicalTensor> tensors = new HashMap<>();
    private final Map<String, OnnxTensor> constantValues = new HashMap<>();
    private final Map<String, LogicalTensor> materialized = new HashMap<>();
    private final Map<Long, OnnxTensor> constantsById = new LinkedHashMap<>();
    private final Map<Long, long[]> knownValues = new HashMap<>();
    private final Map<String, long[]> declaredDims = new HashMap<>();
    private final List<Op> ops = new ArrayList<>();
    private final Set<OpKind> extensions = new HashSet<>();
    private long nextTensorId = 1;
    private long nextOpId = 0;
    private NodeProto node;
    private Set<String> usedAttrs;
    private int opVersion = -1;

    ImportContext(OpSchemaRegistry schemas, String source, long opset) {
        this.schemas = schemas;
        this.source = source;
        this.opset = opset;
    }

    // ---------------------------------------------------------------- node being translated

    void begin(NodeProto n) {
        this.node = n;
        this.usedAttrs = new HashSet<>();
        this.opVersion = -1;
    }

    /**
     * The version of the node's op whose semantics the translation follows: the newest version
     * with a translator that is not above the model's opset (-1 while only constant folding).
     */
    public int opVersion() {
        return opVersion;
    }

    void setOpVersion(int v) {
        this.opVersion = v;
    }

    NodeProto node() {
        return node;
    }

    public long opset() {
        return opset;
    }

    String source() {
        return source;
    }

    String nodeName() {
        if (!node.name().isEmpty()) {
            return "'" + node.name() + "'";
        }
        return node.outputs().isEmpty() ? "(unnamed)" : "(unnamed, output '" + node.outputs().get(0) + "')";
    }

    public UnsupportedOnnxException unsupported(String reason) {
        return new UnsupportedOnnxException(node.opType(), opset, nodeName(), reason);
    }

    public OnnxImportException invalid(String reason) {
        return new OnnxImportException(where() + ": " + reason);
    }

    /** "model.onnx: node NAME (OpType)", for messages. */
    String where() {
        return source + ": node " + nodeName() + " (" + node.opType() + ")";
    }

    /** Attributes the translator did not read. */
    List<AttributeProto> unusedAttributes() {
        List<AttributeProto> out = new ArrayList<>();
        for (AttributeProto a : node.attributes()) {
            if (!usedAttrs.contains(a.name())) {
                out.add(a);
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- attributes

    private AttributeProto attr(String name, int type) {
        usedAttrs.add(name);
        for (AttributeProto a : node.attributes()) {
            if (a.name().equals(name)) {
                if (!a.refAttrName().isEmpty()) {
                    throw invalid("attribute '" + name + "' refers to a function attribute ('" + a.refAttrName()
                            + "'); only valid inside functions");
                }
                if (a.type() != type) {
                    throw invalid("attribute '" + name + "' is " + AttributeProto.typeName(a.type()) + "; expected "
                            + AttributeProto.typeName(type));
                }
                return a;
            }
        }
        return null;
    }

    public boolean hasAttr(String name) {
        return node.attributes().stream().anyMatch(a -> a.name().equals(name));
    }

    /** Marks an attribute read (for attributes a translator accepts but that change nothing). */
    public void ignoreAttr(String name) {
        usedAttrs.add(name);
    }

    public long intAttr(String name, long def) {
        AttributeProto a = attr(name, AttributeProto.INT);
        return a == null ? def : a.i();
    }

    public float floatAttr(String name, float def) {
        AttributeProto a = attr(name, AttributeProto.FLOAT);
        return a == null ? def : a.f();
    }

    public long[] intsAttr(String name, long[] def) {
        AttributeProto a = attr(name, AttributeProto.INTS);
        return a == null ? def : a.ints();
    }

    public float[] floatsAttr(String name, float[] def) {
        AttributeProto a = attr(name, AttributeProto.FLOATS);
        return a == null ? def : a.floats();
    }

    public String stringAttr(String name, String def) {
        AttributeProto a = attr(name, AttributeProto.STRING);
        // An absent s field is protobuf's default, the empty string.
        return a == null ? def : a.s() == null ? "" : new String(a.s(), StandardCharsets.UTF_8);
    }

    public OnnxTensor tensorAttr(String name) {
        AttributeProto a = attr(name, AttributeProto.TENSOR);
        if (a != null && a.t() == null) {
            throw invalid("attribute '" + name + "' is TENSOR but holds no tensor (field t)");
        }
        return a == null ? null : TensorValues.toTensor(a.t(), source, "attribute '" + name + "' of node " + nodeName());
    }

    // ---------------------------------------------------------------- values

    void defineInput(String name, LogicalTensor t) {
        tensors.put(name, t);
    }

    /** The concrete dims a graph output is declared with (its value info), for ops whose dims depend on floats. */
    void declareOutputDims(String name, long[] dims) {
        declaredDims.put(name, dims.clone());
    }

    /** The declared concrete dims of node output i, or null when it is no graph output declared so. */
    public long[] declaredOutputDims(int i) {
        if (!hasOutput(i)) {
            return null;
        }
        long[] d = declaredDims.get(node.outputs().get(i));
        return d == null ? null : d.clone();
    }

    void defineConstant(String name, OnnxTensor value) {
        constantValues.put(name, value);
    }

    /** Whether node input i is present (ONNX marks an omitted optional input by an empty name). */
    public boolean hasInput(int i) {
        return i < node.inputs().size() && !node.inputs().get(i).isEmpty();
    }

    public int inputCount() {
        return node.inputs().size();
    }

    public int outputCount() {
        return node.outputs().size();
    }

    public boolean hasOutput(int i) {
        return i < node.outputs().size() && !node.outputs().get(i).isEmpty();
    }

    public boolean isConstant(int i) {
        return hasInput(i) && constantValues.containsKey(node.inputs().get(i));
    }

    public boolean allInputsConstant() {
        for (int i = 0; i < node.inputs().size(); i++) {
            if (hasInput(i) && !isConstant(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The value of constant input i.
     *
     * @throws OnnxImportException when the input is omitted
     * @throws UnsupportedOnnxException when it is known only at execution
     */
    public OnnxTensor constant(int i) {
        if (!hasInput(i)) {
            throw invalid("input " + i + " is required");
        }
        OnnxTensor c = constantValues.get(node.inputs().get(i));
        if (c == null) {
            throw unsupported("input " + i + " ('" + node.inputs().get(i) + "') must be a constant");
        }
        return c;
    }

    /**
     * The values of constant input i, which ONNX defines as an integer scalar or 1-D tensor (a
     * shape, axes, slice bounds).
     */
    public long[] intsInput(int i, String what) {
        OnnxTensor c = constant(i);
        if (c.dataType() != DataType.S64 && c.dataType() != DataType.S32) {
            throw invalid(what + " (input " + i + ") is " + c.dataType() + "; expected int64 or int32");
        }
        long[] d = c.dims();
        if (d.length > 1) {
            throw invalid(what + " (input " + i + ") has dims " + LogicalTensor.dimsToString(d) + "; expected 1-D");
        }
        if (c.elementCount() > MAX_FOLDED_ELEMENTS) {
            throw unsupported(what + " (input " + i + ") has " + c.elementCount() + " values; at most "
                    + MAX_FOLDED_ELEMENTS + " are read at import");
        }
        return c.toLongArray();
    }

    /**
     * The most elements a value computed at import (a folded constant, a zero bias) or read for its
     * values may have: constant folding works on doubles, so this bounds it to 128 MB per value, while
     * a tiny model could otherwise ask for any size (ConstantOfShape, broadcasting).
     */
    public static final long MAX_FOLDED_ELEMENTS = 1L << 24;

    /**
     * The element count of dims computed at import, checked: non-negative dims, no overflow, at most
     * {@link #MAX_FOLDED_ELEMENTS}.
     */
    public long foldedCount(long[] dims, String what) {
        long n = 1;
        boolean zero = false;
        boolean overflow = false;
        for (long d : dims) {
            if (d < 0) {
                throw invalid(what + " has dims " + LogicalTensor.dimsToString(dims) + "; expected dims >= 0");
            }
            if (d == 0) {
                zero = true;
            } else if (n > Long.MAX_VALUE / d) {
                overflow = true;
            } else {
                n *= d;
            }
        }
        if (zero) {
            return 0;
        }
        if (overflow || n > MAX_FOLDED_ELEMENTS) {
            throw unsupported(what + " of dims " + LogicalTensor.dimsToString(dims) + " would be computed at import "
                    + "and has " + (overflow ? "more than 2^63-1" : Long.toString(n)) + " elements; at most "
                    + MAX_FOLDED_ELEMENTS + " are");
        }
        return n;
    }

    /** A zero-filled constant value (e.g. an omitted bias), its size checked first. */
    public OnnxTensor zeros(String name, DataType dt, long[] dims) {
        return OnnxTensor.of(name, dt, dims, new double[(int) foldedCount(dims, name)]);
    }

    /**
     * An axis attribute or value in [-rank, rank-1] as an index in [0, rank-1] (compared as a long,
     * so a value such as 2^32 is not truncated into range).
     */
    public int axis(long axis, int rank, String what) {
        if (rank < 0) {
            throw unsupported(what + " " + axis + " on an input of unknown rank");
        }
        if (axis < -rank || axis >= rank) {
            throw invalid(what + " " + axis + " is out of range [" + -rank + ", " + (rank - 1) + "] for rank " + rank);
        }
        return (int) (axis < 0 ? axis + rank : axis);
    }

    /** The dims of a tensor a translation needs the rank of. */
    public long[] rankedDims(LogicalTensor t, String what) {
        long[] d = t.dims();
        if (d == null) {
            throw unsupported(what + " has unknown rank (it is computed from values known only at execution)");
        }
        return d;
    }

    /** The data type of input i (constant or not). */
    public DataType inputType(int i) {
        return isConstant(i) ? constant(i).dataType() : input(i).dataType();
    }

    /** The dims of input i (constant or not), or null when unknown. */
    public long[] inputDims(int i) {
        return isConstant(i) ? constant(i).dims() : input(i).dims();
    }

    /** Input i as a logical tensor; a constant becomes a constant graph input the first time it is used. */
    public LogicalTensor input(int i) {
        if (!hasInput(i)) {
            throw invalid("input " + i + " is required");
        }
        String name = node.inputs().get(i);
        LogicalTensor t = tensors.get(name);
        if (t != null) {
            return t;
        }
        OnnxTensor c = constantValues.get(name);
        if (c != null) {
            return materialized.computeIfAbsent(name, n -> constantTensor(c));
        }
        throw new OnnxImportException(source + ": node " + nodeName() + " (" + node.opType() + ") reads '" + name
                + "', which is not a graph input, an initializer or an earlier node's output");
    }

    /** A new constant graph input holding {@code value}. */
    public LogicalTensor constantTensor(OnnxTensor value) {
        LogicalTensor t = value.logicalTensor(nextTensorId++, PropertyType.CONSTANT);
        constantsById.put(t.id(), value);
        // Integer constants may be shapes that shape inference reads; a large one is not a shape.
        if ((value.dataType() == DataType.S64 || value.dataType() == DataType.S32)
                && value.dims().length <= 1 && value.elementCount() <= MAX_FOLDED_ELEMENTS) {
            knownValues.put(t.id(), value.toLongArray());
        }
        return t;
    }

    /** A scalar-like constant [1] of a data type (for scale factors and such). */
    public LogicalTensor scalar(DataType dt, double v) {
        return constantTensor(OnnxTensor.of("scalar " + v, dt, new long[] {1}, new double[] {v}));
    }

    public void setOutput(int i, LogicalTensor t) {
        if (hasOutput(i)) {
            tensors.put(node.outputs().get(i), t);
        }
    }

    public void setConstantOutput(int i, OnnxTensor v) {
        if (hasOutput(i)) {
            String name = node.outputs().get(i);
            constantValues.put(name, new OnnxTensor(name, v.dataType(), v.dims(), v.data()));
        }
    }

    LogicalTensor tensorNamed(String name) {
        return tensors.get(name);
    }

    OnnxTensor constantNamed(String name) {
        return constantValues.get(name);
    }

    // ---------------------------------------------------------------- ops

    /**
     * Emits an op with {@code outTypes.length} outputs; attributes and inputs are set by
     * {@code setup}. Returns the outputs with inferred dims.
     */
    public List<LogicalTensor> emit(OpKind kind, List<LogicalTensor> inputs, DataType[] outTypes,
            Consumer<Op.Builder> setup) {
        Op.Builder b = Op.builder(nextOpId++, kind).name(node.name().isEmpty() ? node.opType() : node.name());
        for (LogicalTensor in : inputs) {
            b.input(in);
        }
        for (DataType dt : outTypes) {
            b.output(LogicalTensor.unknownRank(nextTensorId++, dt));
        }
        setup.accept(b);
        Op op = b.build();
        OpSchema schema = schemas.of(op);
        checkTypes(schema, op);
        try {
            Op validated = schema.validate(op);
            List<LogicalTensor> outs = schema.inferOutputs(validated, validated.inputs(), knownValues);
            Op withDims = validated.toBuilder().clearOutputs().outputs(outs.toArray(new LogicalTensor[0])).build();
            ops.add(withDims);
            if (kind.isPartitaExtension()) {
                extensions.add(kind);
            }
            return outs;
        } catch (InvalidGraphException e) {
            throw invalid("translated to " + kind.spelling() + ", which the op schema rejects: " + e.getMessage());
        }
    }

    public LogicalTensor emit1(OpKind kind, List<LogicalTensor> inputs, DataType outType, Consumer<Op.Builder> setup) {
        return emit(kind, inputs, new DataType[] {outType}, setup).get(0);
    }

    /** A data type the oneDNN op does not take is a limit of the op set, not a bad model. */
    private void checkTypes(OpSchema schema, Op op) {
        for (int i = 0; i < op.inputs().size(); i++) {
            Port p = schema.inputPort(i);
            DataType dt = op.input(i).dataType();
            if (p != null && !p.types().contains(dt)) {
                throw unsupported("data type " + dt + " at input " + i + " (" + p.name() + ") of the "
                        + op.kind().spelling() + " it maps to, which takes " + sorted(p.types()));
            }
        }
        for (int i = 0; i < op.outputs().size(); i++) {
            Port p = schema.outputPort(i);
            DataType dt = op.output(i).dataType();
            if (p != null && !p.types().contains(dt)) {
                throw unsupported("data type " + dt + " at output " + i + " (" + p.name() + ") of the "
                        + op.kind().spelling() + " it maps to, which gives " + sorted(p.types()));
            }
        }
    }

    private static List<String> sorted(Set<DataType> types) {
        return types.stream().map(DataType::spelling).sorted().toList();
    }

    List<Op> ops() {
        return ops;
    }

    Map<Long, OnnxTensor> constantsById() {
        return constantsById;
    }

    Set<OpKind> extensions() {
        return extensions;
    }
}
