package io.partita.formats.onnx;

import static io.partita.formats.onnx.OnnxBytes.floatTensor;
import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.model;
import static io.partita.formats.onnx.OnnxBytes.node;
import static io.partita.formats.onnx.OnnxBytes.valueInfo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * The erf form of GELU that PyTorch and Hugging Face export becomes one GELU op (gelu_erf), computing
 * the same values; near misses (another constant, an intermediate read twice or a graph output) stay
 * as they are.
 */
class GeluFusionTest {
    private static final int FLOAT = 1;
    private static final float SQRT2 = (float) Math.sqrt(2);

    /** x -> Div(√2) or Mul(1/√2) -> Erf -> Add(one) -> Mul(x, .) -> Mul(half), or the 0.5 applied to x first. */
    private static byte[] erfGelu(boolean divide, boolean halfFirst, float one, boolean erfAlsoOut) {
        List<OnnxBytes> nodes = new java.util.ArrayList<>();
        nodes.add(divide ? node("Div", List.of("X", "s"), List.of("d"))
                : node("Mul", List.of("s", "X"), List.of("d")));
        nodes.add(node("Erf", List.of("d"), List.of("e")));
        nodes.add(node("Add", List.of("one", "e"), List.of("p")));
        if (halfFirst) {
            nodes.add(node("Mul", List.of("X", "half"), List.of("h")));
            nodes.add(node("Mul", List.of("h", "p"), List.of("Y")));
        } else {
            nodes.add(node("Mul", List.of("X", "p"), List.of("m")));
            nodes.add(node("Mul", List.of("m", "half"), List.of("Y")));
        }
        List<OnnxBytes> outs = new java.util.ArrayList<>(List.of(valueInfo("Y", FLOAT, 2, 5)));
        if (erfAlsoOut) {
            outs.add(valueInfo("e", FLOAT, 2, 5));
        }
        return model(17, graph(nodes, list(floatTensor("s", new long[] {}, divide ? SQRT2 : 1 / SQRT2),
                floatTensor("one", new long[] {}, one), floatTensor("half", new long[] {}, 0.5f)),
                list(valueInfo("X", FLOAT, 2, 5)), outs)).toByteArray();
    }

    private static List<OpKind> kinds(OnnxModel m) {
        return m.graph().ops().stream().map(Op::kind).toList();
    }

    @Test
    void everyExportedFormBecomesOneGeluComputingTheSame() {
        for (boolean divide : new boolean[] {true, false}) {
            for (boolean halfFirst : new boolean[] {false, true}) {
                OnnxModel m = OnnxModels.read(GraphRuntime.referenceOnly().opSchemas(),
                        erfGelu(divide, halfFirst, 1f, false), "gelu.onnx");
                assertEquals(List.of(OpKind.GELU), kinds(m), "divide " + divide + ", half first " + halfFirst);
                assertEquals("gelu_erf", m.graph().ops().get(0).stringAttr("mode"));
                assertTrue(m.constants().isEmpty(), "the scalars are gone with the ops that read them");
                assertTrue(m.extensionOps().isEmpty(), "no PartitaErf left: " + m.extensionOps());
                float[] x = {-3f, -1.5f, -0.5f, 0f, 0.25f, 0.5f, 1f, 2f, 3.5f, -0.001f};
                float[] y = run(m, x);
                for (int i = 0; i < x.length; i++) {
                    double exact = 0.5 * x[i] * (1 + erf(x[i] / Math.sqrt(2)));
                    assertEquals(exact, y[i], 2e-6 + 2e-6 * Math.abs(exact), "gelu(" + x[i] + ")");
                }
            }
        }
    }

    @Test
    void nearMissesStayAsExported() {
        var schemas = GraphRuntime.referenceOnly().opSchemas();
        OnnxModel notOne = OnnxModels.read(schemas, erfGelu(true, false, 1.5f, false), "x.onnx");
        assertTrue(kinds(notOne).contains(OpKind.PartitaErf), kinds(notOne).toString());
        OnnxModel erfShown = OnnxModels.read(schemas, erfGelu(true, false, 1f, true), "x.onnx");
        assertTrue(kinds(erfShown).contains(OpKind.PartitaErf), "an intermediate that is a graph output stays");
    }

    private static float[] run(OnnxModel m, float[] x) {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = m.graph().toGraph(rt).finalizeGraph();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.DEBUG, Engine.cpu())) {
            Map<Long, Tensor> in = new HashMap<>(m.constantTensors(Engine.cpu(), arena));
            LogicalTensor lt = LogicalTensor.of(m.inputs().get("X"), DataType.F32, 2, 5);
            Tensor xt = Tensor.allocate(lt, Engine.cpu(), arena);
            xt.copyFrom(x);
            in.put(lt.id(), xt);
            return cg.execute(new Stream(Engine.cpu()), in).get(m.outputs().get("Y")).toFloatArray();
        }
    }

    /** erf(z) by Simpson integration of its definition: an independent oracle, accurate to about 1e-12. */
    private static double erf(double z) {

        int n = 20000;
        double h = z / n;
        double s = 1 + Math.exp(-z * z);
        for (int i = 1; i < n; i++) {
            double t = i * h;
            s += (i % 2 == 1 ? 4 : 2) * Math.exp(-t * t);
        }
        return s * h / 3 * 2 / Math.sqrt(Math.PI);
    }
}
