package io.partita.testkit.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.GraphRuntime;
import io.partita.graph.PartitionPolicy;
import io.partita.testing.Corpus;

/**
 * ONNX's node tests (testdata/corpus/onnx-node) on the reference backend: the oracle checked
 * against golden outputs nobody on this project computed. Every test passes or is refused by the
 * importer with a reason listed below; none may fail.
 */
class OnnxConformanceTest {

    /**
     * Tests the importer refuses, by the reason it gives (a fragment of the message). Each reason is
     * a limit of Partita's data types or of oneDNN's op set, not a bug.
     */
    static final Map<String, String> EXPLAINED_UNSUPPORTED = explained();

    private static Map<String, String> explained() {
        Map<String, String> m = new java.util.TreeMap<>();
        // Integer element types oneDNN's arithmetic ops do not take (s8/u8) or Partita has no type for.
        // Integer division truncates in ONNX; Divide rounds, so it takes no integer type.
        for (String t : List.of("test_add_int8", "test_add_uint8", "test_sub_int8", "test_mul_int8", "test_div_uint8",
                "test_div_int32_trunc", "test_div_int16", "test_div_uint16", "test_maxpool_2d_uint8")) {
            m.put(t, "of the ");
        }
        for (String t : List.of("test_div_uint32", "test_mul_uint32", "test_sub_uint32",
                "test_pow_types_float32_uint32")) {
            m.put(t, "has no Partita data type");
        }
        m.put("test_pow_types_int32_int32", "integer power");
        m.put("test_pow_types_int64_float32", "integer power");
        // oneDNN's AvgPool has no dilations.
        for (String t : List.of("test_averagepool_2d_dilations",
                "test_averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_False",
                "test_averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_True",
                "test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True",
                "test_averagepool_3d_dilations_small")) {
            m.put(t, "AvgPool has no dilations");
        }
        m.put("test_maxpool_with_argmax_2d_precomputed_strides", "gives no indices");
        // Casts: 2-bit, FNUZ float8, e8m0 and float4 have no Partita type; float to int4 would need
        // truncation where oneDNN's Quantize rounds (and has no s4/u4 output).
        for (String t : List.of("test_cast_FLOAT16_to_FLOAT8E4M3FNUZ", "test_cast_FLOAT16_to_FLOAT8E5M2FNUZ", "test_cast_FLOAT16_to_INT2",
                "test_cast_FLOAT16_to_UINT2", "test_cast_FLOAT16_to_UINT4", "test_cast_FLOAT4E2M1_to_FLOAT16",
                "test_cast_FLOAT8E4M3FNUZ_to_FLOAT", "test_cast_FLOAT8E5M2FNUZ_to_FLOAT16",
                "test_cast_FLOAT_to_FLOAT4E2M1", "test_cast_FLOAT_to_FLOAT8E5M2FNUZ", "test_cast_FLOAT_to_INT4",
                "test_cast_FLOAT_to_UINT2", "test_cast_INT2_to_FLOAT", "test_cast_INT2_to_FLOAT16",
                "test_cast_UINT2_to_FLOAT", "test_cast_UINT2_to_FLOAT16", "test_cast_e8m0_FLOAT16_to_FLOAT8E8M0",
                "test_cast_e8m0_FLOAT8E8M0_to_FLOAT", "test_cast_e8m0_FLOAT_to_FLOAT8E8M0",
                "test_cast_no_saturate_FLOAT16_to_FLOAT8E5M2FNUZ", "test_cast_no_saturate_FLOAT_to_FLOAT8E4M3FNUZ")) {
            boolean noType = t.contains("FNUZ") || t.contains("INT2") || t.contains("E8M0")
                    || t.contains("FLOAT4E2M1");
            m.put(t, noType ? "Partita" : "TypeCast");
        }
        // f8_e5m2 conversion overflows to infinity in oneDNN; ONNX's saturate = 1 clamps to the largest finite.
        m.put("test_cast_FLOAT_to_FLOAT8E5M2", "saturate = 1");
        // f8_e4m3 conversion saturates in oneDNN; ONNX's saturate = 0 gives NaN.
        m.put("test_cast_no_saturate_FLOAT16_to_FLOAT8E4M3FN", "saturate = 0");
        return m;
    }

    static Path corpus() {
        return Corpus.root().resolve("onnx-node");
    }

    /** Asserts no test fails and every unsupported one is explained with the expected reason. */
    static void assertConformance(OnnxConformance.Report report) {
        List<String> problems = new ArrayList<>();
        for (OnnxConformance.CaseResult c : report.cases()) {
            String why = EXPLAINED_UNSUPPORTED.get(c.name());
            switch (c.status()) {
                case FAIL -> problems.add("FAIL " + c.name() + ": " + c.detail());
                case UNSUPPORTED -> {
                    if (why == null) {
                        problems.add("unexplained UNSUPPORTED " + c.name() + ": " + c.detail());
                    } else if (!c.detail().contains(why)) {
                        problems.add("UNSUPPORTED " + c.name() + " for another reason than '" + why + "': " + c.detail());
                    }
                }
                case PASS -> {
                    if (why != null) {
                        problems.add("PASS " + c.name() + " is listed as unsupported: update the list");
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems) + "\n" + report.table());
    }

    @Test
    void referenceBackendMatchesOnnxGoldenOutputs() {
        OnnxConformance.Report report = OnnxConformance.runAll(corpus(), GraphRuntime.referenceOnly(),
                PartitionPolicy.DEBUG);
        System.out.println("ONNX node tests on the reference backend:\n" + report.table());
        assertEquals(OnnxConformance.testFolders(corpus()).size(), report.cases().size());
        assertTrue(report.cases().size() >= 200, "the corpus holds 217 tests, found " + report.cases().size());
        assertConformance(report);
        for (OnnxConformance.CaseResult c : report.cases()) {
            if (c.status() == OnnxConformance.Status.PASS) {
                assertEquals(java.util.Set.of("reference"), c.backends(), c.name());
            }
        }
    }

    @Test
    void testedOpComesFromTheTestName() {
        assertEquals("LayerNormalization (expanded)", OnnxConformance.testedOp(
                "test_layer_normalization_2d_axis0_expanded", List.of("Constant", "Cast", "ReduceMean")));
        assertEquals("Conv", OnnxConformance.testedOp("test_basic_conv_with_padding", List.of("Conv")));
        assertEquals("BatchNormalization", OnnxConformance.testedOp("test_batchnorm_epsilon",
                List.of("BatchNormalization")));
    }
}
