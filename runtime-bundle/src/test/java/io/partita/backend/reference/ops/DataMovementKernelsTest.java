package io.partita.backend.reference.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.backend.reference.RefOps;
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
import io.partita.graph.UnsupportedFeatureException;
import io.partita.testing.OpRunner;

/** Reference kernels of the data-movement family on small hand-checked inputs. */
class DataMovementKernelsTest {

    static LogicalTensor t(long id, DataType dt, long... dims) {
        return LogicalTensor.of(id, dt, dims);
    }

    static LogicalTensor f32(long id, long... dims) {
        return t(id, DataType.F32, dims);
    }

    static LogicalTensor out(long id, DataType dt) {
        return LogicalTensor.unknownRank(id, dt);
    }

    /** 0, 1, 2, ... n-1. */
    static double[] iota(int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = i;
        }
        return v;
    }

    /** Values 100a + 10b + c for a [d0, d1, d2] tensor, so an element names its own index. */
    static double[] indexed(int d0, int d1, int d2) {
        double[] v = new double[d0 * d1 * d2];
        for (int a = 0; a < d0; a++) {
            for (int b = 0; b < d1; b++) {
                for (int c = 0; c < d2; c++) {
                    v[(a * d1 + b) * d2 + c] = 100 * a + 10 * b + c;
                }
            }
        }
        return v;
    }

    @Test
    void everyKindButWildcardHasAReferenceKernel() {
        for (OpKind k : List.of(OpKind.StaticReshape, OpKind.StaticTranspose, OpKind.DynamicReshape,
                OpKind.DynamicTranspose, OpKind.Concat, OpKind.Reorder, OpKind.TypeCast, OpKind.Quantize,
                OpKind.Dequantize, OpKind.DynamicQuantize, OpKind.DynamicDequantize, OpKind.Dropout, OpKind.GenIndex,
                OpKind.End, OpKind.MatMul)) {
            assertTrue(RefOps.find(k) != null, k.spelling());
        }
        assertEquals(null, RefOps.find(OpKind.Wildcard));
    }

    // ---------------------------------------------------------------- reshape, reorder, cast

    @Test
    void staticReshapeKeepsRowMajorOrder() {
        Op op = Op.builder(0, OpKind.StaticReshape).input(f32(0, 2, 3, 4)).output(out(1, DataType.F32))
                .attr("shape", new long[] {0, -1, 2}).attr("special_zero", true).build();
        assertArrayEquals(new long[] {2, 6, 2}, OpRunner.inferredDims(op, 0));
        assertArrayEquals(iota(24), OpRunner.run(op, iota(24)).get(0));
    }

    @Test
    void reorderCopies() {
        Op op = Op.builder(0, OpKind.Reorder).input(t(0, DataType.BF16, 3, 1)).output(out(1, DataType.BF16)).build();
        assertArrayEquals(new double[] {1.5, -2, 0.25}, OpRunner.run(op, new double[] {1.5, -2, 0.25}).get(0));
    }

    @Test
    void typeCastRoundsHalfToEvenInTheDstType() {
        Op toBf16 = Op.builder(0, OpKind.TypeCast).input(f32(0, 4)).output(out(1, DataType.BF16)).build();
        // bf16 keeps 7 fraction bits: 1 + 2^-8 is a tie -> 1 (even); 1 + 3 * 2^-8 -> 1 + 2^-6 (even).
        double[] x = {1 + Math.scalb(1.0, -8), 1 + 3 * Math.scalb(1.0, -8), -2.5, 3};
        assertArrayEquals(new double[] {1, 1 + Math.scalb(1.0, -6), -2.5, 3}, OpRunner.run(toBf16, x).get(0));
        Op toF32 = Op.builder(0, OpKind.TypeCast).input(t(0, DataType.F16, 2)).output(out(1, DataType.F32)).build();
        assertArrayEquals(new double[] {0.099975586, 65504}, OpRunner.run(toF32, new double[] {0.1, 65504}).get(0),
                1e-9);
    }

    // ---------------------------------------------------------------- transpose

    static Op transpose(long[] dims, long... order) {
        return Op.builder(0, OpKind.StaticTranspose).input(f32(0, dims)).output(out(1, DataType.F32))
                .attr("order", order).build();
    }

    @Test
    void transpose2d() {
        Op op = transpose(new long[] {2, 3}, 1, 0);
        assertArrayEquals(new double[] {0, 3, 1, 4, 2, 5}, OpRunner.run(op, iota(6)).get(0));
    }

    @Test
    void transpose3dWithNegativeOrder() {
        // order [-1, 0, 1] = [2, 0, 1]: out[c][a][b] = src[a][b][c].
        Op op = transpose(new long[] {2, 3, 4}, -1, 0, 1);
        assertArrayEquals(new long[] {4, 2, 3}, OpRunner.inferredDims(op, 0));
        double[] y = OpRunner.run(op, indexed(2, 3, 4)).get(0);
        for (int c = 0; c < 4; c++) {
            for (int a = 0; a < 2; a++) {
                for (int b = 0; b < 3; b++) {
                    assertEquals(100 * a + 10 * b + c, y[(c * 2 + a) * 3 + b]);
                }
            }
        }
    }

    @Test
    void emptyOrderReversesTheAxes() {
        Op op = transpose(new long[] {2, 3, 4});
        double[] y = OpRunner.run(op, indexed(2, 3, 4)).get(0);
        assertArrayEquals(new long[] {4, 3, 2}, OpRunner.inferredDims(op, 0));
        assertEquals(123, y[(3 * 3 + 2) * 2 + 1]);
        assertEquals(10, y[(0 * 3 + 1) * 2 + 0]);
    }

    @Test
    void transposeSwappingTheMiddleAxesOfA4dTensor() {
        // The MHA pattern: [b, h, s, d] -> [b, s, h, d].
        Op op = Op.builder(0, OpKind.StaticTranspose).input(f32(0, 1, 2, 3, 2)).output(out(1, DataType.F32))
                .attr("order", new long[] {0, 2, 1, 3}).build();
        double[] y = OpRunner.run(op, iota(12)).get(0);
        // src index (h, s, d) = 6h + 2s + d lands at out (s, h, d) = 4s + 2h + d.
        assertArrayEquals(new double[] {0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}, y);
    }

    // ---------------------------------------------------------------- concat

    @Test
    void concatAlongTheLastAxis() {
        Op op = Op.builder(0, OpKind.Concat).inputs(f32(0, 2, 1), f32(1, 2, 2)).output(out(2, DataType.F32))
                .attr("axis", -1L).build();
        assertArrayEquals(new double[] {1, 3, 4, 2, 5, 6},
                OpRunner.run(op, new double[] {1, 2}, new double[] {3, 4, 5, 6}).get(0));
    }

    @Test
    void concatOfThreeAlongTheFirstAxis() {
        Op op = Op.builder(0, OpKind.Concat).inputs(f32(0, 1, 2), f32(1, 2, 2), f32(2, 1, 2))
                .output(out(3, DataType.F32)).attr("axis", 0L).build();
        assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6, 7, 8}, OpRunner.run(op, new double[] {1, 2},
                new double[] {3, 4, 5, 6}, new double[] {7, 8}).get(0));
    }

    @Test
    void concatInTheMiddleWithAnEmptyInput() {
        // [2, 1, 2] + [2, 0, 2] + [2, 2, 2] along axis 1 -> [2, 3, 2].
        Op op = Op.builder(0, OpKind.Concat).inputs(f32(0, 2, 1, 2), f32(1, 2, 0, 2), f32(2, 2, 2, 2))
                .output(out(3, DataType.F32)).attr("axis", 1L).build();
        assertArrayEquals(new long[] {2, 3, 2}, OpRunner.inferredDims(op, 0));
        double[] y = OpRunner.run(op, new double[] {1, 2, 3, 4}, new double[0],
                new double[] {10, 11, 12, 13, 14, 15, 16, 17}).get(0);
        assertArrayEquals(new double[] {1, 2, 10, 11, 12, 13, 3, 4, 14, 15, 16, 17}, y);
    }

    // ---------------------------------------------------------------- GenIndex

    static Op genIndex(long axis, long... dims) {
        return Op.builder(0, OpKind.GenIndex).input(f32(0, dims)).output(out(1, DataType.S32)).attr("axis", axis)
                .build();
    }

    @Test
    void genIndexNumbersAlongTheAxis() {
        double[] x = new double[6];
        assertArrayEquals(new double[] {0, 1, 2, 0, 1, 2}, OpRunner.run(genIndex(1, 2, 3), x).get(0));
        assertArrayEquals(new double[] {0, 0, 0, 1, 1, 1}, OpRunner.run(genIndex(-2, 2, 3), x).get(0));
        assertArrayEquals(new double[] {0, 0, 1, 1, 0, 0, 1, 1}, OpRunner.run(genIndex(1, 2, 2, 2), new double[8])
                .get(0));
        Op bf16 = Op.builder(0, OpKind.GenIndex).input(t(0, DataType.BF16, 3)).output(out(1, DataType.S32))
                .attr("axis", 0L).build();
        assertArrayEquals(new double[] {0, 1, 2}, OpRunner.run(bf16, new double[3]).get(0));
    }

    // ---------------------------------------------------------------- Dropout

    static Op dropout(int n, boolean mask) {
        Op.Builder b = Op.builder(0, OpKind.Dropout).inputs(f32(0, n), t(1, DataType.S64), t(2, DataType.S64),
                t(3, DataType.F32)).output(out(4, DataType.F32));
        if (mask) {
            b.output(out(5, DataType.U8));
        }
        return b.build();
    }

    static List<double[]> runDropout(double[] x, long seed, long offset, double p) {
        return OpRunner.run(dropout(x.length, true), x, new double[] {seed}, new double[] {offset}, new double[] {p});
    }

    @Test
    void dropoutZeroAndOneProbabilities() {
        double[] x = {1, -2, 3, 4.5};
        List<double[]> keepAll = runDropout(x, 7, 0, 0);
        assertArrayEquals(x, keepAll.get(0));
        assertArrayEquals(new double[] {1, 1, 1, 1}, keepAll.get(1));
        List<double[]> dropAll = runDropout(x, 7, 0, 1);
        assertArrayEquals(new double[4], dropAll.get(0));
        assertArrayEquals(new double[4], dropAll.get(1));
    }

    @Test
    void dropoutScalesKeptElementsAndFollowsTheMask() {
        int n = 4096;
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = 1 + (i % 7) * 0.25;
        }
        List<double[]> r = runDropout(x, 42, 3, 0.25);
        int kept = 0;
        for (int i = 0; i < n; i++) {
            double m = r.get(1)[i];
            assertTrue(m == 0 || m == 1);
            assertEquals(m == 1 ? x[i] / 0.75 : 0, r.get(0)[i], 1e-6);
            kept += (int) m;
        }
        // Kept with probability 0.75: 3072 expected, standard deviation about 28.
        assertTrue(kept > 2900 && kept < 3250, "kept " + kept);
    }

    @Test
    void dropoutIsDeterministicPerSeedAndOffset() {
        double[] x = new double[256];
        java.util.Arrays.fill(x, 1);
        double[] a = runDropout(x, 5, 0, 0.5).get(1);
        assertArrayEquals(a, runDropout(x, 5, 0, 0.5).get(1));
        assertFalse(java.util.Arrays.equals(a, runDropout(x, 6, 0, 0.5).get(1)), "another seed, another mask");
        double[] b = runDropout(x, 5, 1, 0.5).get(1);
        assertFalse(java.util.Arrays.equals(a, b), "another offset, another mask");
        // Offsets are separate streams, not shifted copies of one stream.
        assertFalse(java.util.Arrays.equals(java.util.Arrays.copyOfRange(a, 1, 256),
                java.util.Arrays.copyOfRange(b, 0, 255)));
        // Without the mask output the dst is the same.
        double[] dst = OpRunner.run(dropout(256, false), x, new double[] {5}, new double[] {0}, new double[] {0.5})
                .get(0);
        for (int i = 0; i < 256; i++) {
            assertEquals(a[i] * 2, dst[i]);
        }
    }

    @Test
    void dropoutRefusesAProbabilityOutsideZeroOne() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> runDropout(new double[] {1, 2}, 1, 0, 1.5));
        assertTrue(e.getMessage().contains("op 0 (Dropout)") && e.getMessage().contains("[0, 1]"), e.getMessage());
    }

    @Test
    void uniformValuesStayInsideTheOpenInterval() {
        long s = DataMovementKernels.streamKey(0, 0);
        double min = 1;
        double max = 0;
        for (int i = 0; i < 100_000; i++) {
            double u = DataMovementKernels.uniform(s, i);
            min = Math.min(min, u);
            max = Math.max(max, u);
        }
        assertTrue(min > 0 && min < 1e-3 && max < 1 && max > 1 - 1e-3, min + " " + max);
    }

    // ---------------------------------------------------------------- Wildcard

    @Test
    void wildcardIsRefusedByTheReferenceBackendByName() {
        Op op = Op.builder(3, OpKind.Wildcard).name("framework_op").input(f32(0, 2)).output(f32(1, 2)).build();
        UnsupportedFeatureException e = assertThrows(UnsupportedFeatureException.class,
                () -> OpRunner.run(op, new double[] {1, 2}));
        assertTrue(e.getMessage().contains("op 3 (Wildcard \"framework_op\")")
                && e.getMessage().contains("no reference implementation"), e.getMessage());
    }

    // ---------------------------------------------------------------- dynamic shapes at execution

    /** Runs a single-op graph through CompiledGraph (which allocates outputs of dynamic dims). */
    static Tensor runDynamic(Op op, Map<Long, double[]> inputs, Arena arena) {
        GraphRuntime rt = GraphRuntime.referenceOnly();
        Graph g = rt.createGraph(EngineKind.CPU);
        g.add(op);
        g.finalizeGraph();
        Engine e = Engine.cpu();
        CompiledGraph cg = rt.compile(g, PartitionPolicy.FUSION, e);
        Map<Long, Tensor> in = new java.util.HashMap<>();
        for (LogicalTensor lt : g.inputs()) {
            Tensor tensor = Tensor.allocate(lt, e, arena);
            tensor.copyFrom(inputs.get(lt.id()));
            in.put(lt.id(), tensor);
        }
        return cg.execute(new Stream(e), in).get(op.output(0).id());
    }

    @Test
    void dynamicReshapeTakesItsDimsFromTheShapeValues() {
        Op op = Op.builder(0, OpKind.DynamicReshape).inputs(f32(0, 2, 3, 2), t(1, DataType.S32, 2))
                .output(out(2, DataType.F32)).attr("special_zero", true).build();
        try (Arena arena = Arena.ofConfined()) {
            Tensor y = runDynamic(op, Map.of(0L, iota(12), 1L, new double[] {0, -1}), arena);
            assertArrayEquals(new long[] {2, 6}, y.logicalTensor().dims());
            assertArrayEquals(iota(12), y.toDoubleArray());
            Tensor z = runDynamic(op, Map.of(0L, iota(12), 1L, new double[] {4, 3}), arena);
            assertArrayEquals(new long[] {4, 3}, z.logicalTensor().dims());
        }
    }

    @Test
    void dynamicReshapeRefusesAShapeOfAnotherVolumeAtExecution() {
        Op op = Op.builder(0, OpKind.DynamicReshape).inputs(f32(0, 2, 3), t(1, DataType.S64, 2))
                .output(out(2, DataType.F32)).attr("special_zero", false).build();
        try (Arena arena = Arena.ofConfined()) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> runDynamic(op, Map.of(0L, iota(6), 1L, new double[] {4, 2}), arena));
            assertTrue(e.getMessage().contains("op 0 (DynamicReshape)") && e.getMessage().contains("8 elements"),
                    e.getMessage());
        }
    }

    @Test
    void dynamicTransposeTakesItsOrderFromTheValues() {
        Op op = Op.builder(0, OpKind.DynamicTranspose).inputs(f32(0, 2, 3, 4), t(1, DataType.S64, 3))
                .output(out(2, DataType.F32)).build();
        try (Arena arena = Arena.ofConfined()) {
            Tensor y = runDynamic(op, Map.of(0L, indexed(2, 3, 4), 1L, new double[] {1, -1, 0}), arena);
            assertArrayEquals(new long[] {3, 4, 2}, y.logicalTensor().dims());
            double[] v = y.toDoubleArray();
            for (int b = 0; b < 3; b++) {
                for (int c = 0; c < 4; c++) {
                    for (int a = 0; a < 2; a++) {
                        assertEquals(100 * a + 10 * b + c, v[(b * 4 + c) * 2 + a]);
                    }
                }
            }
        }
    }
}
