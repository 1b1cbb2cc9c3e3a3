package io.partita.backend.dnnl.internal;

import static io.partita.backend.dnnl.internal.Tensors.assertClaimed;
import static io.partita.backend.dnnl.internal.Tensors.dims;
import static io.partita.backend.dnnl.internal.Tensors.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.CompiledGraph;
import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.testkit.check.OutputComparison;
import io.partita.testkit.check.RandomInputs;

/**
 * PartitaSlice and PartitaPad on the dnnl backend against the reference backend, their parameters
 * given as tensors read at execution (as ONNX's Slice-10+ and Pad-11+ inputs arrive).
 */
class SliceAndPadAgainstReferenceTest {
    private static final long OUT = 9;

    /** Runs op (input 0 = data id 0; parameters ids 1.. with the given values) on both backends and compares. */
    private static Map<Long, Tensor> compare(Op op, Map<Long, double[]> params) {
        Engine e = Engine.cpu();
        Graph r = AgainstReference.REFERENCE.createGraph(EngineKind.CPU);
        r.add(op);
        r.finalizeGraph();
        Graph g = AgainstReference.WITH_DNNL.createGraph(EngineKind.CPU);
        g.add(op);
        g.finalizeGraph();
        try (Arena arena = Arena.ofShared();
                CompiledGraph rg = AgainstReference.REFERENCE.compile(r, PartitionPolicy.DEBUG, e);
                CompiledGraph cg = AgainstReference.WITH_DNNL.compile(g, PartitionPolicy.FUSION, e)) {
            assertClaimed(g.partitions(PartitionPolicy.FUSION), "dnnl", op.id());
            Map<Long, Tensor> in = inputs(AgainstReference.REFERENCE, r, params, e, arena);
            Tensor expected = rg.execute(new Stream(e), in).get(OUT);
            Map<Long, Tensor> out = cg.execute(new Stream(e), in);
            OutputComparison.Result res = OutputComparison.compare(expected, out.get(OUT));
            assertTrue(res.matches(), op.describe() + ": " + res.describe());
            // copied out: the compiled graph owns its outputs' memory
            Tensor y = out.get(OUT);
            float[] v = y.toFloatArray();
            Tensor kept = Tensor.allocate(y.logicalTensor(), e, Arena.ofAuto());
            kept.copyFrom(v);
            return Map.of(OUT, kept);
        }
    }

    /** Seeded random data; the parameters' given values (RandomInputs cannot know what a slice should take). */
    private static Map<Long, Tensor> inputs(GraphRuntime rt, Graph g, Map<Long, double[]> params, Engine e,
            Arena arena) {
        Map<Long, Tensor> in = new HashMap<>();
        for (LogicalTensor t : g.inputs()) {
            Tensor x = Tensor.allocate(t, e, arena);
            if (params.containsKey(t.id())) {
                x.copyFrom(params.get(t.id()));
            } else {
                RandomInputs.fill(rt.opSchemas(), x, g.ops(), 7);
            }
            in.put(t.id(), x);
        }
        return in;
    }

    private static LogicalTensor longs(long id, int n) {
        return LogicalTensor.of(id, DataType.S64, n);
    }

    private static double[] values(String csv) {
        return csv.isEmpty() ? new double[0] : Arrays.stream(csv.split(";")).mapToDouble(Double::parseDouble).toArray();
    }

    @ParameterizedTest(name = "Slice {0} starts={1} ends={2} axes={3} steps={4} -> {5}")
    @CsvSource({
        "4;10,1,8,1,2,4;4", "4;10,-3,100,-1,1,4;3", "4;10;6,3;2,0;9,0;2,1;3,1;3;3",
        "2;5;7,6,-100,2,-2,2;5;4", "3;64,0;16,3;48,0;1,1;1,3;32", "5;5,4;4,0;0,0;1,-1;-1,4;4",
        "1;3;224;224,2;2,222;222,2;3,1;1,1;3;220;220"
    })
    void sliceMatchesTheReference(String src, String starts, String ends, String axes, String steps, String out) {
        long[] d = dims(src.replace(';', ','));
        int n = values(starts).length;
        Op op = Op.builder(0, OpKind.PartitaSlice).inputs(f32(0, d), longs(1, n), longs(2, n), longs(3, n), longs(4, n))
                .output(f32(OUT, dims(out.replace(';', ',')))).build();
        compare(op, Map.of(1L, values(starts), 2L, values(ends), 3L, values(axes), 4L, values(steps)));
    }

    @ParameterizedTest(name = "Pad {0} {1} pads={2} axes={3} -> {4}")
    @CsvSource({
        "1;3;5;5,constant,0;0;1;1;0;0;1;1,,1;3;7;7", "1;3;5;5,reflect,0;0;2;2;0;0;2;2,,1;3;9;9",
        "2;7,edge,1;3;0;2,,3;12", "2;7,wrap,0;9;0;2,,2;18", "4;6,constant,0;-2;0;-1,,4;3",
        "2;3;4,reflect,1;3,2,2;3;8", "3;3,constant,2;0;0;0,,5;3"
    })
    void padMatchesTheReference(String src, String mode, String pads, String axes, String out) {
        long[] d = dims(src.replace(';', ','));
        double[] p = values(pads);
        Op.Builder b = Op.builder(0, OpKind.PartitaPad).inputs(f32(0, d), longs(1, p.length), f32(2, 1))
                .output(f32(OUT, dims(out.replace(';', ',')))).attr("mode", mode);
        Map<Long, double[]> params = new HashMap<>(Map.of(1L, p, 2L, new double[] {-2.5}));
        if (axes != null) {
            b.input(longs(3, values(axes).length));
            params.put(3L, values(axes));
        }
        Tensor y = compare(b.build(), params).get(OUT);
        if (mode.equals("constant") && p[0] > 0) {
            assertEquals(-2.5f, y.toFloatArray()[0], "the constant fills the padding");
        }
    }

    @Test
    void badParametersAreRefusedNamingThem() {
        Graph g = AgainstReference.WITH_DNNL.createGraph(EngineKind.CPU);
        g.add(Op.builder(0, OpKind.PartitaSlice).inputs(f32(0, 4, 10), longs(1, 1), longs(2, 1), longs(3, 1),
                longs(4, 1)).output(f32(OUT, 4, 3)).build());
        g.finalizeGraph();
        Engine e = Engine.cpu();
        try (Arena arena = Arena.ofConfined(); CompiledGraph cg = AgainstReference.WITH_DNNL.compile(g,
                PartitionPolicy.FUSION, e)) {
            assertClaimed(g.partitions(PartitionPolicy.FUSION), "dnnl", 0);
            Map<Long, Tensor> in = inputs(AgainstReference.WITH_DNNL, g, Map.of(1L, new double[] {2}, 2L,
                    new double[] {7}, 3L, new double[] {1}, 4L, new double[] {0}), e, arena);
            InvalidArgumentException x = assertThrows(InvalidArgumentException.class, () -> cg.execute(new Stream(e), in));
            assertTrue(x.getMessage().contains("expected non-zero steps"), x.getMessage());
            in.get(3L).copyFrom(new double[] {2});
            in.get(4L).copyFrom(new double[] {1});
            x = assertThrows(InvalidArgumentException.class, () -> cg.execute(new Stream(e), in));
            assertTrue(x.getMessage().contains("axis 2 is out of range for rank 2"), x.getMessage());
            // and good values run, with the output dims they give
            in.get(3L).copyFrom(new double[] {1});
            assertArrayEquals(new long[] {4, 5}, cg.execute(new Stream(e), in).get(OUT).logicalTensor().dims());
        }
    }
}
