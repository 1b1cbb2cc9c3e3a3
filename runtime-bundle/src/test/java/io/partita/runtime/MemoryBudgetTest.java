package io.partita.runtime;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.testing.Graphs.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledGraph;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.MemoryLimitException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.spi.Claim;
import io.partita.testing.Graphs;
import io.partita.testing.TestBackend;

/** The memory limit: its default, its settings, and the refusals at compile and execution. */
class MemoryBudgetTest {
    private static final Engine CPU = Engine.cpu();
    private static final long MIB = 1L << 20;

    private static Graph graph(GraphRuntime rt, Op... ops) {
        Graph g = rt.createGraph(EngineKind.CPU);
        for (Op op : ops) {
            g.add(op);
        }
        return g.finalizeGraph();
    }

    private static Op add(long id, long in0, long in1, long out, long... dims) {
        return Op.builder(id, OpKind.Add).inputs(f32(in0, dims), f32(in1, dims)).output(f32(out, dims)).build();
    }

    // ------------------------------------------------------------------ default and settings

    @Test
    void defaultIsFourFifthsOfTheLargestHeapPoolCappedByAnExplicitDirectMemoryLimit() {
        assertEquals(800 * MIB, MemoryBudget.defaultLimit(1000 * MIB, OptionalLong.empty()));
        assertEquals(512 * MIB, MemoryBudget.defaultLimit(1000 * MIB, OptionalLong.of(512 * MIB)));
        assertEquals(800 * MIB, MemoryBudget.defaultLimit(1000 * MIB, OptionalLong.of(4096 * MIB)));
        long here = MemoryBudget.defaultLimit();
        assertTrue(here > 0 && here <= Runtime.getRuntime().maxMemory(), "default " + here);
        assertEquals(here, GraphRuntime.referenceOnly().memoryLimit());
    }

    @Test
    void directMemoryFlagIsReadFromTheJvmArgumentsTheLastOneWinning() {
        assertEquals(OptionalLong.empty(), MemoryBudget.maxDirectMemory(List.of("-Xmx6g", "-ea")));
        assertEquals(OptionalLong.of(3L << 30), MemoryBudget.maxDirectMemory(
                List.of("-XX:MaxDirectMemorySize=1g", "-Xmx6g", "-XX:MaxDirectMemorySize=3G")));
        assertEquals(OptionalLong.of(1536 * MIB), MemoryBudget.maxDirectMemory(List.of("-XX:MaxDirectMemorySize=1536m")));
    }

    @Test
    void sizesParseAsXmxDoes() {
        assertEquals(1073741824L, MemoryBudget.parse("p", "1073741824"));
        assertEquals(8L << 30, MemoryBudget.parse("p", "8g"));
        assertEquals(512 * MIB, MemoryBudget.parse("p", " 512M "));
        assertEquals(2048L, MemoryBudget.parse("p", "2k"));
        assertEquals(3L << 40, MemoryBudget.parse("p", "3t"));
    }

    @Test
    void malformedSizesAreRefusedNamingThePropertyAndTheExpectedForm() {
        for (String bad : new String[] {"", "abc", "2gb", "-1g", "0", "1.5g", "9999999999999999999", "9000000t"}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> MemoryBudget.parse("partita.memory.limit", bad), bad);
            assertTrue(e.getMessage().startsWith("partita.memory.limit='" + bad + "' is not a memory size")
                    && e.getMessage().contains("e.g. 8g, 512m or 1073741824"), e.getMessage());
        }
    }

    @Test
    void propertyValueSetsTheLimitAndAMalformedOneKeepsTheDefault() {
        assertEquals(2L << 30, MemoryBudget.create("2g", m -> {
            throw new AssertionError(m);
        }).limit());
        List<String> logged = new ArrayList<>();
        MemoryBudget b = MemoryBudget.create("lots", logged::add);
        assertEquals(MemoryBudget.defaultLimit(), b.limit());
        assertEquals(1, logged.size());
        assertTrue(logged.get(0).contains("partita.memory.limit='lots'"), logged.get(0));
    }

    @Test
    void setMemoryLimitRefusesLessThanOneByteAndKeepsThePreviousLimit() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        rt.setMemoryLimit(64 * MIB);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> rt.setMemoryLimit(0));
        assertEquals("memory limit 0 bytes is out of range; expected at least 1", e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> rt.setMemoryLimit(-5));
        assertEquals(64 * MIB, rt.memoryLimit());
        assertEquals(64 * MIB, rt.reference().memoryLimit(), "the reference runtime shares the limit");
    }

    @Test
    void bytesAreFormattedInBinaryUnits() {
        assertEquals("1 byte", MemoryLimitException.formatBytes(1));
        assertEquals("1023 bytes", MemoryLimitException.formatBytes(1023));
        assertEquals("1.5 KiB", MemoryLimitException.formatBytes(1536));
        assertEquals("3.6 PiB", MemoryLimitException.formatBytes(4_000_000_000_000_000L));
    }

    // ------------------------------------------------------------------ compile

    @Test
    void compileRefusesATensorOfAHundredThousandCubedNamingItsSizeAndTheLimit() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        rt.setMemoryLimit(12L << 30);
        long n = 100_000;
        Graph g = graph(rt, relu(n, n, n));
        MemoryLimitException e = assertThrows(MemoryLimitException.class,
                () -> rt.compile(g, PartitionPolicy.FUSION, CPU));
        assertEquals("tensor 0 f32[100000,100000,100000] needs 3.6 PiB; the memory limit is 12.0 GiB (set it with the"
                + " partita.memory.limit property or GraphRuntime.setMemoryLimit)", e.getMessage());
        assertEquals(4 * n * n * n, e.bytes());
        assertEquals(12L << 30, e.limit());
        assertEquals("tensor 0 f32[100000,100000,100000]", e.item());
    }

    @Test
    void compileRefusesTensorsThatFitAloneButNotTogether() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        rt.setMemoryLimit(10 * MIB);
        // three 4 MiB tensors: inputs 8 MiB, output 4 MiB
        Graph g = graph(rt, add(0, 0, 1, 2, 1024, 1024));
        MemoryLimitException e = assertThrows(MemoryLimitException.class,
                () -> rt.compile(g, PartitionPolicy.FUSION, CPU));
        assertEquals("the compiled graph needs 12.0 MiB of tensors at once (inputs 8.0 MiB, intermediates and outputs"
                + " 4.0 MiB; the largest is tensor 0 f32[1024,1024] with 4.0 MiB); the memory limit is 10.0 MiB (set it"
                + " with the partita.memory.limit property or GraphRuntime.setMemoryLimit)", e.getMessage());
        assertEquals(12 * MIB, e.bytes());
    }

    @Test
    void aGraphJustUnderTheLimitCompilesAndRuns() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        // [256,256] f32 = 256 KiB each: inputs, the intermediate and the output make 1 MiB;
        // the reference backend holds a partition's 3 tensors as doubles: 1.5 MiB.
        rt.setMemoryLimit(1536 * 1024);
        Graph g = graph(rt, add(0, 0, 1, 2, 256, 256), add(1, 2, 1, 3, 256, 256));
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.DEBUG, CPU)) {
            Map<Long, Tensor> out = cg.execute(new Stream(CPU), Graphs.inputs(g, CPU, arena, 1));
            assertEquals(1, out.size());
            // one byte less and the reference partition's doubles no longer fit
            rt.setMemoryLimit(1536 * 1024 - 1);
            MemoryLimitException e = assertThrows(MemoryLimitException.class,
                    () -> cg.execute(new Stream(CPU), Graphs.inputs(g, CPU, arena, 2)));
            assertTrue(e.getMessage().startsWith("tensor 2 f32[256,256] needs 512.0 KiB as doubles while the reference"
                    + " backend runs partition"), e.getMessage());
            assertTrue(e.getMessage().contains("beside 1.0 MiB of its other tensors"), e.getMessage());
        }
    }

    /** Claims every ReLU: its partitions hold no doubles on the heap (the reference backend's check is not at stake). */
    private static RuntimeCore reluRuntime() {
        return StandaloneRuntime.of(new TestBackend("relus", 10, (g, policy) -> g.ops().stream()
                .filter(op -> op.kind() == OpKind.ReLU && !g.isClaimed(op.id())).map(op -> Claim.of("relu", op.id()))
                .toList()));
    }

    private static Op relu(long... dims) {
        return Op.builder(0, OpKind.ReLU).input(f32(0, dims)).output(f32(1, dims)).build();
    }

    @Test
    void liveCompiledGraphsCountAgainstTheLimitUntilClosed() {
        RuntimeCore rt = reluRuntime();
        rt.setMemoryLimit(10 * MIB);
        Graph g = graph(rt, relu(1024, 1024));
        CompiledGraph first = rt.compile(g, PartitionPolicy.FUSION, CPU);
        assertEquals(4 * MIB, rt.reservedMemory(), "the output buffer; the input is the caller's");
        assertEquals(4 * MIB, ((RuntimeCore) rt.reference()).reservedMemory(), "the reference runtime shares the budget");
        // 4 MiB held + 4 MiB input + 4 MiB output > 10 MiB
        MemoryLimitException e = assertThrows(MemoryLimitException.class, () -> rt.compile(g, PartitionPolicy.FUSION, CPU));
        assertEquals("the compiled graph needs 8.0 MiB of tensors at once (inputs 4.0 MiB, intermediates and outputs"
                + " 4.0 MiB, beside 4.0 MiB held by other compiled graphs not closed; the largest is tensor 0"
                + " f32[1024,1024] with 4.0 MiB); the memory limit is 10.0 MiB (set it with the partita.memory.limit"
                + " property or GraphRuntime.setMemoryLimit)", e.getMessage());
        first.close();
        first.close();
        assertEquals(0, rt.reservedMemory());
        try (CompiledGraph again = rt.compile(g, PartitionPolicy.FUSION, CPU)) {
            assertEquals(4 * MIB, rt.reservedMemory());
        }
        assertEquals(0, rt.reservedMemory());
    }

    @Test
    void aBufferWhoseDimsAreKnownOnlyAtExecutionIsCheckedBeforeItIsAllocated() {
        RuntimeCore rt = reluRuntime();
        rt.setMemoryLimit(MIB);
        Graph g = graph(rt, relu(DYNAMIC_DIM, 1024));
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, CPU)) {
            assertEquals(0, rt.reservedMemory());
            Tensor small = Tensor.allocate(f32(0, 16, 1024), CPU, arena);
            assertArrayEquals(new long[] {16, 1024}, cg.execute(new Stream(CPU), Map.of(0L, small)).get(1L)
                    .logicalTensor().dims());
            assertEquals(64 * 1024, rt.reservedMemory());
            Tensor large = Tensor.allocate(f32(0, 200, 1024), CPU, arena);
            MemoryLimitException e = assertThrows(MemoryLimitException.class,
                    () -> cg.execute(new Stream(CPU), Map.of(0L, large)));
            assertTrue(e.getMessage().startsWith("tensor 1 f32[200,1024] needs 800.0 KiB beside 64.0 KiB of buffers of"
                    + " compiled graphs and 800.0 KiB of inputs; the memory limit is 1.0 MiB"), e.getMessage());
        }
        assertEquals(0, rt.reservedMemory());
    }

    @Test
    void referenceBackendRefusesATensorLargerThanAJavaArray() {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        rt.setMemoryLimit(Long.MAX_VALUE);
        // 2^31 elements: 8 GiB of f32 would be allowed, but no array holds them as doubles
        Graph g = graph(rt, relu(1L << 16, 1L << 15));
        MemoryLimitException e = assertThrows(MemoryLimitException.class,
                () -> rt.compile(g, PartitionPolicy.FUSION, CPU));
        assertEquals("tensor 0 f32[65536,32768] has 2147483648 elements; the reference backend holds a tensor in one"
                + " Java array, at most 2147483639 elements", e.getMessage());
    }
}
