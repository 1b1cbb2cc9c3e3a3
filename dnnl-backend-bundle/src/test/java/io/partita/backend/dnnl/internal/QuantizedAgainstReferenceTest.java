package io.partita.backend.dnnl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.partita.graph.DataType;
import io.partita.graph.Graph;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;
import io.partita.graph.PropertyType;

/**
 * oneDNN's int8 patterns (Dequantize, Dequantize → MatMul or Convolution → post-ops → Quantize) as
 * one dnnl partition, against the reference backend running each op exactly.
 */
class QuantizedAgainstReferenceTest {
    private static LogicalTensor t(long id, DataType dt, long... dims) {
        return LogicalTensor.of(id, dt, dims);
    }

    private static Op dequantize(long id, LogicalTensor in, LogicalTensor out, float[] scales, long[] zps, long axis) {
        return Op.builder(id, OpKind.Dequantize).input(in).output(out).attr("qtype", axis < 0 ? "per_tensor"
                : "per_channel").attr("axis", Math.max(axis, 0)).attr("scales", scales).attr("zps", zps).build();
    }

    private static float[] channelScales(int n) {
        float[] s = new float[n];
        for (int i = 0; i < n; i++) {
            s[i] = 0.01f + 0.003f * (i % 7);
        }
        return s;
    }

    /** src [m, k] u8 or s8 per tensor with a zero point, weights [k, n] s8 per output channel, bias, ReLU, Quantize. */
    private static void build(Graph g, long m, long k, long n, DataType srcType, DataType dstType, boolean quantize,
            boolean constantWeights) {
        LogicalTensor w = t(1, DataType.S8, k, n);
        g.add(dequantize(0, t(0, srcType, m, k), t(10, DataType.F32, m, k), new float[] {0.05f},
                new long[] {srcType == DataType.U8 ? 120 : 3}, -1));
        g.add(dequantize(1, constantWeights ? w.withProperty(PropertyType.CONSTANT) : w, t(11, DataType.F32, k, n),
                channelScales((int) n), new long[(int) n], 1));
        g.add(Op.builder(2, OpKind.MatMul).inputs(t(10, DataType.F32, m, k), t(11, DataType.F32, k, n),
                t(2, DataType.F32, n).withProperty(PropertyType.CONSTANT)).output(t(12, DataType.F32, m, n)).build());
        g.add(Op.builder(3, OpKind.ReLU).input(t(12, DataType.F32, m, n)).output(t(13, DataType.F32, m, n)).build());
        if (quantize) {
            g.add(Op.builder(4, OpKind.Quantize).input(t(13, DataType.F32, m, n)).output(t(14, dstType, m, n))
                    .attr("qtype", "per_tensor").attr("scales", new float[] {0.02f})
                    .attr("zps", new long[] {dstType == DataType.U8 ? 7 : -5}).build());
        }
    }

    @ParameterizedTest(name = "[{0}x{1}] x [{1}x{2}] {3} -> {4} quantize={5} constant={6}")
    @CsvSource({
        "16,256,128,u8,s8,true,true", "1,13,7,s8,u8,true,true", "33,65,31,u8,u8,true,false",
        "16,1024,64,s8,s8,true,true", "5,17,9,u8,s8,false,true", "64,300,70,s8,s8,false,false"
    })
    void oneDnnlPartitionMatchingTheReference(long m, long k, long n, String src, String dst, boolean quantize,
            boolean constantWeights) {
        DataType s = DataType.valueOf(src.toUpperCase());
        DataType d = DataType.valueOf(dst.toUpperCase());
        List<Partition> parts = AgainstReference.check(g -> build(g, m, k, n, s, d, quantize, constantWeights),
                m * 31 + n);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals("dnnl", parts.get(0).backendId());
        assertEquals(quantize ? 5 : 4, parts.get(0).ops().size());
    }

    /** oneDNN's int8 "sum": a binary post-op whose other operand is dequantized too joins the partition. */
    @Test
    void dequantizedBinaryOperandJoins() {
        List<Partition> parts = AgainstReference.check(g -> {
            build(g, 16, 64, 32, DataType.U8, DataType.S8, false, true);
            g.add(dequantize(5, t(3, DataType.S8, 16, 32), t(15, DataType.F32, 16, 32), new float[] {0.5f},
                    new long[] {1}, -1));
            g.add(Op.builder(6, OpKind.Add).inputs(t(13, DataType.F32, 16, 32), t(15, DataType.F32, 16, 32))
                    .output(t(16, DataType.F32, 16, 32)).build());
            g.add(Op.builder(7, OpKind.Quantize).input(t(16, DataType.F32, 16, 32)).output(t(17, DataType.U8, 16, 32))
                    .attr("qtype", "per_tensor").attr("scales", new float[] {0.03f}).attr("zps", new long[] {100})
                    .build());
        }, 17);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals(7, parts.get(0).ops().size());
    }

    /** src NCX u8, weights OIX s8 per output channel, bias, ReLU, Quantize; grouped too. */
    @ParameterizedTest(name = "groups={0} constant={1}")
    @CsvSource({"1,true", "2,true", "1,false"})
    void convolution(long groups, boolean constantWeights) {
        List<Partition> parts = AgainstReference.check(g -> {
            LogicalTensor w = t(1, DataType.S8, 16, 8 / groups, 3, 3);
            g.add(dequantize(0, t(0, DataType.U8, 2, 8, 9, 9), t(10, DataType.F32, 2, 8, 9, 9), new float[] {0.04f},
                    new long[] {128}, -1));
            g.add(dequantize(1, constantWeights ? w.withProperty(PropertyType.CONSTANT) : w,
                    t(11, DataType.F32, 16, 8 / groups, 3, 3), channelScales(16), new long[16], 0));
            g.add(Op.builder(2, OpKind.Convolution).inputs(t(10, DataType.F32, 2, 8, 9, 9),
                    t(11, DataType.F32, 16, 8 / groups, 3, 3), t(2, DataType.F32, 16).withProperty(PropertyType.CONSTANT))
                    .output(t(12, DataType.F32, 2, 16, 9, 9)).attr("strides", new long[] {1, 1})
                    .attr("dilations", new long[] {1, 1}).attr("pads_begin", new long[] {1, 1})
                    .attr("pads_end", new long[] {1, 1}).attr("groups", groups).attr("data_format", "NCX")
                    .attr("weights_format", "OIX").build());
            g.add(Op.builder(3, OpKind.ReLU).input(t(12, DataType.F32, 2, 16, 9, 9)).output(t(13, DataType.F32, 2, 16, 9,
                    9)).build());
            g.add(Op.builder(4, OpKind.Quantize).input(t(13, DataType.F32, 2, 16, 9, 9)).output(t(14, DataType.U8, 2,
                    16, 9, 9)).attr("qtype", "per_tensor").attr("scales", new float[] {0.05f})
                    .attr("zps", new long[] {3}).build());
        }, 23 + groups);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals("dnnl", parts.get(0).backendId());
    }

    /** A column-major u8 src and a transposed s8 output: read and written through their strides. */
    @Test
    void stridedIntegerInputAndOutput() {
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(dequantize(0, Tensors.stored(0, DataType.U8, new long[] {6, 10}, 1, 0), t(10, DataType.F32, 6, 10),
                    new float[] {0.1f}, new long[] {9}, -1));
            g.add(dequantize(1, t(1, DataType.S8, 10, 4).withProperty(PropertyType.CONSTANT), t(11, DataType.F32, 10, 4),
                    new float[] {0.2f}, new long[] {0}, -1));
            g.add(Op.builder(2, OpKind.MatMul).inputs(t(10, DataType.F32, 6, 10), t(11, DataType.F32, 10, 4))
                    .output(t(12, DataType.F32, 6, 4)).build());
            g.add(Op.builder(3, OpKind.Quantize).input(t(12, DataType.F32, 6, 4))
                    .output(Tensors.stored(13, DataType.S8, new long[] {6, 4}, 1, 0)).attr("qtype", "per_tensor")
                    .attr("scales", new float[] {0.25f}).attr("zps", new long[] {-3}).build());
        }, 41);
        assertEquals(1, parts.size(), parts.toString());
        assertEquals("dnnl", parts.get(0).backendId());
    }

    /** A dequantized value read twice, or a float8 type, leaves the ops to the reference; DEBUG claims no pattern. */
    @Test
    void whatThePatternDoesNotCover() {
        Graph g = AgainstReference.WITH_DNNL.createGraph(io.partita.graph.EngineKind.CPU);
        build(g, 4, 8, 3, DataType.U8, DataType.S8, true, true);
        g.add(Op.builder(5, OpKind.ReLU).input(t(10, DataType.F32, 4, 8)).output(t(15, DataType.F32, 4, 8)).build());
        g.finalizeGraph();
        List<Partition> parts = g.partitions(PartitionPolicy.FUSION);
        assertTrue(parts.stream().noneMatch(p -> p.ops().stream().anyMatch(o -> o.kind() == OpKind.Dequantize)
                && p.backendId().equals("dnnl")), parts.toString());

        Graph debug = AgainstReference.WITH_DNNL.createGraph(io.partita.graph.EngineKind.CPU);
        build(debug, 4, 8, 3, DataType.U8, DataType.S8, true, true);
        debug.finalizeGraph();
        assertEquals(5, debug.partitions(PartitionPolicy.DEBUG).size());
    }
}
