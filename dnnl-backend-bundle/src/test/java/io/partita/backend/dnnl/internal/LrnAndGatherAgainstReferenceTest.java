package io.partita.backend.dnnl.internal;

import static io.partita.backend.dnnl.internal.Tensors.any;
import static io.partita.backend.dnnl.internal.Tensors.assertClaimed;
import static io.partita.backend.dnnl.internal.Tensors.dims;
import static io.partita.backend.dnnl.internal.Tensors.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;

/**
 * The extension ops on real networks' hot paths that the dnnl backend runs: PartitaLRN (GoogLeNet,
 * AlexNet, ZFNet) and PartitaGather (embedding tables), against the reference backend.
 */
class LrnAndGatherAgainstReferenceTest {

    @ParameterizedTest(name = "LRN {0} size={1} alpha={2} beta={3} bias={4}")
    @CsvSource({
        "1;64;28;28,5,1e-4,0.75,1", "2;7;5;3,3,0.1,0.5,2", "1;3;17,4,0.3,1.3,1", "5;9,1,1,0.75,0.5",
        "1;6;3;3;3,7,0.2,0.75,1", "2;1;33,5,2,0.75,1"
    })
    void lrnAcrossChannels(String shape, long size, float alpha, float beta, float bias) {
        long[] d = dims(shape.replace(';', ','));
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.PartitaLRN).input(f32(0, d))
                .output(any(1)).attr("size", size).attr("alpha", alpha).attr("beta", beta).attr("bias", bias)
                .build()), size * 31 + d.length);
        assertClaimed(parts, "dnnl", 0);
    }

    @ParameterizedTest(name = "Gather {0} axis={1} indices {2} {3}")
    @CsvSource({
        "30;7,0,2;5,s64", "3;10;4,1,6,s32", "3;10;4,-1,2;2,s64", "8,0,5,s32", "2;3;5;7,2,1,s64", "50;768,0,1;128,s64"
    })
    void gatherAlongAnAxis(String shape, long axis, String indexShape, String type) {
        long[] d = dims(shape.replace(';', ','));
        long[] id = dims(indexShape.replace(';', ','));
        List<Partition> parts = AgainstReference.check(g -> g.add(Op.builder(0, OpKind.PartitaGather)
                .inputs(f32(0, d), LogicalTensor.of(1, DataType.fromSpelling(type), id)).output(any(2))
                .attr("axis", axis).build()), d.length * 13 + id.length);
        assertClaimed(parts, "dnnl", 0);
    }

    @Test
    void gatherCountsNegativeIndicesFromTheEndAndRefusesOnesOutOfRange() {
        Graph g = AgainstReference.WITH_DNNL.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.PartitaGather).inputs(f32(0, 4, 2), LogicalTensor.of(1, DataType.S64, 3))
                .output(any(2)).attr("axis", 0L).build());
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = AgainstReference.WITH_DNNL.compile(g,
                PartitionPolicy.FUSION, e)) {
            assertClaimed(g.partitions(PartitionPolicy.FUSION), "dnnl", 0);
            Tensor data = Tensor.allocate(f32(0, 4, 2), e, arena);
            data.copyFrom(new float[] {0, 1, 10, 11, 20, 21, 30, 31});
            Tensor idx = Tensor.allocate(LogicalTensor.of(1, DataType.S64, 3), e, arena);
            idx.copyFrom(new double[] {-1, 2, 0});
            Map<Long, Tensor> out = cg.execute(new Stream(e), Map.of(0L, data, 1L, idx));
            assertArrayEquals(new float[] {30, 31, 20, 21, 0, 1}, out.get(2L).toFloatArray());
            idx.copyFrom(new double[] {1, 4, 0});
            InvalidArgumentException x = assertThrows(InvalidArgumentException.class,
                    () -> cg.execute(new Stream(e), Map.of(0L, data, 1L, idx)));
            assertTrue(x.getMessage().contains("index 4 is out of range for axis 0 of size 4")
                    && x.getMessage().contains("[-4, 3]"), x.getMessage());
            idx.copyFrom(new double[] {-5, 0, 0});
            x = assertThrows(InvalidArgumentException.class, () -> cg.execute(new Stream(e), Map.of(0L, data, 1L, idx)));
            assertTrue(x.getMessage().contains("index -5"), x.getMessage());
        }
    }

    @Test
    void bf16LrnAndNonF32GatherDataStayWithTheReference() {
        Graph g = AgainstReference.WITH_DNNL.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.PartitaLRN).input(LogicalTensor.of(0, DataType.BF16, 1, 4, 3))
                .output(LogicalTensor.unknownRank(1, DataType.BF16)).attr("size", 3L).build());
        g.add(Op.builder(1, OpKind.PartitaGather).inputs(LogicalTensor.of(2, DataType.S32, 5, 2),
                LogicalTensor.of(3, DataType.S64, 2)).output(LogicalTensor.unknownRank(4, DataType.S32))
                .attr("axis", 0L).build());
        g.finalizeGraph();
        for (Partition p : g.partitions(PartitionPolicy.FUSION)) {
            assertEquals("reference", p.backendId(), p.toString());
        }
    }
}
