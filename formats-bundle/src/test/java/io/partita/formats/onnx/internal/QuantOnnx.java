package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.model;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.partita.formats.onnx.OnnxBytes;
import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/** One-node ONNX models of the quantization tests: import, refuse, run on the reference backend. */
final class QuantOnnx {
    static final int FLOAT = 1;
    static final int UINT8 = 2;
    static final int INT8 = 3;
    static final int INT32 = 6;
    static final int FLOAT16 = 10;

    private static final GraphRuntime RUNTIME = GraphRuntime.referenceOnly();

    private QuantOnnx() {
    }

    static OnnxModel read(int opset, OnnxBytes node, List<OnnxBytes> inits, List<OnnxBytes> inputs, OnnxBytes output) {
        return OnnxModels.read(RUNTIME.opSchemas(), model(opset, graph(list(node), inits, inputs, list(output)))
                .toByteArray(), "q.onnx");
    }

    /** The message of the import's refusal, of exactly the expected class. */
    static String refused(Class<? extends OnnxImportException> type, int opset, OnnxBytes node,
            List<OnnxBytes> inits, List<OnnxBytes> inputs, OnnxBytes output) {
        return assertThrows(type, () -> read(opset, node, inits, inputs, output)).getMessage();
    }

    static List<OpKind> kinds(OnnxModel m) {
        return m.graph().ops().stream().map(Op::kind).toList();
    }

    static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    /** Runs the model on the reference backend with the given graph inputs; returns output "y". */
    static double[] run(OnnxModel m, Map<String, double[]> inputs) {
        Graph g = m.graph().toGraph(RUNTIME).finalizeGraph();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = RUNTIME.compile(g, PartitionPolicy.DEBUG, Engine.cpu())) {
            Map<Long, Tensor> in = new HashMap<>(m.constantTensors(Engine.cpu(), arena));
            for (Map.Entry<String, double[]> e : inputs.entrySet()) {
                long id = m.inputs().get(e.getKey());
                LogicalTensor lt = m.graph().ops().stream().flatMap(o -> o.inputs().stream())
                        .filter(t -> t.id() == id).findFirst().orElseThrow();
                Tensor t = Tensor.allocate(lt, Engine.cpu(), arena);
                t.copyFrom(e.getValue());
                in.put(id, t);
            }
            return cg.execute(new Stream(Engine.cpu()), in).get(m.outputs().get("y")).toDoubleArray();
        }
    }
}
