package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.OnnxBytes.floatTensor;
import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.intAttr;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.model;
import static io.partita.formats.onnx.OnnxBytes.node;
import static io.partita.formats.onnx.OnnxBytes.rawTensor;
import static io.partita.formats.onnx.OnnxBytes.valueInfo;
import static io.partita.formats.onnx.internal.QuantOnnx.FLOAT;
import static io.partita.formats.onnx.internal.QuantOnnx.INT32;
import static io.partita.formats.onnx.internal.QuantOnnx.INT8;
import static io.partita.formats.onnx.internal.QuantOnnx.UINT8;
import static io.partita.formats.onnx.internal.QuantOnnx.bytes;
import static io.partita.formats.onnx.internal.QuantOnnx.kinds;
import static io.partita.formats.onnx.internal.QuantOnnx.read;
import static io.partita.formats.onnx.internal.QuantOnnx.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.graph.DataType;
import io.partita.graph.GraphRuntime;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.PropertyType;

/** The ONNX quantization ops as oneDNN quantization ops, and the values they compute on the reference backend. */
class QuantTranslatorsTest {
    private static Op op(OnnxModel m, int i) {
        return m.graph().ops().get(i);
    }

    @Test
    void quantizeLinearWithConstantScaleIsOneQuantizeRoundingHalfToEvenAndSaturating() {
        OnnxModel m = read(13, node("QuantizeLinear", List.of("x", "s", "zp"), List.of("y")),
                list(floatTensor("s", new long[] {}, 0.5f), rawTensor("zp", UINT8, new long[] {}, bytes(10))),
                list(valueInfo("x", FLOAT, 6)), valueInfo("y", UINT8, 6));
        assertEquals(List.of(OpKind.Quantize), kinds(m));
        Op q = op(m, 0);
        assertEquals("per_tensor", q.stringAttr("qtype"));
        assertArrayEquals(new float[] {0.5f}, q.floatsAttr("scales"));
        assertArrayEquals(new long[] {10}, q.longsAttr("zps"));
        assertEquals(DataType.U8, q.output(0).dataType());
        // x / 0.5 + 10: 12, 4, 410 saturates to 255, 10.5 and 11.5 round to the even 10 and 12, -20 saturates to 0.
        assertArrayEquals(new double[] {12, 4, 255, 10, 12, 0},
                run(m, Map.of("x", new double[] {1, -3, 200, 0.25, 0.75, -15})));
    }

    @Test
    void quantizeLinearWithRunTimeZeroPointTakesOnnxsStepsPerAxis() {
        OnnxModel m = read(13, node("QuantizeLinear", List.of("x", "s", "zp"), List.of("y")), list(),
                list(valueInfo("x", FLOAT, 2, 3), valueInfo("s", FLOAT, 3), valueInfo("zp", INT8, 3)),
                valueInfo("y", INT8, 2, 3));
        // the zero point may be odd: round(x / s) + zp, not oneDNN's round(x / s + zp)
        assertEquals(List.of(OpKind.DynamicDequantize, OpKind.StaticReshape, OpKind.StaticReshape, OpKind.Divide,
                OpKind.Round, OpKind.Add, OpKind.Clamp, OpKind.Quantize), kinds(m));
        // 1 / 0.5 = 2; -400 / 2 + 1 saturates; 4 / 4 + 2 = 3; 3 / 0.5 = 6; saturates; 2.5 / 4 -> 1, + 2 = 3
        assertArrayEquals(new double[] {2, -128, 3, 6, 127, 3},
                run(m, Map.of("x", new double[] {1, -400, 4, 3, 400, 2.5}, "s", new double[] {0.5, 2, 4},
                        "zp", new double[] {0, 1, 2})));
        // ties with an odd zero point: 0.5, 1.5, 2.5 round to 0, 2, 2 before the 1 is added (oneDNN: 2, 2, 4)
        assertArrayEquals(new double[] {1, 3, 3, 1, 3, 3},
                run(m, Map.of("x", new double[] {0.5, 3, 10, 0.5, 3, 10}, "s", new double[] {1, 2, 4},
                        "zp", new double[] {1, 1, 1})));
    }

    @Test
    void quantizeLinearWithAnOddConstantZeroPointRoundsBeforeAddingIt() {
        OnnxModel m = read(13, node("QuantizeLinear", List.of("x", "s", "zp"), List.of("y")),
                list(floatTensor("s", new long[] {}, 0.5f), rawTensor("zp", UINT8, new long[] {}, bytes(11))),
                list(valueInfo("x", FLOAT, 4)), valueInfo("y", UINT8, 4));
        assertEquals(List.of(OpKind.Divide, OpKind.Round, OpKind.Add, OpKind.Clamp, OpKind.Quantize), kinds(m));
        // x / 0.5 = 0.5, 1.5, 600, -30: rounded 0, 2 (even), then + 11 and saturated
        assertArrayEquals(new double[] {11, 13, 255, 0}, run(m, Map.of("x", new double[] {0.25, 0.75, 300, -15})));
    }

    @Test
    void dequantizeLinearPerAxisIsDequantizeWithAttributes() {
        OnnxModel m = read(13, node("DequantizeLinear", List.of("x", "s", "zp"), List.of("y"), intAttr("axis", -1)),
                list(floatTensor("s", new long[] {3}, 1, 2, 4), rawTensor("zp", INT8, new long[] {3}, bytes(0, -1, 1))),
                list(valueInfo("x", INT8, 2, 3)), valueInfo("y", FLOAT, 2, 3));
        assertEquals(List.of(OpKind.Dequantize), kinds(m));
        assertEquals("per_channel", op(m, 0).stringAttr("qtype"));
        assertEquals(1L, op(m, 0).longAttr("axis"));
        assertArrayEquals(new double[] {1, 6, 8, -4, -8, -28},
                run(m, Map.of("x", new double[] {1, 2, 3, -4, -5, -6})));
    }

    @Test
    void blockedDequantizeLinearIsPerGroupDynamicDequantize() {
        OnnxModel m = read(21, node("DequantizeLinear", List.of("x", "s"), List.of("y"), intAttr("axis", 1),
                intAttr("block_size", 2)), list(floatTensor("s", new long[] {2, 2}, 1, 2, 3, 4)),
                list(valueInfo("x", UINT8, 2, 4)), valueInfo("y", FLOAT, 2, 4));
        assertEquals(List.of(OpKind.DynamicDequantize), kinds(m));
        assertEquals("per_group", op(m, 0).stringAttr("qtype"));
        assertArrayEquals(new long[] {1, 2}, op(m, 0).longsAttr("group_shape"));
        assertArrayEquals(new double[] {1, 1, 2, 2, 3, 3, 4, 4}, run(m, Map.of("x", new double[] {1, 1, 1, 1, 1, 1, 1, 1})));
    }

    @Test
    void blockedQuantizeLinearIsPerGroupDynamicQuantize() {
        OnnxModel m = read(21, node("QuantizeLinear", List.of("x", "s", "zp"), List.of("y"), intAttr("axis", 0),
                intAttr("block_size", 2)), list(floatTensor("s", new long[] {1, 2}, 1, 10),
                rawTensor("zp", INT8, new long[] {1, 2}, bytes(1, -1))),
                list(valueInfo("x", FLOAT, 2, 2)), valueInfo("y", INT8, 2, 2));
        assertEquals(List.of(OpKind.DynamicQuantize), kinds(m));
        assertArrayEquals(new long[] {2, 1}, op(m, 0).longsAttr("group_shape"));
        assertArrayEquals(new double[] {6, 0, 8, 1}, run(m, Map.of("x", new double[] {5, 10, 7, 20})));
    }

    /** The chain oneDNN's int8 MatMul pattern matches, the constant weights behind their own Dequantize. */
    @Test
    void qlinearMatMulIsDequantizeMatMulQuantize() {
        OnnxModel m = read(10, node("QLinearMatMul", List.of("a", "as", "az", "b", "bs", "bz", "ys", "yz"),
                List.of("y")), list(floatTensor("as", new long[] {}, 0.5f), rawTensor("az", UINT8, new long[] {},
                bytes(128)), rawTensor("b", INT8, new long[] {2, 2}, bytes(1, 2, 3, -4)),
                floatTensor("bs", new long[] {2}, 1, 0.25f), rawTensor("bz", INT8, new long[] {2}, bytes(0, 0)),
                floatTensor("ys", new long[] {}, 2), rawTensor("yz", UINT8, new long[] {}, bytes(100))),
                list(valueInfo("a", UINT8, 1, 2)), valueInfo("y", UINT8, 1, 2));
        assertEquals(List.of(OpKind.Dequantize, OpKind.Dequantize, OpKind.MatMul, OpKind.Quantize), kinds(m));
        assertEquals(PropertyType.CONSTANT, op(m, 1).input(0).property());
        assertEquals("per_channel", op(m, 1).stringAttr("qtype"));
        // a = (130, 136) -> (1, 4); b = [[1, 0.5], [3, -1]]; a b = (13, -3.5); / 2 + 100 = 106.5 -> 106, 98.25 -> 98.
        assertArrayEquals(new double[] {106, 98}, run(m, Map.of("a", new double[] {130, 136})));
    }

    /** Weights per output channel, the int32 bias dequantized at import with x_scale * w_scale. */
    @Test
    void qlinearConvWithBias() {
        OnnxModel m = read(10, node("QLinearConv", List.of("x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"),
                List.of("y")), list(floatTensor("xs", new long[] {}, 0.5f), rawTensor("xz", UINT8, new long[] {},
                bytes(0)), rawTensor("w", INT8, new long[] {2, 1, 1, 1}, bytes(2, -1)),
                floatTensor("ws", new long[] {2}, 0.5f, 1), rawTensor("wz", INT8, new long[] {2}, bytes(0, 0)),
                floatTensor("ys", new long[] {}, 1), rawTensor("yz", UINT8, new long[] {}, bytes(10)),
                rawTensor("b", INT32, new long[] {2}, bytes(4, 0, 0, 0, 0, 0, 0, 0))),
                list(valueInfo("x", UINT8, 1, 1, 2, 2)), valueInfo("y", UINT8, 1, 2, 2, 2));
        assertEquals(List.of(OpKind.Dequantize, OpKind.Dequantize, OpKind.Convolution, OpKind.Quantize), kinds(m));
        // x = (1, 2, 3, 4); w = (1, -1); bias = (4 * 0.5 * 0.5, 0) = (1, 0); + 10.
        assertArrayEquals(new double[] {12, 13, 14, 15, 9, 8, 7, 6}, run(m, Map.of("x", new double[] {2, 4, 6, 8})));
    }

    /** 300 products of 255 * 255 (one 255 * 254) sum to the odd 19507245, beyond f32's exact integers. */
    @Test
    void matMulIntegerIsExactBeyondTwoToThe24() {
        int k = 300;
        OnnxModel m = read(10, node("MatMulInteger", List.of("a", "b"), List.of("y")), list(),
                list(valueInfo("a", UINT8, 1, k), valueInfo("b", UINT8, k, 1)), valueInfo("y", INT32, 1, 1));
        assertEquals(List.of(OpKind.Dequantize, OpKind.Dequantize, OpKind.MatMul), kinds(m));
        assertEquals(DataType.S32, op(m, 2).output(0).dataType());
        double[] a = new double[k];
        double[] b = new double[k];
        Arrays.fill(a, 255);
        Arrays.fill(b, 255);
        b[7] = 254;
        assertArrayEquals(new double[] {19507245}, run(m, Map.of("a", a, "b", b)));
    }

    @Test
    void matMulIntegerZeroPointsPerRowAndPerColumn() {
        OnnxModel m = read(10, node("MatMulInteger", List.of("a", "b", "az", "bz"), List.of("y")),
                list(rawTensor("az", INT8, new long[] {2}, bytes(1, -1)), rawTensor("bz", INT8, new long[] {2},
                        bytes(0, 2))),
                list(valueInfo("a", INT8, 2, 1), valueInfo("b", INT8, 1, 2)), valueInfo("y", INT32, 2, 2));
        // (a - az) = (2, 4); (b - bz) = (3, 1): outer product.
        assertArrayEquals(new double[] {6, 2, 12, 4}, run(m, Map.of("a", new double[] {3, 3}, "b", new double[] {3, 3})));
    }

    @Test
    void convIntegerWithPerChannelWeightZeroPoints() {
        OnnxModel m = read(10, node("ConvInteger", List.of("x", "w", "xz", "wz"), List.of("y")),
                list(rawTensor("xz", UINT8, new long[] {}, bytes(1)), rawTensor("wz", UINT8, new long[] {2},
                        bytes(0, 1))),
                list(valueInfo("x", UINT8, 1, 1, 2, 2), valueInfo("w", UINT8, 2, 1, 2, 2)),
                valueInfo("y", INT32, 1, 2, 1, 1));
        assertEquals(List.of(OpKind.Dequantize, OpKind.Dequantize, OpKind.Convolution), kinds(m));
        assertEquals(DataType.S32, op(m, 2).output(0).dataType());
        assertArrayEquals(new double[] {1 + 2 + 3 + 4, 0},
                run(m, Map.of("x", new double[] {2, 3, 4, 5}, "w", new double[] {1, 1, 1, 1, 1, 1, 1, 1})));
    }

    /** An int32 bias of a quantized model is dequantized at import: a constant, no op. */
    @Test
    void constantInt32DequantizeLinearIsFolded() {
        ByteBuffer raw = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(6).putInt(-3);
        OnnxModel m = OnnxModels.read(GraphRuntime.referenceOnly().opSchemas(), model(13, graph(
                list(node("DequantizeLinear", List.of("b", "s"), List.of("bf"), intAttr("axis", 0)),
                        node("Add", List.of("x", "bf"), List.of("y"))),
                list(rawTensor("b", INT32, new long[] {2}, raw.array()), floatTensor("s", new long[] {2}, 0.5f, 2)),
                list(valueInfo("x", FLOAT, 2)), list(valueInfo("y", FLOAT, 2)))).toByteArray(), "q.onnx");
        assertEquals(List.of(OpKind.Add), kinds(m));
        assertArrayEquals(new double[] {4, -5}, run(m, Map.of("x", new double[] {1, 1})));
    }

    /** ONNX's function: range [-3, 2] (0 included) gives scale 5 / 255 and zero point 153. */
    @Test
    void dynamicQuantizeLinearComputesScaleAndZeroPointOfTheRange() {
        OnnxModel m = read(11, node("DynamicQuantizeLinear", List.of("x"), List.of("y", "ys", "yz")), list(),
                list(valueInfo("x", FLOAT, 6)), valueInfo("y", UINT8, 6));
        assertEquals(OpKind.DynamicQuantize, kinds(m).get(kinds(m).size() - 1));
        assertArrayEquals(new double[] {153, 255, 0, 204, 173, 102},
                run(m, Map.of("x", new double[] {0, 2, -3, 1, 0.4, -1})));
    }
}
