package io.partita.cli.run;

import static io.partita.cli.run.RunCheckExamplesTest.example;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.partita.cli.CliRun;
import io.partita.formats.json.GraphJson;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;

/**
 * The shipped dynamic-shape examples: compiled once with their DYNAMIC_DIM dims, run for several
 * {@code --in-shapes} sets (dims of 1, odd sizes) and checked against the reference backend on
 * each set's static graph.
 */
class RunDynamicExamplesTest {

    /** The MHA example's four inputs for batch b and sequence length s. */
    static String mha(int b, int s) {
        String qkv = b + "x12x" + s + "x64";
        return "--in-shapes=0:" + qkv + "+1:" + qkv + "+2:" + qkv + "+4:" + b + "x1x1x" + s;
    }

    private static List<String> matches(String text, String regex) {
        List<String> found = new ArrayList<>();
        Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(text);
        while (m.find()) {
            found.add(m.group(m.groupCount() > 0 ? 1 : 0));
        }
        return found;
    }

    @Test
    void theExamplesDeclareDynamicBatchAndSequence() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph mha = GraphJson.read(rt, example("mha_dynamic.json")).finalizeGraph();
        long dyn = LogicalTensor.DYNAMIC_DIM;
        for (LogicalTensor t : mha.inputs()) {
            long[] expected = switch ((int) t.id()) {
                case 0, 1, 2 -> new long[] {dyn, 12, dyn, 64};
                case 3 -> new long[] {1};
                case 4 -> new long[] {dyn, 1, 1, dyn};
                default -> throw new AssertionError("unexpected input " + t);
            };
            assertEquals(LogicalTensor.dimsToString(expected), LogicalTensor.dimsToString(t.dims()), t.toString());
            assertEquals(t.id() == 3, t.isConstant(), t.toString());
        }
        assertEquals("[dyn,dyn,768]", LogicalTensor.dimsToString(mha.outputs().getFirst().dims()));
        Graph mlp = GraphJson.read(rt, example("gated_mlp_dynamic.json")).finalizeGraph();
        assertEquals(4, mlp.inputs().size());
        assertEquals("[dyn,768]", LogicalTensor.dimsToString(mlp.outputs().getFirst().dims()));
        assertEquals(EngineKind.CPU, mlp.engineKind());
    }

    @Test
    void mhaRunsThreeShapeSetsFromOneCompilationAndMatchesTheReference() {
        String text = CliRun.expect(0, "run", example("mha_dynamic.json").toString(), "--iterations", "2", "--check",
                mha(1, 16), mha(2, 33), mha(1, 1));
        assertEquals(1, matches(text, "^partitions \\(policy").size(), "compiled once:\n" + text);
        assertEquals(List.of("1 of 3", "2 of 3", "3 of 3"), matches(text, "^shape set (\\d of 3):"), text);
        assertEquals(List.of("f32[1,16,768]", "f32[2,33,768]", "f32[1,1,768]"), matches(text, "^output 11: (\\S+)$"),
                text);
        assertEquals(3, matches(text, "^check: all 1 outputs match the reference backend$").size(), text);
        assertEquals(3, matches(text, "^steady state over 2 iterations: median ").size(), text);
        assertTrue(text.contains("latency per shape set (compiled once; median over 2 iterations, first iteration):"),
                text);
        assertEquals(List.of(mha(1, 16), mha(2, 33), mha(1, 1)), matches(text, "^  \\d.* (--in-shapes=0:\\S+)$"), text);
    }

    @Test
    void gatedMlpRunsThreeShapeSetsFromOneCompilationAndMatchesTheReference() {
        String text = CliRun.expect(0, "run", example("gated_mlp_dynamic.json").toString(), "--iterations", "1",
                "--check", "--in-shapes=0:1x768", "--in-shapes=0:7x768", "--in-shapes=0:64x768");
        assertEquals(1, matches(text, "^partitions \\(policy").size(), "compiled once:\n" + text);
        assertEquals(List.of("f32[1,768]", "f32[7,768]", "f32[64,768]"), matches(text, "^output 9: (\\S+)$"), text);
        assertEquals(3, matches(text, "^check: all 1 outputs match the reference backend$").size(), text);
    }

    @Test
    void partitionsShowTheFirstShapeSet() {
        String text = CliRun.expect(0, "partitions", example("mha_dynamic.json").toString(), mha(2, 5), mha(1, 9));
        assertTrue(text.contains("partition tensors with " + mha(2, 5) + ":"), text);
        // the graph compiler takes the whole block: one partition from the inputs to the reshaped output
        assertTrue(text.contains("compiler   attention"), text);
        assertTrue(text.contains("0:f32[2,12,5,64] 1:f32[2,12,5,64] 3:f32[1] 4:f32[2,1,1,5] 2:f32[2,12,5,64]"
                + " -> 11:f32[2,5,768]"), text);
    }
}
