package io.partita.cli.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.partita.cli.CliRun;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;

/**
 * {@code run --engine gpu} on the OpenCL device (PoCL in CI): every example's partitions go to
 * the gpu backend and {@code --check} compares them with the reference backend on the CPU.
 */
class RunGpuEngineTest {

    @Test
    void examplesRunOnTheGpuEngineAndPassTheCheck() {
        for (String example : new String[] {"mlp.json", "attention.json", "resnet_block.json"}) {
            String text = CliRun.expect(0, "run", RunCheckExamplesTest.example(example).toString(), "--iterations", "1",
                    "--engine", "gpu:0", "--check");
            // the engine runs every op of these graphs: one partition, intermediates kept on the device
            assertTrue(text.contains("partitions (policy fusion): 1") && text.contains("gpu        graph_of_"), text);
            assertTrue(text.lines().filter(l -> l.matches("\\s+\\d+\\s+\\w+\\s+\\w+\\s.*"))
                    .allMatch(l -> l.trim().split("\\s+")[1].equals("gpu")), "every partition on gpu:\n" + text);
            assertTrue(text.contains("check: reference backend on cpu (the graph ran on gpu.0)"), text);
            assertTrue(text.contains("check: all 1 outputs match the reference backend"), example + ":\n" + text);
        }
    }

    @Test
    void engineSpellings() {
        assertEquals(new Engine(EngineKind.GPU, 0), RunCommand.parseEngine("gpu"));
        assertEquals(new Engine(EngineKind.GPU, 2), RunCommand.parseEngine("GPU:2"));
        assertEquals(new Engine(EngineKind.GPU, 1), RunCommand.parseEngine("gpu.1"));
        assertEquals(Engine.cpu(), RunCommand.parseEngine("cpu"));
    }

    @Test
    void aMissingDeviceIndexIsNamed() {
        CliRun.Result r = CliRun.run(io.partita.graph.GraphRuntime.standalone(), "run", RunCheckExamplesTest.example("mlp.json").toString(), "--iterations", "0",
                "--engine", "gpu:7");
        assertTrue(r.code() != 0, r.out());
        assertTrue(r.err().contains("engine gpu.7 does not exist"), r.err());
    }
}
