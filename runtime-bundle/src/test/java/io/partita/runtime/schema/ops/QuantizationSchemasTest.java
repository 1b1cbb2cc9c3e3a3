package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.assertMentions;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.f32;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.rejected;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.t;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.unknown;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.testing.OpRunner;

/** Quantize, Dequantize, DynamicQuantize, DynamicDequantize schemas. */
class QuantizationSchemasTest {

    static Op.Builder quantize(DataType dst, long... dims) {
        return Op.builder(0, OpKind.Quantize).input(f32(0, dims)).output(unknown(1, dst));
    }

    static Op.Builder dequantize(DataType src, long... dims) {
        return Op.builder(0, OpKind.Dequantize).input(t(0, src, dims)).output(unknown(1, DataType.F32));
    }

    static Op dynDeq(LogicalTensor src, LogicalTensor scales, LogicalTensor zps, LogicalTensor dst, Object... attrs) {
        Op.Builder b = Op.builder(0, OpKind.DynamicDequantize).inputs(src, scales).output(dst);
        if (zps != null) {
            b.input(zps);
        }
        for (int i = 0; i < attrs.length; i += 2) {
            Object v = attrs[i + 1];
            b.attr((String) attrs[i], v instanceof String s ? AttrValue.of(s) : v instanceof Long l ? AttrValue.of(l)
                    : AttrValue.of((long[]) v));
        }
        return b.build();
    }

    // ---------------------------------------------------------------- Quantize / Dequantize

    @Test
    void staticDefaultsAreOneDnns() {
        Op v = OpSchemas.of(quantize(DataType.U8, 2).attr("scales", new float[] {1}).build())
                .validate(quantize(DataType.U8, 2).attr("scales", new float[] {1}).build());
        assertEquals("per_tensor", v.stringAttr("qtype"));
        assertEquals(1L, v.longAttr("axis"));
        assertEquals(false, v.hasAttr("zps"));
    }

    @Test
    void staticQuantizeKeepsTheSrcDims() {
        assertArrayEquals(new long[] {2, UNKNOWN_DIM}, OpRunner.inferredDims(quantize(DataType.S8, 2, UNKNOWN_DIM)
                .attr("qtype", "per_channel").attr("axis", 0L).attr("scales", new float[] {1, 2})
                .attr("zps", new long[] {0, 1}).build(), 0));
        // per_tensor ignores the axis, even out of range (as the corpus uses it).
        assertArrayEquals(new long[] {4}, OpRunner.inferredDims(quantize(DataType.S8, 4).attr("axis", 1L)
                .attr("scales", new float[] {0.2f}).attr("zps", new long[] {-4}).build(), 0));
    }

    @Test
    void staticQuantizeRejectsBadAttributes() {
        assertMentions(rejected(quantize(DataType.U8, 2).build()), "missing required attribute 'scales'", "f32[]");
        assertMentions(rejected(quantize(DataType.U8, 2).attr("scales", new float[] {1}).attr("qtype", "per_group")
                .build()), "'qtype'", "per_group", "one of [per_tensor, per_channel]");
        assertMentions(rejected(quantize(DataType.U8, 2).attr("scales", new float[] {1, 2}).build()),
                "per_tensor takes exactly 1 scale, got 2");
        assertMentions(rejected(quantize(DataType.U8, 2).attr("scales", new float[] {1})
                .attr("zps", new long[] {1, 2}).build()), "1 scales but 2 zps");
        assertMentions(rejected(quantize(DataType.F8_E4M3, 2).attr("scales", new float[] {1})
                .attr("zps", new long[] {0}).build()), "f8", "zps");
        assertMentions(rejected(quantize(DataType.U8, 2).attr("scales", new float[] {0}).build()), "'scales'",
                "non-zero");
        assertMentions(rejected(quantize(DataType.U8, 2).attr("scales", new float[0]).build()), "non-empty");
        assertMentions(rejected(quantize(DataType.S32, 2).attr("scales", new float[] {1}).build()), "s32",
                "expected one of [f8_e4m3, f8_e5m2, s16, s8, u16, u8]");
    }

    @Test
    void perChannelScalesMustMatchTheAxisDim() {
        assertMentions(rejected(quantize(DataType.U8, 2, 3).attr("qtype", "per_channel").attr("axis", 1L)
                .attr("scales", new float[] {1, 2}).build()), "needs 3 scales", "got 2");
        assertMentions(rejected(dequantize(DataType.S8, 2, 3).attr("qtype", "per_channel").attr("axis", 2L)
                .attr("scales", new float[] {1, 2}).build()), "axis 2", "out of range", "[-2, 1]");
        assertArrayEquals(new long[] {2, 3}, OpRunner.inferredDims(dequantize(DataType.S8, 2, 3)
                .attr("qtype", "per_channel").attr("axis", -2L).attr("scales", new float[] {1, 2}).build(), 0));
    }

    @Test
    void dequantizeTakesQuantizedSrcAndGivesF32() {
        assertMentions(rejected(dequantize(DataType.F32, 2).attr("scales", new float[] {1}).build()), "f32",
                "expected one of [f8_e4m3, f8_e5m2, s16, s8, u16, u8]");
        Op toBf16 = Op.builder(0, OpKind.Dequantize).input(t(0, DataType.U8, 2)).output(unknown(1, DataType.BF16))
                .attr("scales", new float[] {1}).build();
        assertMentions(rejected(toBf16), "bf16", "expected one of [f32]");
        assertMentions(rejected(dequantize(DataType.F8_E5M2, 2).attr("scales", new float[] {1})
                .attr("zps", new long[] {0}).build()), "f8", "zps");
        // A zero scale dequantizes to zeros: allowed.
        OpSchemas.find(OpKind.Dequantize).validate(dequantize(DataType.U8, 2).attr("scales", new float[] {0}).build());
    }

    // ---------------------------------------------------------------- DynamicDequantize

    @Test
    void dynamicPortsHaveQuantizationDomains() {
        assertEquals(ValueDomain.SCALE, OpSchemas.find(OpKind.DynamicDequantize).inputPort(1).domain());
        assertEquals(ValueDomain.ZERO_POINT, OpSchemas.find(OpKind.DynamicDequantize).inputPort(2).domain());
        assertEquals(ValueDomain.SCALE, OpSchemas.find(OpKind.DynamicQuantize).inputPort(1).domain());
        assertEquals(ValueDomain.ZERO_POINT, OpSchemas.find(OpKind.DynamicQuantize).inputPort(2).domain());
    }

    @Test
    void perGroupScalesFullRankOrPacked() {
        LogicalTensor src = t(0, DataType.U4, 1, 4, 8);
        assertArrayEquals(new long[] {1, 4, 8}, OpRunner.inferredDims(dynDeq(src, t(1, DataType.F16, 1, 4, 2),
                t(2, DataType.U8, 1, 4, 2), unknown(3, DataType.F16), "qtype", "per_group", "group_shape",
                new long[] {1, 1, 4}), 0));
        // Dims of 1 dropped.
        OpRunner.inferredDims(dynDeq(src, t(1, DataType.F32, 4, 2), null, unknown(3, DataType.F32), "qtype",
                "per_group", "group_shape", new long[] {1, 1, 4}), 0);
        // A single zero point for every group.
        OpRunner.inferredDims(dynDeq(src, t(1, DataType.F32, 4, 2), t(2, DataType.S4, 1), unknown(3, DataType.F32),
                "qtype", "per_group", "group_shape", new long[] {1, 1, 4}), 0);
    }

    @Test
    void perGroupMismatchesAreRefused() {
        LogicalTensor src = t(0, DataType.S4, 2, 8);
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2, 3), null, unknown(3, DataType.F32), "qtype",
                "per_group", "group_shape", new long[] {1, 3})), "group_shape [1, 3]", "does not divide", "dim 1");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2, 4), null, unknown(3, DataType.F32), "qtype",
                "per_group", "group_shape", new long[] {1, 4})), "scales", "[2,4]", "expected [2,2]");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2, 2), t(2, DataType.S4, 2, 1),
                unknown(3, DataType.F32), "qtype", "per_group", "group_shape", new long[] {1, 4})), "zps", "[2,1]",
                "single value", "[2,2]");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2, 2), null, unknown(3, DataType.F32), "qtype",
                "per_group", "group_shape", new long[] {4})), "1 entries", "rank 2");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2, 2), null, unknown(3, DataType.F32), "qtype",
                "per_group")), "per_group needs attribute 'group_shape'");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2, 2), null, unknown(3, DataType.F32), "qtype",
                "per_group", "group_shape", new long[] {0, 4})), "group sizes >= 1");
    }

    @Test
    void aGroupShapeOnlyCountsWithPerGroupOrAMask() {
        // benchdnn's cases switch grouped graphs to per_tensor / per_channel and keep group_shape:
        // sdpa-compressed-k-int8-gs32 with qtype:per_tensor, scales and zps [1].
        LogicalTensor src = t(0, DataType.S8, 1, 32, 128, 32);
        OpRunner.inferredDims(dynDeq(src, t(1, DataType.F16, 1), t(2, DataType.S8, 1), unknown(3, DataType.F16),
                "qtype", "per_tensor", "axis", 2L, "group_shape", new long[] {1, 1, 32, 1}), 0);
        // ... and with qtype:per_channel*axis:3, scales [32] and zps [1].
        OpRunner.inferredDims(dynDeq(src, t(1, DataType.F16, 32), t(2, DataType.S8, 1), unknown(3, DataType.F16),
                "qtype", "per_channel", "axis", 3L, "group_shape", new long[] {1, 1, 32, 1}), 0);
        // The groups themselves are refused there when they do not fit, under per_group they apply.
        assertMentions(rejected(dynDeq(src, t(1, DataType.F16, 32), null, unknown(3, DataType.F16), "qtype",
                "per_group", "group_shape", new long[] {1, 1, 32, 1})), "expected [1,32,4,32] or [32,4,32]");
        // With a mask (newer oneDNN) the group shape applies under per_tensor.
        OpRunner.inferredDims(dynDeq(t(0, DataType.S8, 4, 8), t(1, DataType.F32, 4, 2), null, unknown(3,
                DataType.F32), "mask", 3L, "group_shape", new long[] {1, 4}), 0);
    }

    @Test
    void unknownDimsSkipTheSizeChecks() {
        assertArrayEquals(new long[] {UNKNOWN_DIM, 8}, OpRunner.inferredDims(dynDeq(t(0, DataType.S8, UNKNOWN_DIM,
                8), t(1, DataType.F32, 7, 7), null, unknown(3, DataType.F32), "qtype", "per_group", "group_shape",
                new long[] {1, 4}), 0));
    }

    @Test
    void perChannelAndPerTensorScaleShapes() {
        LogicalTensor src = t(0, DataType.S8, 2, 3);
        OpRunner.inferredDims(dynDeq(src, t(1, DataType.F32, 3), null, unknown(3, DataType.F32), "qtype",
                "per_channel", "axis", 1L), 0);
        OpRunner.inferredDims(dynDeq(src, t(1, DataType.F32, 1, 3), null, unknown(3, DataType.F32), "qtype",
                "per_channel", "axis", -1L), 0);
        OpRunner.inferredDims(dynDeq(src, t(1, DataType.F32), null, unknown(3, DataType.F32)), 0);
        OpRunner.inferredDims(dynDeq(src, t(1, DataType.F32, 1), t(2, DataType.S8, 1), unknown(3, DataType.F32)), 0);
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2), null, unknown(3, DataType.F32), "qtype",
                "per_channel", "axis", 1L)), "[2]", "expected [1,3] or [3]");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2), null, unknown(3, DataType.F32))), "per_tensor",
                "one element");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 3), null, unknown(3, DataType.F32), "qtype",
                "per_channel", "axis", 2L)), "axis 2", "out of range");
    }

    @Test
    void maskSelectsTheScaledDims() {
        LogicalTensor src = t(0, DataType.U8, 2, 3, 4);
        OpRunner.inferredDims(dynDeq(src, t(1, DataType.F32, 2, 4), null, unknown(3, DataType.F32), "mask", 5L), 0);
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2, 3), null, unknown(3, DataType.F32), "mask", 5L)),
                "mask 5", "expected [2,1,4] or [2,4]");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2), null, unknown(3, DataType.F32), "mask", 8L)),
                "beyond", "rank 3");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2), null, unknown(3, DataType.F32), "mask", -1L)),
                "negative");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2), null, unknown(3, DataType.F32), "mask", 1L,
                "qtype", "per_channel")), "qtype must be per_tensor");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2), null, unknown(3, DataType.F32), "mask", 1L,
                "axis", 0L)), "axis must be the default 1");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 2, 3, 1), null, unknown(3, DataType.F32), "mask", 1L,
                "group_shape", new long[] {1, 1, 4})), "last two dims");
    }

    @Test
    void dynamicDequantizeTypes() {
        LogicalTensor src = t(0, DataType.S4, 4);
        assertMentions(rejected(dynDeq(t(0, DataType.F32, 4), t(1, DataType.F32, 1), null, unknown(3, DataType.F32))),
                "src", "f32", "expected one of");
        assertMentions(rejected(dynDeq(src, t(1, DataType.S8, 1), null, unknown(3, DataType.F32))), "scales", "s8");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 1), null, unknown(3, DataType.U8))), "dst", "u8");
        assertMentions(rejected(dynDeq(src, t(1, DataType.F32, 1), t(2, DataType.F32, 1), unknown(3, DataType.F32))),
                "zps", "f32");
        assertMentions(rejected(dynDeq(t(0, DataType.F8_E4M3, 4), t(1, DataType.F32, 1), t(2, DataType.S8, 1),
                unknown(3, DataType.F32))), "f8", "zero points");
        // Every combination the corpus uses.
        for (DataType[] c : new DataType[][] {{DataType.S4, DataType.BF16, DataType.S4, DataType.BF16},
                {DataType.U4, DataType.F16, DataType.U8, DataType.F16}, {DataType.S8, DataType.F16, DataType.S8,
                        DataType.F16}, {DataType.U8, DataType.F16, DataType.U8, DataType.F16}}) {
            OpRunner.inferredDims(dynDeq(t(0, c[0], 4), t(1, c[1], 1), t(2, c[2], 1), unknown(3, c[3])), 0);
        }
        OpRunner.inferredDims(dynDeq(t(0, DataType.S8, 4), t(1, DataType.F32, 1), null, unknown(3, DataType.F32)), 0);
    }

    // ---------------------------------------------------------------- DynamicQuantize

    @Test
    void dynamicQuantize() {
        Op ok = Op.builder(0, OpKind.DynamicQuantize).inputs(f32(0, 2, 64, 3, 3), f32(1, 64))
                .output(unknown(2, DataType.S8)).attr("qtype", "per_channel").attr("axis", 1L).build();
        assertArrayEquals(new long[] {2, 64, 3, 3}, OpRunner.inferredDims(ok, 0));
        // per_group is Partita's (ONNX's blocked QuantizeLinear), as DynamicDequantize's.
        Op group = Op.builder(0, OpKind.DynamicQuantize).inputs(f32(0, 2, 4), f32(1, 2, 2))
                .output(unknown(2, DataType.S8)).attr("qtype", "per_group").attr("group_shape", new long[] {1, 2})
                .build();
        assertArrayEquals(new long[] {2, 4}, OpRunner.inferredDims(group, 0));
        Op groupMismatch = Op.builder(0, OpKind.DynamicQuantize).inputs(f32(0, 2, 4), f32(1, 2, 1))
                .output(unknown(2, DataType.S8)).attr("qtype", "per_group").attr("group_shape", new long[] {1, 2})
                .build();
        assertMentions(rejected(groupMismatch), "group_shape [1, 2]", "expected [2,2]");
        Op perGroup = Op.builder(0, OpKind.DynamicQuantize).inputs(f32(0, 2, 4), f32(1, 2, 2))
                .output(unknown(2, DataType.S8)).attr("qtype", "per_group").build();
        assertMentions(rejected(perGroup), "per_group needs attribute 'group_shape'");
        Op s4 = Op.builder(0, OpKind.DynamicQuantize).inputs(f32(0, 2), f32(1, 1)).output(unknown(2, DataType.S4))
                .build();
        assertMentions(rejected(s4), "s4", "expected one of");
        Op zps = Op.builder(0, OpKind.DynamicQuantize).inputs(f32(0, 2), f32(1, 1), t(2, DataType.S4, 1))
                .output(unknown(3, DataType.S8)).build();
        assertMentions(rejected(zps), "zps", "s4", "expected one of [s16, s32, s8, u16, u8]");
        Op wrongScales = Op.builder(0, OpKind.DynamicQuantize).inputs(f32(0, 2, 3), f32(1, 2))
                .output(unknown(2, DataType.U8)).attr("qtype", "per_channel").attr("axis", 1L).build();
        assertMentions(rejected(wrongScales), "expected [1,3] or [3]");
    }
}
