package io.partita.benchmarks.anchors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The harness side of the network cases: which contenders run them, how Partita's output is held
 * against ONNX Runtime's, and what their report line shows.
 */
class NetworkCaseTest {

    @Test
    void networkCasesAreStandardAndSkippedByOnednnOnly() {
        Case resnet = Case.byName("resnet50");
        Case bert = Case.byName("bert_layer");
        assertEquals("network", resnet.kind());
        assertFalse(resnet.hasReference());
        assertThrows(IllegalStateException.class, () -> bert.reference(new int[] {0}));
        assertFalse(Contenders.runs(Contenders.ONEDNN, resnet));
        assertTrue(Contenders.runs(Contenders.ORT, resnet));
        assertTrue(Contenders.runs(Contenders.PARTITA, bert));
        assertTrue(Contenders.runs(Contenders.ONEDNN, Case.byName("matmul_64x1024x1024")));
    }

    @Test
    void outputsWithinF32RoundingMatch() {
        float[] ref = {10f, -0.5f, 0.001f, 0f};
        // 1e-4 relative on the large value, 5e-4 of max|ref| (10) on the small ones
        float[] x = {10.001f, -0.5f + 5e-4f, 0.001f - 5e-4f, 5e-4f};
        AnchorsCommand.OutputCheck c = AnchorsCommand.compareOutputs(x, ref);
        assertTrue(c.matches(), c.describe());
        assertTrue(c.worstRatio() > 0.4 && c.worstRatio() < 1, c.describe());
    }

    @Test
    void aWrongValueIsAMismatchNamingWhere() {
        float[] ref = new float[1000];
        for (int i = 0; i < ref.length; i++) {
            ref[i] = (float) Math.sin(i);
        }
        float[] x = ref.clone();
        x[417] += 0.01f; // 1% of the output scale: far beyond f32 rounding through a network
        AnchorsCommand.OutputCheck c = AnchorsCommand.compareOutputs(x, ref);
        assertFalse(c.matches());
        assertEquals(417, c.worstIndex());
        assertTrue(c.describe().startsWith("MISMATCH") && c.describe().contains("417"), c.describe());
    }

    @Test
    void nanLengthAndNonFiniteReferenceNeverMatch() {
        assertFalse(AnchorsCommand.compareOutputs(new float[] {1, Float.NaN}, new float[] {1, 2}).matches());
        assertFalse(AnchorsCommand.compareOutputs(new float[] {1}, new float[] {1, 2}).matches());
        assertFalse(AnchorsCommand.compareOutputs(new float[] {1, 2}, new float[] {1, Float.POSITIVE_INFINITY}).matches());
        assertTrue(AnchorsCommand.compareOutputs(new float[] {0, 0}, new float[] {0, 0}).matches());
        AnchorsCommand.OutputCheck none = AnchorsCommand.OutputCheck.failed("NOT COMPARED: partita produced no output");
        assertFalse(none.matches());
        assertEquals("NOT COMPARED: partita produced no output", none.describe());
    }

    @Test
    void networkLineShowsTailFirstInferenceAndOnlyTheOrtRatio() {
        Case c = Case.byName("bert_layer");
        Map<String, Map<String, String>> row = new LinkedHashMap<>();
        row.put(Contenders.PARTITA, Map.of("median_ms", "60", "gflops", Double.toString(c.flops() / 60e6),
                "p99_ms", "90", "first_ms", "2000"));
        row.put(Contenders.ORT, Map.of("median_ms", "45", "gflops", Double.toString(c.flops() / 45e6),
                "p99_ms", "50", "first_ms", "70"));
        String line = AnchorsCommand.formatLine(c, row);
        assertTrue(line.contains("partita    60.000 ms (p99 90.000, first 2000.0)"), line);
        assertTrue(line.contains("ratio_vs_ort=0.750"), line);
        assertFalse(line.contains("ratio_vs_onednn"), line);
    }

    @Test
    void p99IsTheNearestRank() {
        assertEquals(19, ChildMain.percentileIndex(20, 0.99));
        assertEquals(98, ChildMain.percentileIndex(99, 0.99));
        assertEquals(989, ChildMain.percentileIndex(1000, 0.99));
        assertEquals(0, ChildMain.percentileIndex(1, 0.99));
    }
}
