package io.partita.formats.onnx;

import java.lang.foreign.Arena;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.partita.graph.Engine;
import io.partita.graph.GraphDescription;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;
import io.partita.graph.PropertyType;
import io.partita.graph.Tensor;

/**
 * An imported ONNX model.
 *
 * @param source the file (or name) it was read from
 * @param irVersion the ONNX IR version of the file
 * @param opset the version of the default (ai.onnx) operator set the model imports
 * @param graph the translated graph: oneDNN op kinds, plus any {@link #extensionOps} Partita adds
 * @param constants the values of the graph inputs that are constant (initializers, Constant nodes,
 *     folded constant subgraphs, scalars the translation introduces), by tensor id; their logical
 *     tensors have property {@code constant}
 * @param inputs the model's runtime inputs: ONNX input name to tensor id (in the model's order)
 * @param outputs the model's outputs: ONNX output name to tensor id (in the model's order)
 * @param extensionOps Partita extension op kinds the graph uses (not in oneDNN's op set: graph JSON
 *     containing them does not load in oneDNN)
 */
public record OnnxModel(String source, long irVersion, long opset, GraphDescription graph,
        Map<Long, OnnxTensor> constants, Map<String, Long> inputs, Map<String, Long> outputs,
        List<OpKind> extensionOps) {

    public OnnxModel {
        constants = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(constants));
        inputs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
        outputs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
        extensionOps = List.copyOf(extensionOps);
    }

    /** The constant inputs as tensors in engine memory (allocated in {@code arena}), by tensor id. */
    public Map<Long, Tensor> constantTensors(Engine engine, Arena arena) {
        Map<Long, Tensor> out = new LinkedHashMap<>();
        for (Map.Entry<Long, OnnxTensor> e : constants.entrySet()) {
            LogicalTensor lt = e.getValue().logicalTensor(e.getKey(), PropertyType.CONSTANT);
            out.put(e.getKey(), e.getValue().toTensor(lt, engine, arena));
        }
        return out;
    }
}
