package io.partita.formats.onnx.internal;

import static io.partita.formats.onnx.OnnxBytes.floatTensor;
import static io.partita.formats.onnx.OnnxBytes.intAttr;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.node;
import static io.partita.formats.onnx.OnnxBytes.rawTensor;
import static io.partita.formats.onnx.OnnxBytes.valueInfo;
import static io.partita.formats.onnx.internal.QuantOnnx.FLOAT;
import static io.partita.formats.onnx.internal.QuantOnnx.FLOAT16;
import static io.partita.formats.onnx.internal.QuantOnnx.INT32;
import static io.partita.formats.onnx.internal.QuantOnnx.INT8;
import static io.partita.formats.onnx.internal.QuantOnnx.UINT8;
import static io.partita.formats.onnx.internal.QuantOnnx.bytes;
import static io.partita.formats.onnx.internal.QuantOnnx.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.formats.onnx.OnnxBytes;
import io.partita.formats.onnx.OnnxImportException;
import io.partita.formats.onnx.UnsupportedOnnxException;

/**
 * Scales and zero points that do not fit their tensor are refused naming node, op, version and what
 * was expected; forms oneDNN's quantization cannot express exactly are refused as unsupported.
 */
class QuantizationTest {
    private static final String Q = "q.onnx: node 'quantizelinear_node' (QuantizeLinear): ";
    private static final String DQ = "q.onnx: node 'dequantizelinear_node' (DequantizeLinear): ";

    private static OnnxBytes quantize(OnnxBytes... attrs) {
        return node("QuantizeLinear", List.of("x", "s", "zp"), List.of("y"), attrs);
    }

    private static String invalidQuantize(int opset, long[] xDims, OnnxBytes scale, OnnxBytes zp, OnnxBytes... attrs) {
        return refused(OnnxImportException.class, opset, quantize(attrs), list(scale, zp),
                list(valueInfo("x", FLOAT, xDims)), valueInfo("y", UINT8, xDims));
    }

    @Test
    void zeroPointDimsMustBeTheScaleDims() {
        assertEquals(Q + "version 13: y_zero_point has dims [2] but y_scale has [3]; expected the same dims",
                invalidQuantize(13, new long[] {2, 3}, floatTensor("s", new long[] {3}, 1, 1, 1),
                        rawTensor("zp", UINT8, new long[] {2}, bytes(0, 0))));
    }

    @Test
    void perAxisScaleNeedsOneValuePerIndexOfTheAxis() {
        assertEquals(Q + "version 13: y_scale has 2 values but axis 1 of the input [2,3] has 3; expected one per index",
                invalidQuantize(13, new long[] {2, 3}, floatTensor("s", new long[] {2}, 1, 1),
                        rawTensor("zp", UINT8, new long[] {2}, bytes(0, 0))));
    }

    @Test
    void perAxisScaleIsRefusedBeforeVersion13() {
        assertEquals(Q + "version 10: y_scale has dims [3]; expected a single value (per tensor)",
                invalidQuantize(10, new long[] {2, 3}, floatTensor("s", new long[] {3}, 1, 1, 1),
                        rawTensor("zp", UINT8, new long[] {3}, bytes(0, 0, 0))));
    }

    @Test
    void aScaleOfTheInputsRankNeedsBlockSize() {
        assertEquals(Q + "version 21: y_scale has dims [2,3]; expected a single value (per tensor) or 1-D (per axis; "
                + "a blocked scale needs block_size)",
                invalidQuantize(21, new long[] {2, 3}, floatTensor("s", new long[] {2, 3}, 1, 1, 1, 1, 1, 1),
                        rawTensor("zp", UINT8, new long[] {2, 3}, bytes(0, 0, 0, 0, 0, 0))));
    }

    @Test
    void blockedScaleNeedsCeilOfDimOverBlockAlongTheAxis() {
        assertEquals(Q + "version 21: y_scale has dims [2,3]; input dims [2,4] in blocks of 2 along axis 1 need 2 "
                + "at dim 1",
                invalidQuantize(21, new long[] {2, 4}, floatTensor("s", new long[] {2, 3}, 1, 1, 1, 1, 1, 1),
                        rawTensor("zp", UINT8, new long[] {2, 3}, bytes(0, 0, 0, 0, 0, 0)), intAttr("block_size", 2)));
    }

    @Test
    void negativeBlockSizeIsInvalid() {
        assertEquals(Q + "version 21: block_size -2 is negative; expected 0 (not blocked) or a block length",
                invalidQuantize(21, new long[] {2, 4}, floatTensor("s", new long[] {2, 2}, 1, 1, 1, 1),
                        rawTensor("zp", UINT8, new long[] {2, 2}, bytes(0, 0, 0, 0)), intAttr("block_size", -2)));
    }

    /** ONNX allows a shorter last block; oneDNN's groups must divide the dim. */
    @Test
    void blockSizeThatDoesNotDivideTheAxisIsUnsupported() {
        assertEquals("unsupported ONNX op QuantizeLinear (opset 21) at node 'quantizelinear_node': version 21: "
                + "block_size 2 does not divide dim 5 of axis 1 (a shorter last block is not supported)",
                refused(UnsupportedOnnxException.class, 21, quantize(intAttr("block_size", 2)),
                        list(floatTensor("s", new long[] {2, 3}, 1, 1, 1, 1, 1, 1),
                                rawTensor("zp", UINT8, new long[] {2, 3}, bytes(0, 0, 0, 0, 0, 0))),
                        list(valueInfo("x", FLOAT, 2, 5)), valueInfo("y", UINT8, 2, 5)));
    }

    @Test
    void outputDtypeMustBeTheZeroPointType() {
        assertEquals(Q + "version 21: output_dtype INT8 differs from y_zero_point's type u8; expected the same type",
                invalidQuantize(21, new long[] {2}, floatTensor("s", new long[] {}, 1),
                        rawTensor("zp", UINT8, new long[] {}, bytes(0)), intAttr("output_dtype", INT8)));
    }

    @Test
    void aNonFloatScaleOrPrecisionIsUnsupported() {
        assertEquals("unsupported ONNX op QuantizeLinear (opset 19) at node 'quantizelinear_node': version 19: "
                + "y_scale of type f16: ONNX divides in the scale's type, oneDNN's quantization in f32",
                refused(UnsupportedOnnxException.class, 19, quantize(),
                        list(rawTensor("s", FLOAT16, new long[] {}, bytes(0, 0x3c)),
                                rawTensor("zp", UINT8, new long[] {}, bytes(0))),
                        list(valueInfo("x", FLOAT, 2)), valueInfo("y", UINT8, 2)));
        assertEquals("unsupported ONNX op QuantizeLinear (opset 23) at node 'quantizelinear_node': version 23: "
                + "precision FLOAT16: oneDNN's quantization divides in f32",
                refused(UnsupportedOnnxException.class, 23, quantize(intAttr("precision", FLOAT16)),
                        list(floatTensor("s", new long[] {}, 1), rawTensor("zp", UINT8, new long[] {}, bytes(0))),
                        list(valueInfo("x", FLOAT, 2)), valueInfo("y", UINT8, 2)));
    }

    @Test
    void dequantizeZeroPointMustHaveTheInputsType() {
        assertEquals(DQ + "version 13: x_zero_point is s8 but the quantized type is u8; expected the same type",
                refused(OnnxImportException.class, 13, node("DequantizeLinear", List.of("x", "s", "zp"), List.of("y")),
                        list(floatTensor("s", new long[] {}, 1), rawTensor("zp", INT8, new long[] {}, bytes(0))),
                        list(valueInfo("x", UINT8, 2)), valueInfo("y", FLOAT, 2)));
    }

    @Test
    void runTimeInt32DequantizeIsUnsupported() {
        assertEquals("unsupported ONNX op DequantizeLinear (opset 13) at node 'dequantizelinear_node': version 13: "
                + "int32 x known only at execution (oneDNN dequantizes 8-bit and 4-bit types); a constant one is "
                + "computed at import",
                refused(UnsupportedOnnxException.class, 13, node("DequantizeLinear", List.of("x", "s"), List.of("y")),
                        list(floatTensor("s", new long[] {}, 1)), list(valueInfo("x", INT32, 2)),
                        valueInfo("y", FLOAT, 2)));
    }

    @Test
    void float8ZeroPointOtherThanZeroIsUnsupported() {
        int float8e4m3 = 17;
        assertEquals("unsupported ONNX op DequantizeLinear (opset 19) at node 'dequantizelinear_node': version 19: "
                + "x_zero_point other than a constant 0 with f8_e4m3 (oneDNN quantizes float8 without zero points)",
                refused(UnsupportedOnnxException.class, 19,
                        node("DequantizeLinear", List.of("x", "s", "zp"), List.of("y")),
                        list(floatTensor("s", new long[] {}, 1), rawTensor("zp", float8e4m3, new long[] {}, bytes(0x38))),
                        list(valueInfo("x", float8e4m3, 2)), valueInfo("y", FLOAT, 2)));
    }

    @Test
    void qlinearConvBiasNeedsConstantScales() {
        String m = refused(UnsupportedOnnxException.class, 10,
                node("QLinearConv", List.of("x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"), List.of("y")),
                list(rawTensor("xz", UINT8, new long[] {}, bytes(0)), rawTensor("w", INT8, new long[] {1, 1, 1, 1},
                        bytes(1)), floatTensor("ws", new long[] {}, 1), rawTensor("wz", INT8, new long[] {}, bytes(0)),
                        floatTensor("ys", new long[] {}, 1), rawTensor("yz", UINT8, new long[] {}, bytes(0)),
                        rawTensor("b", INT32, new long[] {1}, bytes(1, 0, 0, 0))),
                list(valueInfo("x", UINT8, 1, 1, 2, 2), valueInfo("xs", FLOAT)), valueInfo("y", UINT8, 1, 1, 2, 2));
        assertEquals("unsupported ONNX op QLinearConv (opset 10) at node 'qlinearconv_node': version 10: bias B with B, "
                + "x_scale or w_scale known only at execution (B is dequantized at import)", m);
    }
}
