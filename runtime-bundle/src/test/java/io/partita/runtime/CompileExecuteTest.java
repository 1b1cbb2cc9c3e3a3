package io.partita.runtime;

import static io.partita.testing.Graphs.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.partita.graph.CompiledPartition;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;

/** Compile and execute arguments are checked against the partition, with named errors. */
class CompileExecuteTest {
    private final Engine cpu = Engine.cpu();
    private final Arena arena = Arena.ofConfined();

    @AfterEach
    void close() {
        arena.close();
    }

    private Partition matmulPartition() {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.MatMul).inputs(f32(0, 2, 3), f32(1, 3, 4)).output(f32(2, 2, 4)).build());
        g.finalizeGraph();
        return g.partitions(PartitionPolicy.FUSION).get(0);
    }

    private Tensor tensor(LogicalTensor lt, float... values) {
        Tensor t = Tensor.allocate(lt, cpu, arena);
        if (values.length > 0) {
            t.copyFrom(values);
        }
        return t;
    }

    @Test
    void portsAreTheBoundaryTensors() {
        Partition p = matmulPartition();
        assertEquals(List.of(0L, 1L), p.inputs().stream().map(LogicalTensor::id).toList());
        assertEquals(List.of(2L), p.outputs().stream().map(LogicalTensor::id).toList());
        assertEquals("reference", p.backendId());
        CompiledPartition cp = p.compile(cpu);
        assertEquals(f32(2, 2, 4), cp.queryLogicalTensor(2));
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> cp.queryLogicalTensor(9));
        assertTrue(e.getMessage().contains("tensor 9 is not an input or output of partition 0"), e.getMessage());
    }

    @Test
    void compileNamesMissingUnknownAndDuplicateTensors() {
        Partition p = matmulPartition();
        assertTrue(assertThrows(InvalidArgumentException.class, () -> p.compile(List.of(f32(0, 2, 3)), List.of(), cpu))
                .getMessage().contains("tensor 1 (tensor 1 f32 [3,4]) is missing; expected [0, 1]"));
        assertTrue(assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(f32(0, 2, 3), f32(1, 3, 4), f32(7, 1)), List.of(), cpu))
                .getMessage().contains("tensor 7 is not a port of this partition"));
        assertTrue(assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(f32(0, 2, 3), f32(0, 2, 3)), List.of(), cpu))
                .getMessage().contains("tensor 0 is given twice"));
    }

    @Test
    void compileRefusesContradictingDimsAndTypes() {
        Partition p = matmulPartition();
        InvalidArgumentException dims = assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(f32(0, 2, 5), f32(1, 3, 4)), List.of(), cpu));
        assertTrue(dims.getMessage().contains("dim 1 is 5 but the graph was built with 3"), dims.getMessage());
        InvalidArgumentException type = assertThrows(InvalidArgumentException.class,
                () -> p.compile(List.of(LogicalTensor.of(0, DataType.BF16, 2, 3), f32(1, 3, 4)), List.of(), cpu));
        assertTrue(type.getMessage().contains("has data type bf16 but the graph declares f32"), type.getMessage());
        InvalidArgumentException out = assertThrows(InvalidArgumentException.class,
                () -> p.compile(p.inputs(), List.of(f32(2, 2, 5)), cpu));
        assertTrue(out.getMessage().contains("is given [2,5] but the partition produces [2,4]"), out.getMessage());
        InvalidArgumentException engine = assertThrows(InvalidArgumentException.class,
                () -> p.compile(p.inputs(), p.outputs(), new Engine(EngineKind.GPU, 0)));
        assertTrue(engine.getMessage().contains("cannot compile it for engine gpu.0"), engine.getMessage());
    }

    @Test
    void executeComputesAndChecksEveryTensor() {
        CompiledPartition cp = matmulPartition().compile(cpu);
        Tensor a = tensor(f32(0, 2, 3), 1, 2, 3, 4, 5, 6);
        Tensor b = tensor(f32(1, 3, 4), 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1);
        Tensor c = tensor(f32(2, 2, 4));
        Stream s = new Stream(cpu);
        cp.execute(s, List.of(b, a), List.of(c)); // matched by id, not position
        assertArrayEquals(new float[] {1, 2, 3, 6, 4, 5, 6, 15}, c.toFloatArray());

        Tensor wrongDims = tensor(f32(0, 3, 2));
        InvalidArgumentException e1 = assertThrows(InvalidArgumentException.class,
                () -> cp.execute(s, List.of(wrongDims, b), List.of(c)));
        assertTrue(e1.getMessage().contains("input tensor 0 [3,2]: dim 0 is 3 but the partition was compiled for 2"),
                e1.getMessage());
        Tensor wrongOut = tensor(f32(2, 2, 3));
        InvalidArgumentException e2 = assertThrows(InvalidArgumentException.class,
                () -> cp.execute(s, List.of(a, b), List.of(wrongOut)));
        assertTrue(e2.getMessage().contains("output tensor 2 is f32 [2,3] but the partition produces f32 [2,4]"), e2.getMessage());
        Tensor strided = Tensor.of(f32(0, 2, 3).withStrides(1, 2), cpu, arena.allocate(64, 64));
        InvalidArgumentException e3 = assertThrows(InvalidArgumentException.class,
                () -> cp.execute(s, List.of(strided, b), List.of(c)));
        assertTrue(e3.getMessage().contains("has strides [1,2] but the partition was compiled for [3,1]"),
                e3.getMessage());
        InvalidArgumentException e4 = assertThrows(InvalidArgumentException.class,
                () -> cp.execute(new Stream(new Engine(EngineKind.CPU, 1)), List.of(a, b), List.of(c)));
        assertTrue(e4.getMessage().contains("compiled for engine cpu but the stream is on cpu.1"), e4.getMessage());
        InvalidArgumentException e5 = assertThrows(InvalidArgumentException.class,
                () -> cp.execute(s, List.of(a), List.of(c)));
        assertTrue(e5.getMessage().contains("tensor 1 (tensor 1 f32 [3,4]) is missing"), e5.getMessage());
    }

    @Test
    void explicitStridesAtCompileAreHonoured() {
        Partition p = matmulPartition();
        // src given column-major: strides [1, 2] for dims [2, 3]
        LogicalTensor src = f32(0, 2, 3).withStrides(1, 2);
        CompiledPartition cp = p.compile(List.of(src, f32(1, 3, 4)), List.of(), cpu);
        Tensor a = Tensor.of(src, cpu, arena.allocate(64, 64));
        a.copyFrom(new float[] {1, 2, 3, 4, 5, 6}); // logical order, written through the strides
        Tensor b = tensor(f32(1, 3, 4), 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1);
        Tensor c = tensor(f32(2, 2, 4));
        cp.execute(new Stream(cpu), List.of(a, b), List.of(c));
        assertArrayEquals(new float[] {1, 2, 3, 6, 4, 5, 6, 15}, c.toFloatArray());
    }

    @Test
    void tensorsRefuseTooSmallAndMisalignedBuffers() {
        InvalidArgumentException small = assertThrows(InvalidArgumentException.class,
                () -> Tensor.of(f32(3, 4, 4), cpu, arena.allocate(32, 64)));
        assertTrue(small.getMessage().contains("tensor 3 [4,4] f32 needs 64 bytes but its buffer has 32"),
                small.getMessage());
        InvalidArgumentException misaligned = assertThrows(InvalidArgumentException.class,
                () -> Tensor.of(f32(3, 2), cpu, arena.allocate(128, 64).asSlice(4)));
        assertTrue(misaligned.getMessage().contains("is not 64-byte aligned"), misaligned.getMessage());
        assertEquals(0, Tensor.allocate(f32(1, 3), cpu, arena).data().address() % 64);
    }

    @Test
    void referenceBackendRefusesGpuEnginesClearly() {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.GPU);
        g.add(Op.builder(0, OpKind.ReLU).input(f32(0, 4)).output(f32(1, 4)).build());
        g.finalizeGraph();
        UnsupportedFeatureException e = assertThrows(UnsupportedFeatureException.class,
                () -> g.partitions(PartitionPolicy.FUSION).get(0).compile(new Engine(EngineKind.GPU, 0)));
        assertTrue(e.getMessage().contains("no backend claimed op 0 (ReLU) for engine gpu.0"), e.getMessage());
    }
}
