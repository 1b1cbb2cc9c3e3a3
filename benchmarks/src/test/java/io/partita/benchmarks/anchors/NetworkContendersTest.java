package io.partita.benchmarks.anchors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The BERT layer case end to end in this JVM: Partita (ONNX import, every backend of the class
 * path, as {@code partita run}) and ONNX Runtime on the same model and inputs, compared as the
 * anchors harness compares them. ResNet-50 takes the same path; it is left to the benchmark and
 * {@code partita run --check} because it would make this test several times slower.
 */
class NetworkContendersTest {

    @Test
    void partitaMatchesOnnxRuntimeOnTheBertLayer() throws Exception {
        Case c = Case.byName("bert_layer");
        OneRun p = OneRun.of(new PartitaContender(2), c);
        assertTrue(p.description().contains("partitions"), p.description());
        float[] partita = p.output();
        float[] ort = OneRun.of(new OrtContender(2), c).output();
        assertEquals(c.outputSize(), partita.length);
        AnchorsCommand.OutputCheck check = AnchorsCommand.compareOutputs(partita, ort);
        assertTrue(check.matches(), check.describe());
        // LayerNorm output: values of order one, not a degenerate constant
        assertTrue(check.refMaxAbs() > 1 && check.refMaxAbs() < 20, check.describe());
    }
}
