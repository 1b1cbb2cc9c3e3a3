package io.partita.gpu.internal;

import static io.partita.gpu.internal.AgainstReference.constant;
import static io.partita.gpu.internal.AgainstReference.f32;
import static io.partita.gpu.internal.AgainstReference.out;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.partita.graph.DataType;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.Partition;
import io.partita.graph.PropertyType;

/** Elementwise, binary, copies, SoftMax and LayerNorm on the OpenCL device against the reference, odd sizes. */
class RowAndElementwiseAgainstReferenceTest {

    @ParameterizedTest
    @ValueSource(strings = {"ReLU", "GELU", "Sigmoid", "Tanh", "Elu", "Clamp", "Exp", "Square", "Abs", "HardSwish",
        "LeakyReLU", "Mish", "SoftPlus", "HardSigmoid", "Round", "PartitaErf", "Log", "Sqrt", "Reciprocal"})
    void unaryOps(String name) {
        OpKind kind = OpKind.valueOf(name);
        Op.Builder b = Op.builder(0, kind).input(f32(0, 3, 37, 5)).output(out(1));
        switch (kind) {
            case Elu, LeakyReLU -> b.attr("alpha", 0.3f);
            case Clamp -> b.attr("min", -0.5f).attr("max", 0.7f);
            case HardSigmoid -> b.attr("alpha", 0.2f).attr("beta", 0.5f);
            case SoftPlus -> b.attr("beta", 1.5f);
            default -> { }
        }
        AgainstReference.check(g -> g.add(b.build()), 21);
    }

    @Test
    void geluTanhMode() {
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.GELU).input(f32(0, 131)).output(out(1))
                .attr("mode", "gelu_tanh").build()), 2);
    }

    @ParameterizedTest
    @CsvSource({"Add,3:1:7,1:5:7", "Subtract,7,3:5:7", "Multiply,3:5:7,3:5:7", "Divide,3:5:1,1:1:7", "Maximum,1,9:3",
        "Minimum,2:1:3:1,5:1:4", "SquaredDifference,4:1,4:11"})
    void binaryOpsBroadcast(String name, String a, String b) {
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.valueOf(name)).inputs(f32(0, dims(a)), f32(1, dims(b)))
                .output(out(2)).build()), 4);
    }

    @ParameterizedTest
    @ValueSource(strings = {"NXC", "NCX"})
    void biasAdd(String format) {
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.BiasAdd).inputs(f32(0, 2, 5, 7, 3),
                constant(1, "NXC".equals(format) ? 3 : 5)).output(out(2)).attr("data_format", format).build()), 6);
    }

    @Test
    void elementwiseChainFusesIntoOneKernel() {
        List<Partition> parts = AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.Divide).inputs(f32(0, 1, 4, 13, 13), constant(1, 1)).output(f32(2, 1, 4, 13, 13)).build());
            g.add(Op.builder(1, OpKind.Add).inputs(f32(2, 1, 4, 13, 13), f32(3, 1, 1, 1, 13)).output(f32(4, 1, 4, 13, 13)).build());
            g.add(Op.builder(2, OpKind.Tanh).input(f32(4, 1, 4, 13, 13)).output(f32(5, 1, 4, 13, 13)).build());
        }, 8);
        assertEquals(1, parts.size());
    }

    @Test
    void transposeReshapeAndReorder() {
        AgainstReference.check(g -> {
            g.add(Op.builder(0, OpKind.StaticReshape).input(f32(0, 3, 35)).output(out(1))
                    .attr("shape", 3, 5, 7).attr("special_zero", false).build());
            g.add(Op.builder(1, OpKind.StaticTranspose).input(out(1)).output(out(2)).attr("order", 2, 0, -2).build());
        }, 3);
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Reorder)
                .input(LogicalTensor.of(0, DataType.F32, new long[] {5, 3}, LayoutType.STRIDED, new long[] {1, 5},
                        PropertyType.VARIABLE))
                .output(f32(1, 5, 3)).build()), 3);
    }

    @ParameterizedTest
    @CsvSource({"ReduceSum,1:-1,true", "ReduceMean,0,false", "ReduceMax,1,true", "ReduceMin,-1:0,false",
        "ReduceProd,2,false", "ReduceL1,0:1:2,true", "ReduceL2,1:2,false", "ReduceSum,'',false"})
    void reductions(String kind, String axes, boolean keepDims) {
        long[] a = axes.isEmpty() ? new long[0] : dims(axes);
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.valueOf(kind))
                .input(LogicalTensor.of(0, DataType.F32, new long[] {3, 7, 5}, LayoutType.STRIDED, new long[] {1, 3, 21},
                        PropertyType.VARIABLE))
                .output(out(1)).attr("axes", a).attr("keep_dims", keepDims).build()), 29);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, -1})
    void concatOfThreeInputsOneStrided(long axis) {
        long[][] shapes = {{3, 5, 7}, {3, 5, 7}, {3, 5, 7}};
        int a = (int) Math.floorMod(axis, 3L);
        shapes[1][a] = 2;
        shapes[2][a] = 9;
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.Concat)
                .inputs(f32(0, shapes[0]), LogicalTensor.of(1, DataType.F32, shapes[1], LayoutType.STRIDED,
                        strided(shapes[1]), PropertyType.VARIABLE), f32(2, shapes[2]))
                .output(out(3)).attr("axis", axis).build()), 23);
    }

    /** Column-major strides: a tensor the kernels must read through its strides. */
    private static long[] strided(long[] d) {
        long[] s = new long[d.length];
        long step = 1;
        for (int i = 0; i < d.length; i++) {
            s[i] = step;
            step *= d[i];
        }
        return s;
    }

    @ParameterizedTest
    @CsvSource({"3:17:5,-1,none", "3:17:5,1,none", "7:129,0,inf_as_zero", "1:4:13:13,3,none", "11,0,none"})
    void softMax(String d, long axis, String mode) {
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.SoftMax).input(f32(0, dims(d))).output(out(1))
                .attr("axis", axis).attr("mode", mode).build()), 17);
    }

    @Test
    void softMaxOfAStridedInput() {
        AgainstReference.check(g -> g.add(Op.builder(0, OpKind.SoftMax)
                .input(LogicalTensor.of(0, DataType.F32, new long[] {5, 9}, LayoutType.STRIDED, new long[] {1, 5},
                        PropertyType.VARIABLE))
                .output(out(1)).attr("axis", -1L).build()), 17);
    }

    @ParameterizedTest
    @CsvSource({"3:37,-1,true,true", "2:5:33,1,true,false", "2:5:33,-1,false,true", "7:1:255,2,false,false"})
    void layerNorm(String d, long begin, boolean affine, boolean stats) {
        long[] x = dims(d);
        long cols = 1;
        int b = (int) Math.floorMod(begin, (long) x.length);
        for (int i = b; i < x.length; i++) {
            cols *= x[i];
        }
        long[] norm = java.util.Arrays.copyOfRange(x, b, x.length);
        long c = cols;
        AgainstReference.check(g -> {
            Op.Builder op = Op.builder(0, OpKind.LayerNorm).input(f32(0, x)).output(out(1))
                    .attr("begin_norm_axis", begin).attr("use_affine", affine).attr("keep_stats", stats)
                    .attr("epsilon", 1e-5f);
            if (affine) {
                op.input(constant(2, norm)).input(constant(3, norm));
            }
            if (stats) {
                op.output(out(4)).output(out(5));
            }
            g.add(op.build());
        }, 31 + c);
    }

    static long[] dims(String s) {
        return java.util.Arrays.stream(s.split(":")).mapToLong(Long::parseLong).toArray();
    }
}
