package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;

import io.partita.backend.reference.RefOps;
import io.partita.graph.AttrType;
import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.AttrSpec;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.registry.OpSchemas;

class EltwiseSchemasTest {
    static final List<OpKind> FORWARD = List.of(OpKind.Abs, OpKind.Clamp, OpKind.Elu, OpKind.Exp, OpKind.GELU,
            OpKind.HardSigmoid, OpKind.HardSwish, OpKind.LeakyReLU, OpKind.Log, OpKind.Mish, OpKind.Reciprocal,
            OpKind.ReLU, OpKind.Round, OpKind.Sigmoid, OpKind.SoftPlus, OpKind.Sqrt, OpKind.Square, OpKind.Tanh);
    static final List<OpKind> BACKWARD = List.of(OpKind.AbsBackward, OpKind.ClampBackward, OpKind.EluBackward,
            OpKind.GELUBackward, OpKind.HardSigmoidBackward, OpKind.HardSwishBackward, OpKind.MishBackward,
            OpKind.ReLUBackward, OpKind.SigmoidBackward, OpKind.SoftPlusBackward, OpKind.SqrtBackward,
            OpKind.TanhBackward);
    static final List<OpKind> USE_DST = List.of(OpKind.ClampBackward, OpKind.EluBackward, OpKind.ReLUBackward,
            OpKind.SigmoidBackward, OpKind.SqrtBackward, OpKind.TanhBackward);

    /** oneDNN's attributes per kind: "name:type:required|default". */
    static final Map<OpKind, String> ATTRS = Map.ofEntries(
            Map.entry(OpKind.Clamp, "max:f32:required min:f32:required"),
            Map.entry(OpKind.ClampBackward, "max:f32:required min:f32:required use_dst:bool:true"),
            Map.entry(OpKind.Elu, "alpha:f32:required"),
            Map.entry(OpKind.EluBackward, "alpha:f32:required use_dst:bool:true"),
            Map.entry(OpKind.GELU, "mode:string:gelu_erf"),
            Map.entry(OpKind.GELUBackward, "mode:string:gelu_erf"),
            Map.entry(OpKind.HardSigmoid, "alpha:f32:required beta:f32:required"),
            Map.entry(OpKind.HardSigmoidBackward, "alpha:f32:required beta:f32:required"),
            Map.entry(OpKind.LeakyReLU, "alpha:f32:required"),
            Map.entry(OpKind.ReLUBackward, "use_dst:bool:true"),
            Map.entry(OpKind.SigmoidBackward, "use_dst:bool:true"),
            Map.entry(OpKind.SoftPlus, "beta:f32:1.0"),
            Map.entry(OpKind.SoftPlusBackward, "beta:f32:1.0"),
            Map.entry(OpKind.SqrtBackward, "use_dst:bool:true"),
            Map.entry(OpKind.TanhBackward, "use_dst:bool:true"));

    // ---------------------------------------------------------------- helpers

    private static LogicalTensor t(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    private static Op fwdOp(OpKind kind, UnaryOperator<Op.Builder> attrs, LogicalTensor in, LogicalTensor out) {
        return attrs.apply(Op.builder(0, kind).input(in).output(out)).build();
    }

    private static Op bwdOp(OpKind kind, UnaryOperator<Op.Builder> attrs, LogicalTensor a, LogicalTensor b,
            LogicalTensor out) {
        return attrs.apply(Op.builder(0, kind).inputs(a, b).output(out)).build();
    }

    /** Validates and infers: the output dims (null when left unknown). */
    private static long[] infer(Op op) {
        OpSchemaImpl s = OpSchemas.find(op.kind());
        Op v = s.validate(op);
        return s.inferOutputs(v, v.inputs(), Map.of()).get(0).dims();
    }

    private static void assertRejected(Op op, String... expectedParts) {
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> infer(op));
        String m = e.getMessage();
        assertTrue(m.contains("op 0 (" + op.kind().spelling() + ")"), "names the op: " + m);
        for (String part : expectedParts) {
            assertTrue(m.contains(part), "message mentions '" + part + "': " + m);
        }
    }

    /** Required attributes of a kind, with valid values. */
    private static Op.Builder withRequired(Op.Builder b, OpKind kind) {
        String a = ATTRS.getOrDefault(kind, "");
        if (a.contains("min:")) {
            b.attr("min", -1f).attr("max", 1f);
        }
        if (a.contains("alpha:")) {
            b.attr("alpha", 0.5f);
        }
        if (a.contains("beta:f32:required")) {
            b.attr("beta", 0.5f);
        }
        return b;
    }

    // ---------------------------------------------------------------- registration

    @Test
    void everyKindHasASchemaAndAKernel() {
        assertEquals(30, FORWARD.size() + BACKWARD.size());
        for (OpKind k : FORWARD) {
            OpSchemaImpl s = OpSchemas.find(k);
            assertNotNull(s, k + " schema");
            assertNotNull(RefOps.find(k), k + " kernel");
            assertEquals(List.of("src"), s.inputs().stream().map(p -> p.name()).toList(), k + " inputs");
            assertEquals(List.of("dst"), s.outputs().stream().map(p -> p.name()).toList(), k + " outputs");
        }
        for (OpKind k : BACKWARD) {
            OpSchemaImpl s = OpSchemas.find(k);
            assertNotNull(s, k + " schema");
            assertNotNull(RefOps.find(k), k + " kernel");
            String in0 = USE_DST.contains(k) ? "src/dst" : "src";
            assertEquals(List.of(in0, "diff_dst"), s.inputs().stream().map(p -> p.name()).toList(), k + " inputs");
            assertEquals(List.of("diff_src"), s.outputs().stream().map(p -> p.name()).toList(), k + " outputs");
        }
    }

    @Test
    void attributesAreExactlyOneDnns() {
        for (OpKind k : concat()) {
            Map<String, String> actual = new TreeMap<>();
            for (AttrSpec a : OpSchemas.find(k).attrs().values()) {
                String def = a.required() ? "required" : describe(a.defaultValue());
                actual.put(a.name(), a.name() + ":" + a.type() + ":" + def);
            }
            assertEquals(ATTRS.getOrDefault(k, ""), String.join(" ", actual.values()), k + " attributes");
        }
    }

    private static String describe(AttrValue v) {
        return switch (v.type()) {
            case BOOL -> Boolean.toString(v.asBool());
            case F32 -> Float.toString(v.asFloat());
            case STRING -> v.asString();
            default -> v.toString();
        };
    }

    private static List<OpKind> concat() {
        return java.util.stream.Stream.concat(FORWARD.stream(), BACKWARD.stream()).toList();
    }

    @Test
    void dataTypesAreF32Bf16F16AndValueDomainsFitTheMath() {
        for (OpKind k : concat()) {
            OpSchemaImpl s = OpSchemas.find(k);
            for (var p : s.inputs()) {
                assertEquals(OpSchemaImpl.FLOATS, p.types(), k + " " + p.name());
            }
            ValueDomain expected = switch (k) {
                case Log, Sqrt, SqrtBackward -> ValueDomain.POSITIVE;
                case Reciprocal -> ValueDomain.NON_ZERO;
                default -> ValueDomain.ANY;
            };
            assertEquals(expected, s.inputs().get(0).domain(), k + " input 0 domain");
            if (s.inputs().size() > 1) {
                assertEquals(ValueDomain.ANY, s.inputs().get(1).domain(), k + " diff_dst domain");
            }
        }
    }

    @Test
    void defaultsAreFilledIn() {
        OpSchemaImpl relu = OpSchemas.find(OpKind.ReLUBackward);
        Op v = relu.validate(bwdOp(OpKind.ReLUBackward, b -> b, t(0, 2), t(1, 2), t(2, 2)));
        assertTrue(v.boolAttr("use_dst"));
        Op g = OpSchemas.find(OpKind.GELU).validate(fwdOp(OpKind.GELU, b -> b, t(0, 2), t(1, 2)));
        assertEquals("gelu_erf", g.stringAttr("mode"));
        Op sp = OpSchemas.find(OpKind.SoftPlusBackward)
                .validate(bwdOp(OpKind.SoftPlusBackward, b -> b, t(0, 2), t(1, 2), t(2, 2)));
        assertEquals(1f, sp.floatAttr("beta"));
    }

    // ---------------------------------------------------------------- shape inference

    @Test
    void forwardKeepsDimsAndPlaceholders() {
        long[] dims = {2, UNKNOWN_DIM, DYNAMIC_DIM, 5};
        for (OpKind k : FORWARD) {
            Op op = fwdOp(k, b -> withRequired(b, k), t(0, dims), LogicalTensor.unknownRank(1, DataType.F32));
            assertArrayEquals(dims, infer(op), k.toString());
        }
        // a declared output fills nothing in for an unknown input dim but must agree with known ones
        assertArrayEquals(new long[] {2, 3}, infer(fwdOp(OpKind.Exp, b -> b, t(0, 2, UNKNOWN_DIM), t(1, 2, 3))));
        assertRejected(fwdOp(OpKind.Tanh, b -> b, t(0, 2, 4), t(1, 2, 3)), "declared", "dim 1");
    }

    @Test
    void forwardWithUnknownRankLeavesTheOutputUnknown() {
        Op op = fwdOp(OpKind.Sigmoid, b -> b, LogicalTensor.unknownRank(0, DataType.F32),
                LogicalTensor.unknownRank(1, DataType.F32));
        assertNull(infer(op));
    }

    @Test
    void backwardMergesSrcAndDiffDst() {
        for (OpKind k : BACKWARD) {
            Op op = bwdOp(k, b -> withRequired(b, k), t(0, 2, UNKNOWN_DIM, DYNAMIC_DIM, UNKNOWN_DIM, 7),
                    t(1, 2, 3, 4, DYNAMIC_DIM, UNKNOWN_DIM), LogicalTensor.unknownRank(2, DataType.F32));
            // unknown on input 0 is taken from diff_dst; dynamic on input 0 stays dynamic
            assertArrayEquals(new long[] {2, 3, DYNAMIC_DIM, DYNAMIC_DIM, 7}, infer(op), k.toString());
        }
    }

    @Test
    void backwardWithOneUnknownRankUsesTheOther() {
        LogicalTensor unknown = LogicalTensor.unknownRank(0, DataType.F32);
        assertArrayEquals(new long[] {3, 5}, infer(bwdOp(OpKind.TanhBackward, b -> b, unknown, t(1, 3, 5),
                LogicalTensor.unknownRank(2, DataType.F32))));
        assertArrayEquals(new long[] {3, 5}, infer(bwdOp(OpKind.TanhBackward, b -> b, t(0, 3, 5),
                LogicalTensor.unknownRank(1, DataType.F32), LogicalTensor.unknownRank(2, DataType.F32))));
        assertNull(infer(bwdOp(OpKind.TanhBackward, b -> b, unknown, LogicalTensor.unknownRank(1, DataType.F32),
                LogicalTensor.unknownRank(2, DataType.F32))));
    }

    @Test
    void backwardRejectsDiffDstOfOtherDims() {
        assertRejected(bwdOp(OpKind.ReLUBackward, b -> b.attr("use_dst", false), t(0, 2, 3), t(1, 2, 4), t(2, 2, 3)),
                "input 0 (src) [2,3]", "diff_dst", "[2,4]", "same dims", "dim 1");
        assertRejected(bwdOp(OpKind.SigmoidBackward, b -> b, t(0, 2, 3), t(1, 2, 3, 1), t(2, 2, 3)),
                "input 0 (dst)", "same dims", "ranks differ");
        assertRejected(bwdOp(OpKind.GELUBackward, b -> b, t(0, 4), t(1, 4), t(2, 5)), "declared", "dim 0");
    }

    // ---------------------------------------------------------------- bad ops

    @Test
    void missingRequiredAttributes() {
        assertRejected(fwdOp(OpKind.Clamp, b -> b.attr("min", 0f), t(0, 2), t(1, 2)),
                "missing required attribute 'max'");
        assertRejected(bwdOp(OpKind.ClampBackward, b -> b.attr("max", 0f), t(0, 2), t(1, 2), t(2, 2)),
                "missing required attribute 'min'");
        assertRejected(fwdOp(OpKind.Elu, b -> b, t(0, 2), t(1, 2)), "missing required attribute 'alpha'");
        assertRejected(bwdOp(OpKind.EluBackward, b -> b.attr("use_dst", false), t(0, 2), t(1, 2), t(2, 2)),
                "missing required attribute 'alpha'");
        assertRejected(fwdOp(OpKind.LeakyReLU, b -> b, t(0, 2), t(1, 2)), "missing required attribute 'alpha'");
        assertRejected(fwdOp(OpKind.HardSigmoid, b -> b.attr("alpha", 1f), t(0, 2), t(1, 2)),
                "missing required attribute 'beta'");
        assertRejected(bwdOp(OpKind.HardSigmoidBackward, b -> b.attr("beta", 1f), t(0, 2), t(1, 2), t(2, 2)),
                "missing required attribute 'alpha'");
    }

    @Test
    void invalidAttributeValues() {
        assertRejected(fwdOp(OpKind.GELU, b -> b.attr("mode", "tanh"), t(0, 2), t(1, 2)), "'mode'",
                "[gelu_erf, gelu_tanh]");
        assertRejected(bwdOp(OpKind.GELUBackward, b -> b.attr("mode", "erf"), t(0, 2), t(1, 2), t(2, 2)), "'mode'",
                "[gelu_erf, gelu_tanh]");
        assertRejected(fwdOp(OpKind.Elu, b -> b.attr("alpha", -1f), t(0, 2), t(1, 2)), "'alpha'", "non-negative");
        assertRejected(bwdOp(OpKind.EluBackward, b -> b.attr("alpha", Float.NaN), t(0, 2), t(1, 2), t(2, 2)),
                "'alpha'", "non-negative");
        assertRejected(fwdOp(OpKind.SoftPlus, b -> b.attr("beta", 0f), t(0, 2), t(1, 2)), "'beta'", "non-zero");
        assertRejected(bwdOp(OpKind.SoftPlusBackward, b -> b.attr("beta", 0f), t(0, 2), t(1, 2), t(2, 2)), "'beta'",
                "non-zero");
        assertRejected(fwdOp(OpKind.Clamp, b -> b.attr("min", 2f).attr("max", 1f), t(0, 2), t(1, 2)),
                "'min' = 2.0", "'max' = 1.0", "must not be greater");
        assertRejected(bwdOp(OpKind.ClampBackward, b -> b.attr("min", 2f).attr("max", 1f), t(0, 2), t(1, 2),
                t(2, 2)), "must not be greater");
    }

    @Test
    void attributesTheKindDoesNotTake() {
        assertRejected(fwdOp(OpKind.ReLU, b -> b.attr("alpha", 0.1f), t(0, 2), t(1, 2)), "unknown attribute 'alpha'",
                "no attributes");
        assertRejected(bwdOp(OpKind.AbsBackward, b -> b.attr("use_dst", false), t(0, 2), t(1, 2), t(2, 2)),
                "unknown attribute 'use_dst'");
        assertRejected(fwdOp(OpKind.GELU, b -> b.attr("approximate", "tanh"), t(0, 2), t(1, 2)),
                "unknown attribute 'approximate'", "[mode]");
        assertRejected(fwdOp(OpKind.HardSwish, b -> b.attr("alpha", 0.2f), t(0, 2), t(1, 2)),
                "unknown attribute 'alpha'");
    }

    @Test
    void attributesOfTheWrongType() {
        assertRejected(bwdOp(OpKind.TanhBackward, b -> b.attr("use_dst", 1L), t(0, 2), t(1, 2), t(2, 2)),
                "'use_dst'", "expected " + AttrType.BOOL);
        assertRejected(fwdOp(OpKind.LeakyReLU, b -> b.attr("alpha", "0.1"), t(0, 2), t(1, 2)), "'alpha'",
                "expected " + AttrType.F32);
    }

    @Test
    void dataTypes() {
        for (DataType dt : List.of(DataType.F32, DataType.BF16, DataType.F16)) {
            Op op = bwdOp(OpKind.MishBackward, b -> b, LogicalTensor.of(0, dt, 3), LogicalTensor.of(1, dt, 3),
                    LogicalTensor.of(2, dt, 3));
            assertArrayEquals(new long[] {3}, infer(op), dt.toString());
        }
        assertRejected(fwdOp(OpKind.Exp, b -> b, LogicalTensor.of(0, DataType.S8, 2), LogicalTensor.of(1, DataType.S8,
                2)), "data type", "expected one of");
        assertRejected(fwdOp(OpKind.Round, b -> b, t(0, 2), LogicalTensor.of(1, DataType.BF16, 2)), "must match");
        assertRejected(bwdOp(OpKind.SqrtBackward, b -> b, t(0, 2), LogicalTensor.of(1, DataType.BF16, 2), t(2, 2)),
                "diff_dst", "must match");
    }

    @Test
    void arity() {
        assertRejected(Op.builder(0, OpKind.HardSwishBackward).input(t(0, 2)).output(t(1, 2)).build(),
                "has 1 inputs, expected 2", "src, diff_dst");
        assertRejected(Op.builder(0, OpKind.Abs).inputs(t(0, 2), t(1, 2)).output(t(2, 2)).build(),
                "has 2 inputs, expected 1");
        assertRejected(Op.builder(0, OpKind.Square).input(t(0, 2)).build(), "has 0 outputs, expected 1");
    }

    @Test
    void acceptedAttributeValues() {
        // the corpus and the harness: Clamp min = max = 0, Elu alpha = 0, SoftPlus beta = -1,
        // HardSigmoid alpha = 0 beta = 1, LeakyReLU negative alpha
        assertFalse(infer(fwdOp(OpKind.Clamp, b -> b.attr("min", 0f).attr("max", 0f), t(0, 2), t(1, 2))) == null);
        infer(fwdOp(OpKind.Elu, b -> b.attr("alpha", 0f), t(0, 2), t(1, 2)));
        infer(bwdOp(OpKind.SoftPlusBackward, b -> b.attr("beta", -1f), t(0, 2), t(1, 2), t(2, 2)));
        infer(fwdOp(OpKind.HardSigmoid, b -> b.attr("alpha", 0f).attr("beta", 1f), t(0, 2), t(1, 2)));
        infer(fwdOp(OpKind.LeakyReLU, b -> b.attr("alpha", -0.5f), t(0, 2), t(1, 2)));
        infer(fwdOp(OpKind.GELU, b -> b.attr("mode", "gelu_tanh"), t(0, 2), t(1, 2)));
    }
}
