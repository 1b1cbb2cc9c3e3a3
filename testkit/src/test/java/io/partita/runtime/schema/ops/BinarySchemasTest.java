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

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import io.partita.formats.json.GraphJson;
import io.partita.graph.AttrValue;
import io.partita.graph.DataType;
import io.partita.graph.GraphDescription;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.Port;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.testing.Corpus;

/** Attributes, data types, shape inference and errors of the binary family's schemas. */
class BinarySchemasTest {
    private static final long U = UNKNOWN_DIM;
    private static final long D = DYNAMIC_DIM;

    static final Set<OpKind> FAMILY = EnumSet.of(OpKind.Add, OpKind.Subtract, OpKind.Multiply, OpKind.Divide,
            OpKind.Maximum, OpKind.Minimum, OpKind.SquaredDifference, OpKind.Pow, OpKind.GreaterEqual, OpKind.Select,
            OpKind.BiasAdd, OpKind.BiasAddBackward, OpKind.PReLU, OpKind.PReLUBackward);

    private static final OpKind[] ARITHMETIC = {OpKind.Add, OpKind.Subtract, OpKind.Multiply, OpKind.Divide,
        OpKind.Maximum, OpKind.Minimum, OpKind.SquaredDifference};

    private static LogicalTensor t(long id, DataType dt, long... dims) {
        return LogicalTensor.of(id, dt, dims);
    }

    private static LogicalTensor f32(long id, long... dims) {
        return t(id, DataType.F32, dims);
    }

    private static LogicalTensor unknownRank(long id) {
        return LogicalTensor.unknownRank(id, DataType.F32);
    }

    /** Validates the op and infers its outputs; returns each output's dims (null: unknown rank). */
    private static List<long[]> infer(Op op) {
        OpSchemaImpl s = OpSchemas.of(op);
        Op v = s.validate(op);
        List<long[]> dims = new ArrayList<>();
        for (LogicalTensor lt : s.inferOutputs(v, v.inputs(), Map.of())) {
            dims.add(lt.dims());
        }
        return dims;
    }

    private static long[] infer0(Op op) {
        return infer(op).get(0);
    }

    /** Asserts the op is rejected with a message naming it and containing every expected part. */
    private static void rejects(Op op, String... parts) {
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> infer(op));
        assertTrue(e.getMessage().startsWith("op " + op.id() + " (" + op.kind().spelling()),
                "names the op: " + e.getMessage());
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "message contains '" + p + "': " + e.getMessage());
        }
    }

    private static Op binary(OpKind kind, LogicalTensor a, LogicalTensor b, LogicalTensor dst) {
        return Op.builder(7, kind).inputs(a, b).output(dst).build();
    }

    private static Op binary(OpKind kind, LogicalTensor a, LogicalTensor b, LogicalTensor dst, String mode) {
        return Op.builder(7, kind).inputs(a, b).output(dst).attr("auto_broadcast", mode).build();
    }

    // ---- registration and attributes --------------------------------------------------------

    @Test
    void everyKindOfTheFamilyHasASchema() {
        for (OpKind k : FAMILY) {
            assertNotNull(OpSchemas.find(k), k.spelling());
        }
    }

    @Test
    void portNamesFollowOneDnn() {
        assertEquals(List.of("src_0", "src_1"), names(OpSchemas.find(OpKind.Divide).inputs()));
        assertEquals(List.of("cond", "src_0", "src_1"), names(OpSchemas.find(OpKind.Select).inputs()));
        assertEquals(List.of("src", "bias"), names(OpSchemas.find(OpKind.BiasAdd).inputs()));
        assertEquals(List.of("diff_bias"), names(OpSchemas.find(OpKind.BiasAddBackward).outputs()));
        assertEquals(List.of("src", "slope", "diff_dst"), names(OpSchemas.find(OpKind.PReLUBackward).inputs()));
        assertEquals(List.of("diff_src", "diff_slope"), names(OpSchemas.find(OpKind.PReLUBackward).outputs()));
        assertEquals(List.of("src"), names(OpSchemas.find(OpKind.Pow).inputs()));
    }

    private static List<String> names(List<io.partita.graph.OpSchema.Port> ports) {
        return ports.stream().map(io.partita.graph.OpSchema.Port::name).toList();
    }

    @Test
    void valueDomainsKeepRandomInputsMeaningful() {
        assertEquals(io.partita.graph.OpSchema.ValueDomain.NON_ZERO,
                OpSchemas.find(OpKind.Divide).inputs().get(1).domain());
        assertEquals(io.partita.graph.OpSchema.ValueDomain.POSITIVE, OpSchemas.find(OpKind.Pow).inputs().get(0).domain());
        assertEquals(io.partita.graph.OpSchema.ValueDomain.BOOLEAN,
                OpSchemas.find(OpKind.Select).inputs().get(0).domain());
    }

    @Test
    void defaultsAreFilledIn() {
        for (OpKind k : ARITHMETIC) {
            Op v = OpSchemas.find(k).validate(binary(k, f32(0, 2), f32(1, 2), f32(2, 2)));
            assertEquals(AttrValue.of("numpy"), v.attr("auto_broadcast").orElseThrow(), k.spelling());
        }
        Op prelu = OpSchemas.find(OpKind.PReLU)
                .validate(Op.builder(1, OpKind.PReLU).inputs(f32(0, 2, 3), f32(1, 3)).output(f32(2, 2, 3)).build());
        assertEquals("NXC", prelu.stringAttr("data_format"));
        assertTrue(prelu.boolAttr("per_channel_broadcast"));
        Op bias = OpSchemas.find(OpKind.BiasAdd)
                .validate(Op.builder(1, OpKind.BiasAdd).inputs(f32(0, 2, 3), f32(1, 3)).output(f32(2, 2, 3)).build());
        assertEquals("NXC", bias.stringAttr("data_format"));
    }

    @Test
    void autoBroadcastMustBeNoneOrNumpy() {
        rejects(binary(OpKind.Multiply, f32(0, 2), f32(1, 2), f32(2, 2), "bidirectional"), "auto_broadcast",
                "one of [none, numpy]");
        rejects(Op.builder(7, OpKind.Select).inputs(t(0, DataType.BOOLEAN, 2), f32(1, 2), f32(2, 2))
                .output(f32(3, 2)).attr("auto_broadcast", "NUMPY").build(), "auto_broadcast", "one of [none, numpy]");
    }

    @Test
    void dataFormatMustBeNcxOrNxc() {
        rejects(Op.builder(7, OpKind.BiasAdd).inputs(f32(0, 2, 3), f32(1, 3)).output(f32(2, 2, 3))
                .attr("data_format", "NCHW").build(), "data_format", "one of [NCX, NXC]");
        rejects(Op.builder(7, OpKind.PReLU).inputs(f32(0, 2, 3), f32(1, 3)).output(f32(2, 2, 3))
                .attr("data_format", "nxc").build(), "data_format", "one of [NCX, NXC]");
    }

    @Test
    void unknownAttributesAreRejected() {
        rejects(Op.builder(7, OpKind.Divide).inputs(f32(0, 2), f32(1, 2)).output(f32(2, 2))
                .attr("rounding_mode", "floor").build(), "unknown attribute 'rounding_mode'");
    }

    @Test
    void powNeedsAnF32Beta() {
        rejects(Op.builder(7, OpKind.Pow).input(f32(0, 2)).output(f32(1, 2)).build(),
                "missing required attribute 'beta'", "f32");
        rejects(Op.builder(7, OpKind.Pow).input(f32(0, 2)).output(f32(1, 2)).attr("beta", 2L).build(),
                "attribute 'beta'", "expected f32");
        assertArrayEquals(new long[] {2, U},
                infer0(Op.builder(7, OpKind.Pow).input(f32(0, 2, U)).output(unknownRank(1)).attr("beta", 3f).build()));
    }

    @Test
    void arityIsChecked() {
        rejects(Op.builder(7, OpKind.Add).inputs(f32(0, 2), f32(1, 2), f32(3, 2)).output(f32(2, 2)).build(),
                "has 3 inputs, expected 2", "src_0, src_1");
        rejects(Op.builder(7, OpKind.PReLUBackward).inputs(f32(0, 2), f32(1, 2), f32(3, 2)).output(f32(2, 2)).build(),
                "has 1 outputs, expected 2", "diff_src, diff_slope");
    }

    // ---- data types -------------------------------------------------------------------------

    @Test
    void mixedPrecisionsOfTheCorpusAreAccepted() {
        assertArrayEquals(new long[] {2, 3},
                infer0(binary(OpKind.Multiply, t(0, DataType.BF16, 2, 3), t(1, DataType.BF16, 2, 3), f32(2, 2, 3))));
        assertArrayEquals(new long[] {2, 3},
                infer0(binary(OpKind.Divide, t(0, DataType.BF16, 2, 3), f32(1, 1), t(2, DataType.BF16, 2, 3))));
        assertArrayEquals(new long[] {2, 3},
                infer0(binary(OpKind.Add, f32(0, 2, 3), t(1, DataType.BF16, 2, 3), f32(2, 2, 3))));
        assertArrayEquals(new long[] {2, 3},
                infer0(binary(OpKind.Maximum, t(0, DataType.F16, 2, 3), t(1, DataType.F16, 1), t(2, DataType.F16, 2, 3))));
    }

    @Test
    void s32IsForAddSubtractAndGreaterEqualOnly() {
        LogicalTensor a = t(0, DataType.S32, 4);
        LogicalTensor b = t(1, DataType.S32);
        assertArrayEquals(new long[] {4}, infer0(binary(OpKind.Add, a, b, t(2, DataType.S32, 4))));
        assertArrayEquals(new long[] {4}, infer0(binary(OpKind.Subtract, a, b, t(2, DataType.S32, 4))));
        assertArrayEquals(new long[] {4}, infer0(binary(OpKind.GreaterEqual, a, b, t(2, DataType.BOOLEAN, 4))));
        rejects(binary(OpKind.Multiply, a, b, t(2, DataType.S32, 4)), "input 0 (src_0", "data type s32",
                "expected one of [bf16, f16, f32, f64, s16, s64, u16, u64]");
    }

    @Test
    void greaterEqualOutputsBoolean() {
        rejects(binary(OpKind.GreaterEqual, f32(0, 2), f32(1, 2), f32(2, 2)), "output 0 (dst", "data type f32",
                "expected one of [boolean]");
    }

    @Test
    void selectConditionIsBoolean() {
        rejects(Op.builder(7, OpKind.Select).inputs(f32(0, 2), f32(1, 2), f32(2, 2)).output(f32(3, 2)).build(),
                "input 0 (cond", "expected one of [boolean]");
    }

    @Test
    void preluBackwardTiesGradientsToTheirTensors() {
        rejects(Op.builder(7, OpKind.PReLUBackward)
                .inputs(f32(0, 2), f32(1, 2), t(2, DataType.BF16, 2)).outputs(f32(3, 2), f32(4, 2)).build(),
                "input 2 (diff_dst", "bf16", "must match");
        rejects(Op.builder(7, OpKind.PReLUBackward)
                .inputs(f32(0, 2), t(1, DataType.BF16, 2), f32(2, 2)).outputs(f32(3, 2), f32(4, 2)).build(),
                "output 1 (diff_slope", "must match");
    }

    // ---- broadcasting shapes ----------------------------------------------------------------

    @Test
    void numpyBroadcastAlignsRight() {
        for (OpKind k : ARITHMETIC) {
            assertArrayEquals(new long[] {2, 3, 4}, infer0(binary(k, f32(0, 2, 1, 4), f32(1, 3, 1), unknownRank(2))),
                    k.spelling());
        }
        // the harness's variants of add.json: a broadcast src_0, and a rank-0 src_1
        assertArrayEquals(new long[] {64, 128, 28, 28},
                infer0(binary(OpKind.Add, f32(0, 1, 1, 1, 1), f32(1, 64, 128, 28, 28), unknownRank(2))));
        assertArrayEquals(new long[] {1, 32, 28, 28},
                infer0(binary(OpKind.Divide, f32(0, 1, 32, 28, 28), f32(1), unknownRank(2))));
        assertArrayEquals(new long[] {}, infer0(binary(OpKind.Add, f32(0), f32(1), unknownRank(2))));
    }

    @Test
    void numpyBroadcastPropagatesPlaceholders() {
        assertArrayEquals(new long[] {U, 3}, infer0(binary(OpKind.Add, f32(0, U, 3), f32(1, 1, 3), unknownRank(2))));
        assertArrayEquals(new long[] {5, 3}, infer0(binary(OpKind.Add, f32(0, U, 3), f32(1, 5, 1), unknownRank(2))));
        assertArrayEquals(new long[] {U, U}, infer0(binary(OpKind.Add, f32(0, U, 1), f32(1, 1, U), unknownRank(2))));
        assertArrayEquals(new long[] {D, 3}, infer0(binary(OpKind.Add, f32(0, D, 3), f32(1, 3), unknownRank(2))));
        assertArrayEquals(new long[] {D, 4},
                infer0(binary(OpKind.Multiply, f32(0, D, 1), f32(1, U, 4), unknownRank(2))));
    }

    @Test
    void unknownRankLeavesTheOutputUnknown() {
        assertNull(infer0(binary(OpKind.Subtract, unknownRank(0), f32(1, 2, 3), unknownRank(2))));
        assertNull(infer0(binary(OpKind.GreaterEqual, f32(0, 2), unknownRank(1), LogicalTensor.unknownRank(2,
                DataType.BOOLEAN))));
    }

    @Test
    void declaredOutputsAreMergedAndChecked() {
        assertArrayEquals(new long[] {2, 3}, infer0(binary(OpKind.Add, f32(0, U, 3), f32(1, 1, 3), f32(2, 2, U))));
        rejects(binary(OpKind.Add, f32(0, 2, 3), f32(1, 1, 3), f32(2, 2, 4)), "declared [2,4]", "give [2,3]");
    }

    @Test
    void incompatibleShapesAreRejected() {
        rejects(binary(OpKind.Add, f32(0, 2, 3), f32(1, 4), unknownRank(2)), "[2,3]", "[4]", "cannot be broadcast");
        rejects(binary(OpKind.Maximum, f32(0, 2, 3), f32(1, 2, 1), unknownRank(2), "none"), "auto_broadcast is none",
                "differ at dim 1");
        rejects(binary(OpKind.Minimum, f32(0, 2, 3), f32(1, 3), unknownRank(2), "none"), "auto_broadcast is none",
                "ranks 2 and 1");
    }

    @Test
    void noBroadcastMergesPlaceholders() {
        assertArrayEquals(new long[] {2, 3},
                infer0(binary(OpKind.SquaredDifference, f32(0, 2, U), f32(1, U, 3), unknownRank(2), "none")));
        assertArrayEquals(new long[] {2, 3},
                infer0(binary(OpKind.Add, f32(0, 2, 3), unknownRank(1), unknownRank(2), "none")));
    }

    // ---- Select -----------------------------------------------------------------------------

    private static Op select(LogicalTensor cond, LogicalTensor a, LogicalTensor b, String mode) {
        Op.Builder op = Op.builder(7, OpKind.Select).inputs(cond, a, b).output(unknownRank(9));
        if (mode != null) {
            op.attr("auto_broadcast", mode);
        }
        return op.build();
    }

    private static LogicalTensor cond(long... dims) {
        return t(0, DataType.BOOLEAN, dims);
    }

    @Test
    void selectBroadcastsSourcesThenCondOneWay() {
        assertArrayEquals(new long[] {1, 12, 128, 128},
                infer0(select(cond(1, 1, 1, 128), f32(1, 1), f32(2, 1, 12, 128, 128), null)));
        assertArrayEquals(new long[] {2, 3, 4, 5}, infer0(select(cond(3, 1, 5), f32(1, 2, 3, 4, 5), f32(2), null)));
        // cond {3,5} against {2,3,4,5} is invalid (oneDNN's own example)
        rejects(select(cond(3, 5), f32(1, 2, 3, 4, 5), f32(2, 1), null), "cond [3,5]", "[2,3,4,5]",
                "cannot be broadcast");
        // cond may not widen the result
        rejects(select(cond(2, 3), f32(1, 1, 3), f32(2, 3), null), "cond [2,3]", "[1,3]");
        rejects(select(cond(2, 3), f32(1, 2, 3), f32(2, 4), null), "cannot be broadcast");
    }

    @Test
    void selectShapesWithPlaceholdersAndUnknownRanks() {
        assertArrayEquals(new long[] {U, 4}, infer0(select(cond(1, 4), f32(1, U, 4), f32(2, 1), null)));
        // a cond dim other than 1 fixes an unknown result dim; a dynamic one stays dynamic
        assertArrayEquals(new long[] {U, 4}, infer0(select(cond(1, 4), f32(1, U, U), f32(2, 1), null)));
        assertArrayEquals(new long[] {3, D}, infer0(select(cond(3, 4), f32(1, U, D), f32(2, 1), null)));
        assertArrayEquals(new long[] {2, 4}, infer0(select(cond(U, 4), f32(1, 2, 4), f32(2, 1), null)));
        assertArrayEquals(new long[] {2, 4}, infer0(select(LogicalTensor.unknownRank(0, DataType.BOOLEAN),
                f32(1, 2, 4), f32(2, 4), null)));
        assertNull(infer0(select(cond(2, 4), unknownRank(1), f32(2, 4), null)));
    }

    @Test
    void selectWithoutBroadcastNeedsEqualShapes() {
        assertArrayEquals(new long[] {2, 3}, infer0(select(cond(2, U), f32(1, U, 3), f32(2, 2, 3), "none")));
        assertArrayEquals(new long[] {2, 3}, infer0(select(cond(2, 3), unknownRank(1), unknownRank(2), "none")));
        rejects(select(cond(1, 3), f32(1, 2, 3), f32(2, 2, 3), "none"), "auto_broadcast is none", "cond [1,3]",
                "differ at dim 0");
        rejects(select(cond(3), f32(1, 2, 3), f32(2, 2, 3), "none"), "auto_broadcast is none", "different ranks");
        rejects(select(cond(2, 3), f32(1, 2, 3), f32(2, 1, 3), "none"), "auto_broadcast is none", "differ at dim 0");
    }

    // ---- BiasAdd ----------------------------------------------------------------------------

    private static Op biasAdd(LogicalTensor src, LogicalTensor bias, String fmt) {
        Op.Builder op = Op.builder(7, OpKind.BiasAdd).inputs(src, bias).output(unknownRank(9));
        if (fmt != null) {
            op.attr("data_format", fmt);
        }
        return op.build();
    }

    @Test
    void biasAddChecksTheChannelCount() {
        assertArrayEquals(new long[] {1, 128, 32, 32}, infer0(biasAdd(f32(0, 1, 128, 32, 32), f32(1, 128), "NCX")));
        assertArrayEquals(new long[] {1, 32, 32, 128}, infer0(biasAdd(f32(0, 1, 32, 32, 128), f32(1, 128), "NXC")));
        assertArrayEquals(new long[] {16, 1024}, infer0(biasAdd(f32(0, 16, 1024), f32(1, 1024), "NCX")));
        rejects(biasAdd(f32(0, 1, 128, 32, 32), f32(1, 128), null), "bias [128]", "channels", "32 along axis 3",
                "NXC");
        rejects(biasAdd(f32(0, 2, 3, 4), f32(1, 4), "NCX"), "bias [4]", "3 along axis 1", "NCX");
    }

    @Test
    void biasAddRanks() {
        rejects(biasAdd(f32(0, 4), f32(1, 4), null), "input 0", "rank 1", "at least 2");
        rejects(biasAdd(f32(0, 2, 4), f32(1, 1, 4), null), "input 1", "rank 2", "expected rank 1");
    }

    @Test
    void biasAddTakesTheChannelsFromTheBiasWhenSrcDoesNotKnowThem() {
        assertArrayEquals(new long[] {2, 3, U}, infer0(biasAdd(f32(0, 2, U, U), f32(1, 3), "NCX")));
        assertArrayEquals(new long[] {D, 2, 5}, infer0(biasAdd(f32(0, D, 2, U), f32(1, 5), "NXC")));
        assertArrayEquals(new long[] {2, U, 4}, infer0(biasAdd(f32(0, 2, U, 4), f32(1, U), "NCX")));
        assertArrayEquals(new long[] {2, 7, 4}, infer0(biasAdd(f32(0, 2, 7, 4), unknownRank(1), "NCX")));
        assertNull(infer0(biasAdd(unknownRank(0), f32(1, 7), "NCX")));
    }

    @Test
    void biasAddBackwardGivesTheChannels() {
        Op ncx = Op.builder(7, OpKind.BiasAddBackward).input(f32(0, 1, 128, 32, 32)).output(unknownRank(1))
                .attr("data_format", "NCX").build();
        assertArrayEquals(new long[] {128}, infer0(ncx));
        Op nxc = Op.builder(7, OpKind.BiasAddBackward).input(f32(0, 2, 5, 7)).output(unknownRank(1)).build();
        assertArrayEquals(new long[] {7}, infer0(nxc));
        Op unknown = Op.builder(7, OpKind.BiasAddBackward).input(f32(0, 2, U, 7)).output(unknownRank(1))
                .attr("data_format", "NCX").build();
        assertArrayEquals(new long[] {U}, infer0(unknown));
        Op dynamic = Op.builder(7, OpKind.BiasAddBackward).input(f32(0, 2, 5, D)).output(unknownRank(1)).build();
        assertArrayEquals(new long[] {D}, infer0(dynamic));
        Op unranked = Op.builder(7, OpKind.BiasAddBackward).input(unknownRank(0)).output(unknownRank(1)).build();
        assertNull(infer0(unranked));
        rejects(Op.builder(7, OpKind.BiasAddBackward).input(f32(0, 5)).output(unknownRank(1)).build(), "rank 1",
                "at least 2");
        rejects(Op.builder(7, OpKind.BiasAddBackward).input(f32(0, 2, 5)).output(f32(1, 2)).build(), "declared [2]",
                "[5]");
    }

    // ---- PReLU ------------------------------------------------------------------------------

    private static Op prelu(LogicalTensor src, LogicalTensor slope, String fmt, Boolean perChannel) {
        Op.Builder op = Op.builder(7, OpKind.PReLU).inputs(src, slope).output(unknownRank(9));
        if (fmt != null) {
            op.attr("data_format", fmt);
        }
        if (perChannel != null) {
            op.attr("per_channel_broadcast", perChannel.booleanValue());
        }
        return op.build();
    }

    @Test
    void preluSlopeRules() {
        LogicalTensor src = f32(0, 4, 16, 3, 5);
        // rule 1: 1-D per channel
        assertArrayEquals(src.dims(), infer0(prelu(src, f32(1, 16), "NCX", true)));
        assertArrayEquals(src.dims(), infer0(prelu(src, f32(1, 5), "NXC", true)));
        // rule 2: 1-D not per channel -> last dim
        assertArrayEquals(src.dims(), infer0(prelu(src, f32(1, 5), "NCX", false)));
        // rule 3: n-D, aligned right
        assertArrayEquals(src.dims(), infer0(prelu(src, f32(1, 4, 16, 3, 5), "NCX", false)));
        assertArrayEquals(src.dims(), infer0(prelu(src, f32(1, 4, 16, 3, 5), "NCX", true)));
        assertArrayEquals(src.dims(), infer0(prelu(src, f32(1, 16, 1, 1), "NCX", true)));
        assertArrayEquals(src.dims(), infer0(prelu(src, f32(1, 3, 5), null, null)));
        assertArrayEquals(src.dims(), infer0(prelu(src, f32(1, 1), "NCX", true)));
        assertArrayEquals(src.dims(), infer0(prelu(src, f32(1), "NCX", true)));
    }

    @Test
    void preluRejectsSlopesThatDoNotBroadcast() {
        LogicalTensor src = f32(0, 4, 16, 3, 5);
        rejects(prelu(src, f32(1, 5), "NCX", true), "slope [5]", "src [4,16,3,5]", "channel count 16", "axis 1");
        rejects(prelu(src, f32(1, 16), "NXC", true), "channel count 5", "axis 3");
        rejects(prelu(src, f32(1, 16), "NCX", false), "last dim 5");
        rejects(prelu(src, f32(1, 2, 3, 5), "NCX", true), "slope [2,3,5]", "each slope dim");
        rejects(prelu(src, f32(1, 2, 4, 16, 3, 5), null, null), "more dims than src");
    }

    @Test
    void preluShapesWithPlaceholders() {
        assertArrayEquals(new long[] {2, U, 4}, infer0(prelu(f32(0, 2, U, 4), f32(1, 7), "NCX", true)));
        assertArrayEquals(new long[] {2, D, 4}, infer0(prelu(f32(0, 2, D, 4), f32(1, U, 4), "NCX", true)));
        assertArrayEquals(new long[] {2, 3}, infer0(prelu(f32(0, 2, 3), unknownRank(1), null, null)));
        assertNull(infer0(prelu(unknownRank(0), f32(1, 3), null, null)));
    }

    private static Op preluBackward(LogicalTensor src, LogicalTensor slope, LogicalTensor dd, String fmt) {
        Op.Builder op = Op.builder(7, OpKind.PReLUBackward).inputs(src, slope, dd)
                .outputs(unknownRank(8), unknownRank(9));
        if (fmt != null) {
            op.attr("data_format", fmt);
        }
        return op.build();
    }

    @Test
    void preluBackwardShapes() {
        List<long[]> out = infer(preluBackward(f32(0, 2, 7, 5, 3, 2), f32(1, 1, 1, 1, 1, 1), f32(2, 2, 7, 5, 3, 2),
                "NCX"));
        assertArrayEquals(new long[] {2, 7, 5, 3, 2}, out.get(0));
        assertArrayEquals(new long[] {1, 1, 1, 1, 1}, out.get(1));
        // a 1-D slope of more than one element is per channel
        out = infer(preluBackward(f32(0, 2, 7, 5), f32(1, 7), f32(2, 2, 7, 5), "NCX"));
        assertArrayEquals(new long[] {7}, out.get(1));
        out = infer(preluBackward(f32(0, 2, 7, 5), f32(1, 5), f32(2, 2, 7, 5), null));
        assertArrayEquals(new long[] {5}, out.get(1));
        out = infer(preluBackward(f32(0, 2, 7, 5), f32(1, 1), f32(2, 2, 7, 5), null));
        assertArrayEquals(new long[] {1}, out.get(1));
        // TensorFlow style: slope = src dims without the batch
        out = infer(preluBackward(f32(0, 2, 7, 5), f32(1, 7, 5), f32(2, 2, 7, 5), "NCX"));
        assertArrayEquals(new long[] {7, 5}, out.get(1));
    }

    @Test
    void preluBackwardPlaceholdersAndErrors() {
        List<long[]> out = infer(preluBackward(f32(0, 2, U, 5), f32(1, U), f32(2, U, 7, D), "NCX"));
        assertArrayEquals(new long[] {2, 7, 5}, out.get(0));
        assertArrayEquals(new long[] {U}, out.get(1));
        out = infer(preluBackward(unknownRank(0), f32(1, 3), f32(2, 4, 3), null));
        assertArrayEquals(new long[] {4, 3}, out.get(0));
        rejects(preluBackward(f32(0, 2, 7, 5), f32(1, 5), f32(2, 2, 7, 5), "NCX"), "slope [5]", "channel count 7");
        rejects(preluBackward(f32(0, 2, 7, 5), f32(1, 7), f32(2, 2, 7, 6), "NCX"), "diff_dst [2,7,6]",
                "shape of src [2,7,5]", "dim 2");
        rejects(preluBackward(f32(0, 2, 7, 5), f32(1, 7), f32(2, 7, 5), "NCX"), "diff_dst [7,5]");
    }

    // ---- the corpus -------------------------------------------------------------------------

    /**
     * Every op of this family in the corpus validates, and the shapes it infers from its inputs
     * agree with the declared outputs' known dims. (A declaration of only unknown dims may have
     * another rank: gemma2-bf16-f32.json declares a rank-5 Select result as [?].)
     */
    @TestFactory
    Stream<DynamicTest> everyCorpusOpOfTheFamilyValidatesAndInfers() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path f : Corpus.graphFiles()) {
            GraphDescription d = GraphJson.parse(f);
            for (Op op : d.ops()) {
                if (!FAMILY.contains(op.kind())) {
                    continue;
                }
                tests.add(DynamicTest.dynamicTest(Corpus.name(f) + " " + op.describe(), () -> {
                    Op.Builder open = op.toBuilder().clearOutputs();
                    for (LogicalTensor o : op.outputs()) {
                        open.output(LogicalTensor.unknownRank(o.id(), o.dataType()));
                    }
                    List<long[]> out = infer(open.build());
                    assertEquals(op.outputs().size(), out.size());
                    for (int i = 0; i < out.size(); i++) {
                        long[] declared = op.outputs().get(i).dims();
                        long[] inferred = out.get(i);
                        assertNotNull(inferred, "output " + i + " rank is inferred");
                        if (declared == null || java.util.Arrays.stream(declared).allMatch(x -> x == U)) {
                            continue;
                        }
                        assertEquals(declared.length, inferred.length, "output " + i + " rank");
                        for (int k = 0; k < declared.length; k++) {
                            if (declared[k] >= 0) {
                                assertEquals(declared[k], inferred[k], "output " + i + " dim " + k);
                            }
                        }
                    }
                }));
            }
        }
        assertFalse(tests.isEmpty());
        return tests.stream();
    }
}
