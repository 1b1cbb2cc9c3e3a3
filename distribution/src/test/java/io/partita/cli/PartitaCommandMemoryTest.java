package io.partita.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.formats.json.GraphJson;
import io.partita.graph.DataType;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.MemoryLimitException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;

/** Graphs too large for the memory: exit code 2 and one line on stderr, never a stack trace. */
class PartitaCommandMemoryTest {

    private static Path write(Path dir, String name, OpKind kind, long... dims) {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        g.add(Op.builder(0, kind).inputs(LogicalTensor.of(0, DataType.F32, dims), LogicalTensor.of(1, DataType.F32, dims))
                .output(LogicalTensor.of(2, DataType.F32, dims)).build());
        Path file = dir.resolve(name);
        GraphJson.write(g.finalizeGraph(), file);
        return file;
    }

    @Test
    void aMatMulOfTwoHundredThousandSquaredMatricesIsRefusedWithExitCode2(@TempDir Path tmp) {
        GraphRuntime rt = GraphRuntime.standalone();
        Path file = write(tmp, "matmul.json", OpKind.MatMul, 100_000, 100_000);
        CliRun.Result o = CliRun.run(rt, "run", file.toString(), "--check");
        assertEquals(PartitaCommand.BAD_INPUT, o.code(), o.out() + o.err());
        assertEquals("partita: tensor 0 f32[100000,100000] needs 37.3 GiB; the memory limit is "
                + MemoryLimitException.formatBytes(rt.memoryLimit()) + " (set it with the partita.memory.limit property"
                + " or GraphRuntime.setMemoryLimit)\n", o.err());
        assertFalse(o.out().contains("Exception") || o.out().contains("\tat "), o.out());
    }

    /**
     * The last resort: a limit set beyond what the machine can give lets a 3.6 PiB input through,
     * and the allocation fails; one line says what ran out and how to get out of it.
     */
    @Test
    void anOutOfMemoryErrorBecomesOneLineAndExitCode2(@TempDir Path tmp) {
        GraphRuntime rt = GraphRuntime.standalone();
        rt.setMemoryLimit(Long.MAX_VALUE);
        Path file = write(tmp, "add.json", OpKind.Add, 100_000, 100_000, 100_000);
        CliRun.Result o = CliRun.run(rt, "run", file.toString());
        assertEquals(PartitaCommand.BAD_INPUT, o.code(), o.out() + o.err());
        String[] lines = o.err().split("\n");
        assertEquals(1, lines.length, o.err());
        assertTrue(lines[0].startsWith("partita: ") && lines[0].contains("memory")
                && lines[0].contains("PARTITA_JAVA_OPTS=-Xmx16g") && lines[0].contains("-Dpartita.memory.limit=2g"), lines[0]);
    }
}
