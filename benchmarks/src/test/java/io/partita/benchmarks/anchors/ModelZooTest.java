package io.partita.benchmarks.anchors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.partita.benchmarks.models.ModelZoo;
import io.partita.benchmarks.models.NetworkModel;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.GraphRuntime;

/**
 * The model zoo's classic classifiers at opset 9, as a user brings them: Partita imports each
 * (every operator in its opset-9 version), runs it on every backend of the class path (the path of
 * {@code partita run}), and its class probabilities agree with ONNX Runtime's on the same model and
 * input.
 */
class ModelZooTest {

    static List<String> models() {
        return ModelZoo.names();
    }

    /** Parameter counts of torchvision's models of the same architecture. */
    private static final Map<String, Long> TORCHVISION_PARAMETERS = Map.of("zoo_squeezenet", 1_248_424L,
            "zoo_densenet121", 7_978_856L, "zoo_resnet50_v1", 25_557_032L);

    @ParameterizedTest
    @MethodSource("models")
    void importsAtOpset9RunsAndMatchesOnnxRuntime(String name) throws Exception {
        Case.Network c = new Case.Network(name);
        NetworkModel m = c.model();
        if (TORCHVISION_PARAMETERS.containsKey(name)) {
            assertEquals(TORCHVISION_PARAMETERS.get(name), m.parameters(), name);
        }
        OnnxModel onnx = OnnxModels.read(GraphRuntime.referenceOnly().opSchemas(), m.bytes(), name + ".onnx");
        assertEquals(9, onnx.opset());
        float[] partita = OneRun.of(new PartitaContender(2), c).output();
        float[] ort = OneRun.of(new OrtContender(2), c).output();
        assertEquals(1000, partita.length);
        AnchorsCommand.OutputCheck check = AnchorsCommand.compareOutputs(partita, ort);
        assertTrue(check.matches(), name + ": " + check.describe());
        // a softmax over 1000 classes: sums to one, is not the uniform 1/1000 of a dead network and not
        // saturated on one class
        double sum = 0;
        float max = 0;
        for (float v : partita) {
            sum += v;
            max = Math.max(max, v);
        }
        assertEquals(1.0, sum, 1e-3, name);
        assertTrue(max > 2e-3, name + ": largest probability " + max + " (a network whose activations died)");
        assertTrue(max < 0.9, name + ": largest probability " + max + " (a saturated softmax would hide differences)");
    }
}
