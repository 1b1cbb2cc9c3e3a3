package io.partita.benchmarks.anchors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The {@code gpu} contender (Partita's gpu backend on gpu.0, PoCL in CI): it computes the single-op
 * cases as the double-precision reference does, skips the networks, is run only on request, and its
 * lines carry the device's throughput over the DNNL-style backend's.
 */
class GpuContenderTest {

    @Test
    void gpuContenderMatchesTheReferenceOnOddMatMulAndConvCases() throws Exception {
        for (Case c : List.of(new Case.MatMul(3, 65, 33), new Case.Conv(1, 5, 9, 11, 7, 3, 3, 1, 2))) {
            OneRun r = OneRun.of(PartitaContender.gpu(2), c);
            assertTrue(r.description().contains("gpu backend on gpu.0"), r.description());
            int[] idx = c.sampleIndices(64);
            double[] ref = c.reference(idx);
            float[] got = new float[idx.length];
            for (int i = 0; i < idx.length; i++) {
                got[i] = r.output()[idx[i]];
            }
            assertEquals(c.outputSize(), r.output().length, c.name());
            float[] want = new float[ref.length];
            for (int i = 0; i < ref.length; i++) {
                want[i] = (float) ref[i];
            }
            AnchorsCommand.OutputCheck check = AnchorsCommand.compareOutputs(got, want);
            assertTrue(check.matches(), c.name() + ": " + check.describe());
        }
    }

    @Test
    void gpuIsOnRequestSingleOpOnlyAndItsLineCarriesTheRatioToTheCpuBackend() {
        assertFalse(Contenders.defaults().contains(Contenders.GPU));
        assertTrue(Contenders.all().containsKey(Contenders.GPU));
        assertFalse(Contenders.runs(Contenders.GPU, Case.byName("resnet50")));
        assertTrue(Contenders.runs(Contenders.GPU, Case.byName("conv_n1c64h56w56k64r3s3p1s1")));
        Case c = Case.byName("matmul_64x1024x1024");
        Map<String, Map<String, String>> row = new LinkedHashMap<>();
        row.put(Contenders.PARTITA, Map.of("median_ms", "1", "gflops", "100"));
        row.put(Contenders.GPU, Map.of("median_ms", "4", "gflops", "25"));
        String line = AnchorsCommand.formatLine(c, row);
        assertTrue(line.contains("ratio_gpu_vs_dnnl=0.250"), line);
        assertFalse(line.contains("ratio_vs_ort"), line);
    }
}
