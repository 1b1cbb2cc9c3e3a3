package io.partita.formats.onnx.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.formats.json.GraphJson;
import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.formats.onnx.UnsupportedOnnxException;
import io.partita.formats.onnx.internal.proto.AttributeProto;
import io.partita.formats.onnx.internal.proto.GraphProto;
import io.partita.formats.onnx.internal.proto.ModelProto;
import io.partita.formats.onnx.internal.proto.NodeProto;
import io.partita.formats.onnx.internal.proto.TensorProto;
import io.partita.formats.onnx.internal.proto.ValueInfoProto;
import io.partita.graph.DataType;
import io.partita.graph.EngineKind;
import io.partita.graph.FpMathMode;
import io.partita.graph.GraphDescription;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;

/**
 * Translates a decoded ONNX model into a graph description: graph inputs, initializers (constant
 * inputs), then each node in file order (ONNX requires topological order), then the outputs.
 */
public final class GraphImporter {
    private static final Logger LOG = LoggerFactory.getLogger(GraphImporter.class);

    private GraphImporter() {
    }

    public static OnnxModel importModel(OpSchemaRegistry schemas, ModelProto model, String source, Map<String, Long> dimValues) {
        Long opsetBoxed = model.opsets().get("");
        if (opsetBoxed == null) {
            throw new OnnxImportException(source + ": the model imports no version of the default operator set "
                    + "(ai.onnx); opset_import lists " + model.opsets().keySet());
        }
        long opset = opsetBoxed;
        if (opset < OnnxModels.MIN_OPSET || opset > OnnxModels.MAX_OPSET) {
            // A limit of the importer, not a broken model: reported as unsupported.
            throw UnsupportedOnnxException.ofItem("opset in " + source, opset, "opset " + opset
                    + " of the default domain is not supported; expected " + OnnxModels.MIN_OPSET + " to "
                    + OnnxModels.MAX_OPSET + (opset < OnnxModels.MIN_OPSET
                            ? " (convert older models with onnx.version_converter)" : ""));
        }
        GraphProto g = model.graph();
        ImportContext ctx = new ImportContext(schemas, source, opset);
        if (g.sparseInitializers() > 0) {
            throw UnsupportedOnnxException.ofItem("sparse_initializer in graph '" + g.name() + "'", opset,
                    "sparse initializers are not supported");
        }
        Set<String> initNames = new HashSet<>();
        for (TensorProto t : g.initializers()) {
            if (!initNames.add(t.name())) {
                throw new OnnxImportException(source + ": two initializers are named '" + t.name() + "'");
            }
            ctx.defineConstant(t.name(), TensorValues.toTensor(t, source, "initializer '" + t.name() + "'"));
        }
        checkDimNames(g, dimValues, source);
        Map<String, Long> inputs = new LinkedHashMap<>();
        List<Long> inputPorts = new ArrayList<>();
        long nextId = 1_000_000_000L; // graph inputs get ids apart from the ones ops get
        for (ValueInfoProto in : g.inputs()) {
            if (initNames.contains(in.name())) {
                continue; // an initializer listed as input (IR < 4 style): its default value is used
            }
            LogicalTensor t = LogicalTensor.of(nextId++, inputType(in, source, opset), inputDims(in, opset, dimValues));
            ctx.defineInput(in.name(), t);
            inputs.put(in.name(), t.id());
            inputPorts.add(t.id());
        }
        for (ValueInfoProto out : g.outputs()) {
            if (out.hasShape() && Arrays.stream(out.dims()).allMatch(v -> v >= 0)) {
                ctx.declareOutputDims(out.name(), out.dims());
            }
        }
        for (NodeProto node : g.nodes()) {
            ctx.begin(node);
            translate(ctx, node);
        }
        Map<String, Long> outputs = new LinkedHashMap<>();
        Set<Long> inputIds = new HashSet<>(inputs.values());
        for (ValueInfoProto out : g.outputs()) {
            LogicalTensor t = ctx.tensorNamed(out.name());
            if (t == null && ctx.constantNamed(out.name()) == null) {
                throw new OnnxImportException(source + ": graph output '" + out.name()
                        + "' is not produced by any node");
            }
            if (t == null || inputIds.contains(t.id())) {
                // A graph input passed through, or a constant (an initializer, a folded value): the output
                // must be an op's output, so it is a copy.
                ctx.begin(new NodeProto("graph output '" + out.name() + "'", "Identity", "", List.of(out.name()),
                        List.of(out.name()), List.of()));
                LogicalTensor src = ctx.input(0);
                // oneDNN's Reorder for floating-point types; the PartitaCopy extension op for the others.
                DataType st = src.dataType();
                OpKind copy = st == DataType.F32 || st == DataType.BF16 || st == DataType.F16 ? OpKind.Reorder
                        : OpKind.PartitaCopy;
                try {
                    t = ctx.emit1(copy, List.of(src), src.dataType(), b -> { });
                } catch (UnsupportedOnnxException e) {
                    throw UnsupportedOnnxException.ofItem("graph output '" + out.name() + "'", opset, "the output is "
                            + (inputIds.contains(src.id()) ? "a graph input" : "a constant") + " of data type "
                            + src.dataType() + ", which no copy op takes");
                }
                ctx.setOutput(0, t);
            }
            DataType declared = OnnxTypes.toPartita(out.elemType());
            if (out.elemType() != 0 && declared != t.dataType()) {
                throw new OnnxImportException(source + ": graph output '" + out.name() + "' is declared "
                        + OnnxTypes.name(out.elemType()) + " but its node gives " + t.dataType());
            }
            outputs.put(out.name(), t.id());
        }
        List<Op> ops = GeluFusion.rewrite(ctx.ops(), ctx.constantsById(), Set.copyOf(outputs.values()));
        inputPorts.addAll(ctx.constantsById().keySet());
        GraphDescription d = new GraphDescription(GraphJson.FORMAT_VERSION, EngineKind.CPU, FpMathMode.STRICT, false,
                inputPorts, List.copyOf(outputs.values()), ops);
        Set<OpKind> used = new HashSet<>();
        ops.forEach(op -> used.add(op.kind()));
        List<OpKind> ext = new ArrayList<>(ctx.extensions());
        ext.retainAll(used); // an Erf folded into GELU is no extension of the graph any more
        ext.sort(null);
        LOG.debug("{}: imported {} nodes (opset {}) as {} ops", source, g.nodes().size(), opset, ops.size());
        Map<Long, OnnxTensor> constants = ctx.constantsById();
        return new OnnxModel(source, model.irVersion(), opset, d, constants, inputs, outputs, ext);
    }

    private static void translate(ImportContext ctx, NodeProto node) {
        if (!node.domain().isEmpty() && !node.domain().equals("ai.onnx")) {
            throw new UnsupportedOnnxException(node.domain() + "." + node.opType(), ctx.opset(), ctx.nodeName(),
                    "only the default domain (ai.onnx) is translated");
        }
        Translators.Entry e = Translators.find(node.opType(), ctx.opset());
        if (e != null) {
            ctx.setOpVersion(e.version());
        }
        if (!ConstantFolder.fold(ctx)) {
            if (!Translators.known(node.opType())) {
                throw ctx.unsupported("no translation to Partita ops");
            }
            if (e == null) {
                throw ctx.unsupported("the version of " + node.opType() + " in opset " + ctx.opset()
                        + " is not translated (versions from " + Translators.lowestVersion(node.opType())
                        + " are)");
            }
            e.translator().translate(ctx);
        }
        List<AttributeProto> unused = ctx.unusedAttributes();
        if (!unused.isEmpty()) {
            AttributeProto a = unused.get(0);
            throw ctx.unsupported("attribute '" + a.name() + "' (" + AttributeProto.typeName(a.type())
                    + ") is not supported");
        }
        for (int i = 0; i < node.outputs().size(); i++) {
            String name = node.outputs().get(i);
            if (!name.isEmpty() && ctx.tensorNamed(name) == null && ctx.constantNamed(name) == null) {
                throw ctx.unsupported("output " + i + " ('" + name + "') is not supported");
            }
        }
    }

    private static DataType inputType(ValueInfoProto in, String source, long opset) {
        if (!in.tensorType()) {
            throw UnsupportedOnnxException.ofItem("graph input '" + in.name() + "'", opset,
                    "only tensor inputs are supported (not sequences, maps, optionals or sparse tensors)");
        }
        if (in.elemType() == 0) {
            throw new OnnxImportException(source + ": graph input '" + in.name() + "' has no element type");
        }
        if (!OnnxTypes.known(in.elemType())) {
            throw new OnnxImportException(source + ": graph input '" + in.name() + "' has unknown data type "
                    + in.elemType() + "; expected an ONNX TensorProto.DataType (1 to 26)");
        }
        DataType dt = OnnxTypes.toPartita(in.elemType());
        if (dt == null) {
            throw UnsupportedOnnxException.ofItem("graph input '" + in.name() + "'", opset,
                    "data type " + OnnxTypes.name(in.elemType()) + " has no Partita data type");
        }
        return dt;
    }

    /**
     * A value for a dim no input has is a typo or a value meant for another model: silently running
     * with the model's own sizes would hide it.
     */
    private static void checkDimNames(GraphProto g, Map<String, Long> dimValues, String source) {
        Set<String> symbolic = new TreeSet<>();
        for (ValueInfoProto in : g.inputs()) {
            if (in.hasShape()) {
                for (String p : in.dimParams()) {
                    if (p != null) {
                        symbolic.add(p);
                    }
                }
            }
        }
        for (Map.Entry<String, Long> e : dimValues.entrySet()) {
            if (!symbolic.contains(e.getKey())) {
                throw new OnnxImportException(source + ": a value is given for dim '" + e.getKey()
                        + "', but no graph input has a symbolic dim of that name; "
                        + (symbolic.isEmpty() ? "the model has none" : "its symbolic dims are " + symbolic));
            }
            if (e.getValue() == null || e.getValue() < 1) {
                throw new OnnxImportException(source + ": dim '" + e.getKey() + "' is given " + e.getValue()
                        + "; expected a positive size");
            }
        }
    }

    private static long[] inputDims(ValueInfoProto in, long opset, Map<String, Long> dimValues) {
        if (!in.hasShape()) {
            throw UnsupportedOnnxException.ofItem("graph input '" + in.name() + "'", opset,
                    "its shape is not given (unknown rank)");
        }
        long[] d = in.dims().clone();
        for (int i = 0; i < d.length; i++) {
            String param = in.dimParams()[i];
            if (d[i] < 0 && param != null && dimValues.containsKey(param)) {
                d[i] = dimValues.get(param);
            }
            if (d[i] < 0) {
                throw UnsupportedOnnxException.ofItem("graph input '" + in.name() + "'", opset,
                        "dim " + i + (param != null ? " ('" + param + "')" : "")
                                + " is symbolic and has no value; give it one"
                                + (param != null ? " (partita: --dim " + param + "=VALUE)" : ""));
            }
        }
        return d;
    }
}
