package io.partita.benchmarks.models;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;

/**
 * The network models: their architecture counts, and that Partita's ONNX importer reads them into
 * graphs of the expected inputs and outputs (the path {@code partita run} takes). Running them is
 * the anchors benchmark's job (against ONNX Runtime) and {@code partita run --check}'s.
 */
class NetworksTest {
    private static final GraphRuntime RUNTIME = GraphRuntime.referenceOnly();

    @Test
    void resnet50HasTorchvisionsArchitecture() {
        NetworkModel m = Networks.get(ResNet50.NAME);
        // torchvision's resnet50: 53 Conv, 53 BatchNormalization, 49 Relu, 16 Add, MaxPool,
        // GlobalAveragePool, Flatten, Gemm
        assertEquals(175, m.nodes());
        assertEquals(25_557_032L, m.parameters());
        // 4.09 G multiply-adds in the convolutions and the classifier
        assertEquals(8.18e9, m.flops(), 0.02e9);
        assertEquals(List.of("Conv", "BatchNormalization", "Relu", "MaxPool", "Add", "GlobalAveragePool", "Flatten",
                "Gemm"), OnnxModels.nodeOpTypes(m.bytes(), "resnet50.onnx"));

        OnnxModel onnx = OnnxModels.read(RUNTIME.opSchemas(), m.bytes(), "resnet50.onnx");
        assertEquals(17, onnx.opset());
        assertEquals(List.of(ResNet50.INPUT), List.copyOf(onnx.inputs().keySet()));
        assertArrayEquals(new long[] {1, 3, 224, 224}, inputOf(onnx, ResNet50.INPUT).dims());
        assertArrayEquals(new long[] {1, 1000}, outputOf(onnx, ResNet50.OUTPUT).dims());
        // every initializer arrives as a constant: the parameters plus the 53 BatchNormalizations'
        // running means and variances (26,560 channels each)
        assertTrue(constantElements(onnx) >= 25_557_032L + 2 * 26_560L,
                "constants hold " + constantElements(onnx) + " elements");
        var g = onnx.graph().toGraph(RUNTIME);
        g.finalizeGraph();
        assertEquals(1, g.outputs().size());
    }

    @Test
    void bertLayerHasBertBasesShapes() {
        NetworkModel m = Networks.get(BertLayer.NAME);
        assertEquals(34, m.nodes());
        // 4 x (768x768 + 768) attention, 3072x768 x 2 + 3072 + 768 feed-forward, 2 x 2 x 768 LayerNorm
        assertEquals(7_087_872L, m.parameters());
        assertEquals(2.0 * 128 * (4 * 768 * 768 + 2 * 768 * 3072) + 2 * 2.0 * 12 * 128 * 128 * 64, m.flops());
        OnnxModel onnx = OnnxModels.read(RUNTIME.opSchemas(), m.bytes(), "bert_layer.onnx");
        assertEquals(List.of(BertLayer.INPUT, BertLayer.MASK), List.copyOf(onnx.inputs().keySet()));
        assertArrayEquals(new long[] {1, 128, 768}, inputOf(onnx, BertLayer.INPUT).dims());
        assertArrayEquals(new long[] {1, 1, 1, 128}, inputOf(onnx, BertLayer.MASK).dims());
        assertArrayEquals(new long[] {1, 128, 768}, outputOf(onnx, BertLayer.OUTPUT).dims());
        assertTrue(constantElements(onnx) >= 7_087_872L, "constants hold " + constantElements(onnx) + " elements");
        var g = onnx.graph().toGraph(RUNTIME);
        g.finalizeGraph();
        assertEquals(1, g.outputs().size());

        float[] mask = m.inputs().get(1).values();
        assertEquals(0f, mask[0]);
        assertEquals(-10000f, mask[127]);
    }

    @Test
    void modelsAreTheSameInEveryBuild() {
        // the anchors' contenders build the model in separate JVMs: they must agree bit for bit
        NetworkModel a = BertLayer.build();
        NetworkModel b = BertLayer.build();
        assertArrayEquals(a.bytes(), b.bytes());
        assertArrayEquals(a.inputs().get(0).values(), b.inputs().get(0).values());
    }

    @Test
    void unknownNetworkIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Networks.get("resnet51"));
        assertTrue(e.getMessage().contains("resnet51") && e.getMessage().contains("bert_layer"), e.getMessage());
    }

    private static long constantElements(OnnxModel m) {
        return m.constants().values().stream().mapToLong(OnnxTensor::elementCount).sum();
    }

    private static LogicalTensor inputOf(OnnxModel m, String name) {
        long id = m.inputs().get(name);
        for (Op op : m.graph().ops()) {
            for (LogicalTensor t : op.inputs()) {
                if (t.id() == id) {
                    return t;
                }
            }
        }
        throw new AssertionError("no op reads input " + name);
    }

    private static LogicalTensor outputOf(OnnxModel m, String name) {
        long id = m.outputs().get(name);
        for (Op op : m.graph().ops()) {
            for (LogicalTensor t : op.outputs()) {
                if (t.id() == id) {
                    return t;
                }
            }
        }
        throw new AssertionError("no op writes output " + name);
    }
}
