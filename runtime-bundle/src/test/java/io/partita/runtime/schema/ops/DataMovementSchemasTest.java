package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.EngineKind;
import io.partita.graph.Graph;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.Port;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.testing.OpRunner;

/** Schemas of the data-movement family: attributes, types, arity, shape inference, errors. */
class DataMovementSchemasTest {

    static LogicalTensor t(long id, DataType dt, long... dims) {
        return LogicalTensor.of(id, dt, dims);
    }

    static LogicalTensor f32(long id, long... dims) {
        return t(id, DataType.F32, dims);
    }

    static LogicalTensor unknown(long id, DataType dt) {
        return LogicalTensor.unknownRank(id, dt);
    }

    /** The op must be refused when added or finalized; returns the message. */
    static String rejected(Op op) {
        Graph g = GraphRuntime.referenceOnly().createGraph(EngineKind.CPU);
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> {
            g.add(op);
            g.finalizeGraph();
        });
        assertTrue(e.getMessage().contains(op.describe()), "names the op: " + e.getMessage());
        return e.getMessage();
    }

    static void assertMentions(String message, String... parts) {
        for (String p : parts) {
            assertTrue(message.contains(p), "'" + p + "' in: " + message);
        }
    }

    static long[] dims(Op op) {
        return OpRunner.inferredDims(op, 0);
    }

    static Op reshape(LogicalTensor src, LogicalTensor dst, long[] shape, boolean specialZero) {
        return Op.builder(0, OpKind.StaticReshape).input(src).output(dst).attr("shape", shape)
                .attr("special_zero", specialZero).build();
    }

    static Op transpose(LogicalTensor src, LogicalTensor dst, long... order) {
        return Op.builder(0, OpKind.StaticTranspose).input(src).output(dst).attr("order", order).build();
    }

    // ---------------------------------------------------------------- every kind

    @Test
    void everyKindOfTheFamilyHasASchema() {
        for (OpKind k : List.of(OpKind.StaticReshape, OpKind.StaticTranspose, OpKind.DynamicReshape,
                OpKind.DynamicTranspose, OpKind.Concat, OpKind.Reorder, OpKind.TypeCast, OpKind.Quantize,
                OpKind.Dequantize, OpKind.DynamicQuantize, OpKind.DynamicDequantize, OpKind.Dropout, OpKind.GenIndex,
                OpKind.Wildcard, OpKind.End, OpKind.MatMul)) {
            assertEquals(k, OpSchemas.find(k).kind(), k.spelling());
        }
    }

    @Test
    void shapeInputsAreShapeDomainPorts() {
        Port shape = OpSchemas.find(OpKind.DynamicReshape).inputPort(1);
        assertEquals("shape", shape.name());
        assertEquals(ValueDomain.SHAPE, shape.domain());
        assertEquals(java.util.Set.of(DataType.S32, DataType.S64), shape.types());
        Port order = OpSchemas.find(OpKind.DynamicTranspose).inputPort(1);
        assertEquals("order", order.name());
        assertEquals(ValueDomain.SHAPE, order.domain());
    }

    // ---------------------------------------------------------------- StaticReshape

    @Test
    void staticReshapeInfersTheMinusOneDim() {
        assertArrayEquals(new long[] {3, 2, 4}, dims(reshape(f32(0, 2, 3, 4), unknown(1, DataType.F32),
                new long[] {3, -1, 4}, false)));
        assertArrayEquals(new long[] {24}, dims(reshape(f32(0, 2, 3, 4), unknown(1, DataType.F32),
                new long[] {-1}, false)));
    }

    @Test
    void staticReshapeSpecialZeroCopiesTheSrcDim() {
        assertArrayEquals(new long[] {2, 12}, dims(reshape(f32(0, 2, 3, 4), unknown(1, DataType.F32),
                new long[] {0, -1}, true)));
        assertArrayEquals(new long[] {2, 3, 2, 2}, dims(reshape(f32(0, 2, 3, 4), unknown(1, DataType.F32),
                new long[] {0, 0, 2, 2}, true)));
    }

    @Test
    void staticReshapeZeroWithoutSpecialZeroIsAZeroDim() {
        assertArrayEquals(new long[] {0, 5}, dims(reshape(f32(0, 0, 3), unknown(1, DataType.F32),
                new long[] {0, 5}, false)));
        String m = rejected(reshape(f32(0, 2, 3), unknown(1, DataType.F32), new long[] {0, 6}, false));
        assertMentions(m, "6 elements", "0 elements");
    }

    @Test
    void staticReshapePropagatesPlaceholders() {
        assertArrayEquals(new long[] {UNKNOWN_DIM, 3}, dims(reshape(f32(0, UNKNOWN_DIM, 3), unknown(1, DataType.F32),
                new long[] {-1, 3}, false)));
        assertArrayEquals(new long[] {DYNAMIC_DIM, 2, DYNAMIC_DIM}, dims(reshape(f32(0, DYNAMIC_DIM, 4),
                unknown(1, DataType.F32), new long[] {0, 2, -1}, true)));
        // Explicit dims stay explicit even when the src has placeholders.
        assertArrayEquals(new long[] {4, 6}, dims(reshape(f32(0, UNKNOWN_DIM, 3), unknown(1, DataType.F32),
                new long[] {4, 6}, false)));
    }

    @Test
    void staticReshapeOfUnknownRankKeepsWhatTheShapeSays() {
        assertArrayEquals(new long[] {2, 3}, dims(reshape(unknown(0, DataType.F32), unknown(1, DataType.F32),
                new long[] {2, 3}, false)));
        assertArrayEquals(new long[] {2, UNKNOWN_DIM}, dims(reshape(unknown(0, DataType.F32),
                unknown(1, DataType.F32), new long[] {2, -1}, false)));
    }

    @Test
    void staticReshapeRejectsBadShapes() {
        assertMentions(rejected(reshape(f32(0, 2, 3), f32(1, 6), new long[] {-2, 3}, false)), "'shape'", "-2");
        assertMentions(rejected(reshape(f32(0, 2, 3), f32(1, 6), new long[] {-1, -1}, false)), "at most one");
        assertMentions(rejected(reshape(f32(0, 2, 3), unknown(1, DataType.F32), new long[] {4, 2}, false)),
                "[2,3]", "6 elements", "[4,2]", "8 elements");
        assertMentions(rejected(reshape(f32(0, 2, 3), unknown(1, DataType.F32), new long[] {4, -1}, false)),
                "not a multiple of 4");
        assertMentions(rejected(reshape(f32(0, 2, 3), unknown(1, DataType.F32), new long[] {0, 0, 0}, true)),
                "index 2", "rank 2");
        assertMentions(rejected(reshape(f32(0, 2, 0), unknown(1, DataType.F32), new long[] {0, -1}, false)),
                "cannot infer its -1");
    }

    @Test
    void staticReshapeRejectsAContradictingDeclaredOutput() {
        assertMentions(rejected(reshape(f32(0, 2, 3), f32(1, 3, 3), new long[] {3, -1}, false)), "[3,3]", "[3,2]");
    }

    @Test
    void staticReshapeNeedsItsAttributes() {
        Op noShape = Op.builder(0, OpKind.StaticReshape).input(f32(0, 2)).output(f32(1, 2))
                .attr("special_zero", false).build();
        assertMentions(rejected(noShape), "missing required attribute 'shape'", "s64[]");
        Op noSpecialZero = Op.builder(0, OpKind.StaticReshape).input(f32(0, 2)).output(f32(1, 2))
                .attr("shape", new long[] {2}).build();
        assertMentions(rejected(noSpecialZero), "missing required attribute 'special_zero'", "bool");
        Op wrongType = Op.builder(0, OpKind.StaticReshape).input(f32(0, 2)).output(f32(1, 2))
                .attr("shape", 2L).attr("special_zero", false).build();
        assertMentions(rejected(wrongType), "'shape'", "s64", "expected s64[]");
    }

    @Test
    void staticReshapeKeepsTheDataType() {
        assertMentions(rejected(reshape(f32(0, 2), t(1, DataType.BF16, 2), new long[] {2}, false)), "bf16", "f32",
                "must match");
        assertMentions(rejected(reshape(t(0, DataType.S8, 2), t(1, DataType.S8, 2), new long[] {2}, false)), "s8",
                "expected one of");
    }

    // ---------------------------------------------------------------- StaticTranspose

    @Test
    void staticTransposePermutesDimsWithNegativeAxes() {
        assertArrayEquals(new long[] {4, 2, 3}, dims(transpose(f32(0, 2, 3, 4), unknown(1, DataType.F32), 2, 0, 1)));
        assertArrayEquals(new long[] {4, 2, 3}, dims(transpose(f32(0, 2, 3, 4), unknown(1, DataType.F32), -1, -3,
                -2)));
        assertArrayEquals(new long[] {4, 3, 2}, dims(transpose(f32(0, 2, 3, 4), unknown(1, DataType.F32))));
    }

    @Test
    void staticTransposeMovesPlaceholders() {
        assertArrayEquals(new long[] {UNKNOWN_DIM, DYNAMIC_DIM, 3}, dims(transpose(f32(0, DYNAMIC_DIM, 3,
                UNKNOWN_DIM), unknown(1, DataType.F32), 2, 0, 1)));
        assertNull(dims(transpose(unknown(0, DataType.F32), unknown(1, DataType.F32), 1, 0)));
    }

    @Test
    void staticTransposeRejectsBadOrders() {
        assertMentions(rejected(transpose(f32(0, 2, 3), unknown(1, DataType.F32), 0, 1, 2)), "3 entries", "rank 2");
        assertMentions(rejected(transpose(f32(0, 2, 3), unknown(1, DataType.F32), 0, 2)), "axis 2 out of range",
                "[-2, 1]");
        assertMentions(rejected(transpose(f32(0, 2, 3), unknown(1, DataType.F32), 1, -1)), "twice");
        Op noOrder = Op.builder(0, OpKind.StaticTranspose).input(f32(0, 2)).output(f32(1, 2)).build();
        assertMentions(rejected(noOrder), "missing required attribute 'order'");
        assertMentions(rejected(transpose(f32(0, 2, 3), f32(1, 2, 3), 1, 0)), "[2,3]", "[3,2]");
    }

    // ---------------------------------------------------------------- DynamicReshape / DynamicTranspose

    static Op dynReshape(LogicalTensor src, LogicalTensor shape, LogicalTensor dst, boolean specialZero) {
        return Op.builder(0, OpKind.DynamicReshape).inputs(src, shape).output(dst).attr("special_zero", specialZero)
                .build();
    }

    static Op dynTranspose(LogicalTensor src, LogicalTensor order, LogicalTensor dst) {
        return Op.builder(0, OpKind.DynamicTranspose).inputs(src, order).output(dst).build();
    }

    static List<LogicalTensor> infer(Op op, Map<Long, long[]> values) {
        return OpSchemas.of(op).inferOutputs(OpSchemas.of(op).validate(op), op.inputs(), values);
    }

    @Test
    void dynamicReshapeWithoutValuesHasTheShapeLengthAsRank() {
        assertArrayEquals(new long[] {DYNAMIC_DIM, DYNAMIC_DIM, DYNAMIC_DIM},
                dims(dynReshape(f32(0, 2, 3), t(1, DataType.S64, 3), unknown(2, DataType.F32), false)));
        // A declared concrete output stays dynamic: its dims are only known at execution.
        assertArrayEquals(new long[] {DYNAMIC_DIM, DYNAMIC_DIM},
                dims(dynReshape(f32(0, 2, 3), t(1, DataType.S32, 2), f32(2, 3, 2), false)));
        // Length of the shape tensor unknown: nothing to infer, the declaration stays.
        assertNull(dims(dynReshape(f32(0, 2, 3), t(1, DataType.S32, UNKNOWN_DIM), unknown(2, DataType.F32), false)));
        assertNull(dims(dynReshape(f32(0, 2, 3), unknown(1, DataType.S32), unknown(2, DataType.F32), false)));
    }

    @Test
    void dynamicReshapeWithValuesInfersLikeStaticReshape() {
        Op op = dynReshape(f32(0, 2, 3, 4), t(1, DataType.S64, 2), unknown(2, DataType.F32), true);
        assertArrayEquals(new long[] {2, 12}, infer(op, Map.of(1L, new long[] {0, -1})).get(0).dims());
        Op plain = dynReshape(f32(0, 2, 3, 4), t(1, DataType.S64, 3), unknown(2, DataType.F32), false);
        assertArrayEquals(new long[] {4, 3, 2}, infer(plain, Map.of(1L, new long[] {4, 3, 2})).get(0).dims());
        InvalidGraphException e = assertThrows(InvalidGraphException.class,
                () -> infer(plain, Map.of(1L, new long[] {4, 3, 3})));
        assertMentions(e.getMessage(), "op 0 (DynamicReshape)", "24 elements", "36 elements", "shape input");
        InvalidGraphException neg = assertThrows(InvalidGraphException.class,
                () -> infer(plain, Map.of(1L, new long[] {-1, -1, 24})));
        assertMentions(neg.getMessage(), "at most one");
    }

    @Test
    void dynamicReshapeRejectsBadShapeInputs() {
        assertMentions(rejected(dynReshape(f32(0, 2, 3), t(1, DataType.S64, 1, 2), unknown(2, DataType.F32), false)),
                "rank 2", "expected rank 1");
        assertMentions(rejected(dynReshape(f32(0, 2, 3), t(1, DataType.F32, 2), unknown(2, DataType.F32), false)),
                "shape", "f32", "expected one of [s32, s64]");
        Op noAttr = Op.builder(0, OpKind.DynamicReshape).inputs(f32(0, 2), t(1, DataType.S32, 1))
                .output(f32(2, 2)).build();
        assertMentions(rejected(noAttr), "missing required attribute 'special_zero'");
    }

    /** Found by the formats fuzzer: the output rank was allocated from the declared length, 2^31 overflowed. */
    @Test
    void dynamicReshapeRefusesAShapeInputTooLongToBeARank() {
        for (long length : new long[] {1L << 31, 1L << 40, DataMovementSchemas.MAX_RESHAPE_RANK + 1}) {
            InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> dims(dynReshape(f32(0, 2, 3),
                    t(1, DataType.S64, length), unknown(2, DataType.F32), false)));
            assertMentions(e.getMessage(), "op 0 (DynamicReshape)", "shape input (tensor 1) has " + length + " values",
                    "at most 1024");
        }
        assertEquals(DataMovementSchemas.MAX_RESHAPE_RANK, dims(dynReshape(f32(0, 2, 3),
                t(1, DataType.S64, DataMovementSchemas.MAX_RESHAPE_RANK), unknown(2, DataType.F32), false)).length);
    }

    @Test
    void dynamicTransposeWithAndWithoutValues() {
        Op op = dynTranspose(f32(0, 2, 3, 4), t(1, DataType.S32, 3), unknown(2, DataType.F32));
        assertArrayEquals(new long[] {DYNAMIC_DIM, DYNAMIC_DIM, DYNAMIC_DIM}, dims(op));
        assertArrayEquals(new long[] {4, 2, 3}, infer(op, Map.of(1L, new long[] {2, 0, 1})).get(0).dims());
        assertArrayEquals(new long[] {4, 2, 3}, infer(op, Map.of(1L, new long[] {-1, 0, -2})).get(0).dims());
        // Equal dims: every permutation gives the same dims.
        assertArrayEquals(new long[] {5, 5}, dims(dynTranspose(f32(0, 5, 5), t(1, DataType.S64, 2),
                unknown(2, DataType.F32))));
        InvalidGraphException dup = assertThrows(InvalidGraphException.class,
                () -> infer(op, Map.of(1L, new long[] {0, 0, 1})));
        assertMentions(dup.getMessage(), "op 0 (DynamicTranspose)", "twice");
        assertMentions(rejected(dynTranspose(f32(0, 2, 3), t(1, DataType.S32, 3), unknown(2, DataType.F32))),
                "3 entries", "rank 2");
    }

    // ---------------------------------------------------------------- Concat

    static Op concat(long axis, LogicalTensor dst, LogicalTensor... srcs) {
        return Op.builder(0, OpKind.Concat).inputs(srcs).output(dst).attr("axis", axis).build();
    }

    @Test
    void concatSumsTheAxisDim() {
        assertArrayEquals(new long[] {2, 6}, dims(concat(1, unknown(9, DataType.F32), f32(0, 2, 1), f32(1, 2, 2),
                f32(2, 2, 3))));
        assertArrayEquals(new long[] {5, 3}, dims(concat(-2, unknown(9, DataType.F32), f32(0, 2, 3), f32(1, 3, 3))));
        assertArrayEquals(new long[] {2, 3}, dims(concat(0, unknown(9, DataType.F32), f32(0, 2, 3))));
    }

    @Test
    void concatPropagatesPlaceholders() {
        assertArrayEquals(new long[] {2, DYNAMIC_DIM}, dims(concat(1, unknown(9, DataType.F32), f32(0, 2,
                DYNAMIC_DIM), f32(1, 2, 3))));
        // A known non-axis dim fills in an unknown one.
        assertArrayEquals(new long[] {2, 6}, dims(concat(1, unknown(9, DataType.F32), f32(0, UNKNOWN_DIM, 3),
                f32(1, 2, 3))));
        assertArrayEquals(new long[] {UNKNOWN_DIM, 3}, dims(concat(0, unknown(9, DataType.F32), f32(0, UNKNOWN_DIM,
                3), f32(1, 2, 3))));
        assertArrayEquals(new long[] {2, UNKNOWN_DIM}, dims(concat(1, unknown(9, DataType.F32), unknown(0,
                DataType.F32), f32(1, 2, 3))));
    }

    @Test
    void concatRejectsMismatches() {
        assertMentions(rejected(concat(1, unknown(9, DataType.F32), f32(0, 2, 3), f32(1, 2, 3, 1))), "rank 3",
                "rank 2", "same rank");
        assertMentions(rejected(concat(1, unknown(9, DataType.F32), f32(0, 2, 3), f32(1, 4, 3))), "differ at dim 0",
                "axis 1");
        assertMentions(rejected(concat(2, unknown(9, DataType.F32), f32(0, 2, 3), f32(1, 2, 3))), "axis 2",
                "out of range", "[-2, 1]");
        assertMentions(rejected(concat(0, unknown(9, DataType.F32), f32(0, 2), t(1, DataType.BF16, 2))), "bf16",
                "must match");
        assertMentions(rejected(concat(0, f32(9, 5), f32(0, 2), f32(1, 2))), "[5]", "[4]");
        Op noAxis = Op.builder(0, OpKind.Concat).inputs(f32(0, 2)).output(f32(1, 2)).build();
        assertMentions(rejected(noAxis), "missing required attribute 'axis'");
        Op none = Op.builder(0, OpKind.Concat).output(f32(1, 2)).attr("axis", 0L).build();
        assertMentions(rejected(none), "has 0 inputs", "at least 1");
    }

    @Test
    void concatTakesAtMost64Inputs() {
        List<LogicalTensor> ins = new ArrayList<>();
        for (int i = 0; i < 65; i++) {
            ins.add(f32(i, 1));
        }
        assertMentions(rejected(concat(0, unknown(99, DataType.F32), ins.toArray(LogicalTensor[]::new))),
                "65 inputs", "at most 64");
        assertArrayEquals(new long[] {64}, dims(concat(0, unknown(99, DataType.F32),
                ins.subList(0, 64).toArray(LogicalTensor[]::new))));
    }

    // ---------------------------------------------------------------- Reorder, TypeCast

    @Test
    void reorderKeepsDimsAndType() {
        Op op = Op.builder(0, OpKind.Reorder).input(t(0, DataType.BF16, 2, DYNAMIC_DIM))
                .output(unknown(1, DataType.BF16)).build();
        assertArrayEquals(new long[] {2, DYNAMIC_DIM}, dims(op));
        Op cast = Op.builder(0, OpKind.Reorder).input(f32(0, 2)).output(t(1, DataType.BF16, 2)).build();
        assertMentions(rejected(cast), "must match");
    }

    static Op typeCast(DataType from, DataType to) {
        return Op.builder(0, OpKind.TypeCast).input(t(0, from, 2, 3)).output(unknown(1, to)).build();
    }

    @Test
    void typeCastConvertsBetweenDifferentFloatTypes() {
        assertArrayEquals(new long[] {2, 3}, dims(typeCast(DataType.F32, DataType.BF16)));
        assertArrayEquals(new long[] {2, 3}, dims(typeCast(DataType.F16, DataType.F32)));
        assertMentions(rejected(typeCast(DataType.F32, DataType.F32)), "both f32", "different data types");
        assertMentions(rejected(typeCast(DataType.BF16, DataType.F16)), "bf16 -> f16", "not supported");
        assertMentions(rejected(typeCast(DataType.F32, DataType.S8)), "s8", "expected one of");
    }

    // ---------------------------------------------------------------- GenIndex, Dropout

    static Op genIndex(long axis, LogicalTensor src, LogicalTensor dst) {
        return Op.builder(0, OpKind.GenIndex).input(src).output(dst).attr("axis", axis).build();
    }

    @Test
    void genIndexGivesS32OfTheSrcDims() {
        assertArrayEquals(new long[] {2, UNKNOWN_DIM}, dims(genIndex(-1, f32(0, 2, UNKNOWN_DIM),
                unknown(1, DataType.S32))));
        assertMentions(rejected(genIndex(2, f32(0, 2, 3), unknown(1, DataType.S32))), "axis 2", "out of range",
                "[-2, 1]");
        assertMentions(rejected(genIndex(0, f32(0, 2, 3), unknown(1, DataType.F32))), "f32", "expected one of [s32]");
        Op noAxis = Op.builder(0, OpKind.GenIndex).input(f32(0, 2)).output(t(1, DataType.S32, 2)).build();
        assertMentions(rejected(noAxis), "missing required attribute 'axis'");
    }

    static Op dropout(LogicalTensor seed, LogicalTensor... outs) {
        return Op.builder(0, OpKind.Dropout).inputs(f32(0, 2, 3), seed, t(2, DataType.S64), t(3, DataType.F32))
                .outputs(outs).build();
    }

    @Test
    void dropoutTakesScalarSeedOffsetProbability() {
        Op op = dropout(t(1, DataType.S64), unknown(4, DataType.F32), unknown(5, DataType.U8));
        assertArrayEquals(new long[] {2, 3}, OpRunner.inferredDims(op, 0));
        assertArrayEquals(new long[] {2, 3}, OpRunner.inferredDims(op, 1));
        assertMentions(rejected(dropout(t(1, DataType.S64, 2), unknown(4, DataType.F32))), "seed", "[2]",
                "single value");
        assertMentions(rejected(dropout(t(1, DataType.S32), unknown(4, DataType.F32))), "seed", "s32",
                "expected one of [s64]");
        assertMentions(rejected(dropout(t(1, DataType.S64), unknown(4, DataType.F32), unknown(5, DataType.F32))),
                "mask", "expected one of [u8]");
        assertEquals(ValueDomain.SCALE, OpSchemas.find(OpKind.Dropout).inputPort(3).domain());
    }

    // ---------------------------------------------------------------- Wildcard, End

    @Test
    void wildcardAcceptsAnyTypesAndCounts() {
        OpSchemaImpl s = OpSchemas.find(OpKind.Wildcard);
        s.validate(Op.builder(0, OpKind.Wildcard).build());
        s.validate(Op.builder(0, OpKind.Wildcard).inputs(t(0, DataType.S8, 2), t(1, DataType.BOOLEAN),
                f32(2, UNKNOWN_DIM)).outputs(t(3, DataType.U4, 7), t(4, DataType.S64)).build());
        Op.Builder many = Op.builder(0, OpKind.Wildcard);
        for (int i = 0; i <= DataMovementSchemas.WILDCARD_PORTS; i++) {
            many.input(f32(i, 1));
        }
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> s.validate(many.build()));
        assertMentions(e.getMessage(), "op 0 (Wildcard)", "33 inputs");
    }

    @Test
    void endTakesOneInputOfAnyType() {
        OpSchemaImpl s = OpSchemas.find(OpKind.End);
        s.validate(Op.builder(0, OpKind.End).input(t(0, DataType.S8, 2)).build());
        InvalidGraphException e = assertThrows(InvalidGraphException.class,
                () -> s.validate(Op.builder(0, OpKind.End).input(f32(0, 2)).output(f32(1, 2)).build()));
        assertMentions(e.getMessage(), "op 0 (End)", "1 outputs", "expected 0");
    }
}
