package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.registry.OpSchemas;

/** Schemas of normalizations, softmax variants and reductions: defaults, types, shapes, errors. */
class NormReduceSchemasTest {
    private static final long DYN = DYNAMIC_DIM;
    private static final long UNK = UNKNOWN_DIM;

    private static LogicalTensor t(long id, long... dims) {
        return LogicalTensor.of(id, DataType.F32, dims);
    }

    private static LogicalTensor t(long id, DataType dt, long... dims) {
        return LogicalTensor.of(id, dt, dims);
    }

    private static LogicalTensor any(long id) {
        return LogicalTensor.unknownRank(id, DataType.F32);
    }

    private static List<LogicalTensor> infer(Op op) {
        Op v = OpSchemas.of(op).validate(op);
        return OpSchemas.of(v).inferOutputs(v, v.inputs(), Map.of());
    }

    private static long[] dims(Op op, int output) {
        return infer(op).get(output).dims();
    }

    /** The op is rejected with a message naming it and containing every fragment. */
    private static void rejected(Op op, String... fragments) {
        InvalidGraphException e = assertThrows(InvalidGraphException.class, () -> infer(op));
        String m = e.getMessage();
        assertTrue(m.contains("op " + op.id() + " (" + op.kind().spelling()), "names the op: " + m);
        for (String f : fragments) {
            assertTrue(m.contains(f), "message contains '" + f + "': " + m);
        }
    }

    // ---------------------------------------------------------------- defaults

    @Test
    void defaultsFollowOneDnn() {
        Op sm = validate(Op.builder(0, OpKind.SoftMax).input(t(0, 2)).output(t(1, 2)).build());
        assertEquals(1L, sm.longAttr("axis"));
        assertEquals("none", sm.stringAttr("mode"));
        Op ls = validate(Op.builder(0, OpKind.LogSoftmax).input(t(0, 2)).output(t(1, 2)).build());
        assertEquals(-1L, ls.longAttr("axis"));
        Op ln = validate(Op.builder(0, OpKind.LayerNorm).inputs(t(0, 2, 3), t(1, 3), t(2, 3))
                .outputs(t(3, 2, 3), t(4, 2), t(5, 2)).build());
        assertTrue(ln.boolAttr("keep_stats") && ln.boolAttr("use_affine"));
        assertEquals(-1L, ln.longAttr("begin_norm_axis"));
        assertEquals(1e-5f, ln.floatAttr("epsilon"));
        Op bn = validate(Op.builder(0, OpKind.BatchNormInference).inputs(t(0, 1, 2), t(1, 2), t(2, 2), t(3, 2),
                t(4, 2)).output(t(5, 1, 2)).attr("epsilon", 0.1f).build());
        assertEquals("NXC", bn.stringAttr("data_format"));
        Op bt = validate(bnTraining(t(0, 2, 3), 3, 5));
        assertTrue(!bt.hasAttr("momentum"), "momentum has no default");
        Op rs = validate(Op.builder(0, OpKind.ReduceSum).input(t(0, 2)).output(t(1, 2)).build());
        assertArrayEquals(new long[0], rs.longsAttr("axes"));
        assertTrue(!rs.boolAttr("keep_dims"));
        Op gn = validate(Op.builder(0, OpKind.GroupNorm).inputs(t(0, 1, 2, 4), t(1, 4), t(2, 4))
                .outputs(t(3, 1, 2, 4), t(4, 1, 2), t(5, 1, 2)).attr("groups", 2L).build());
        assertEquals("NXC", gn.stringAttr("data_format"));
        assertEquals(1e-5f, gn.floatAttr("epsilon"));
        Op rms = validate(Op.builder(0, OpKind.RMSNorm).input(t(0, 2)).output(t(1, 2)).build());
        assertEquals(-1L, rms.longAttr("begin_norm_axis"));
    }

    private static Op validate(Op op) {
        return OpSchemas.of(op).validate(op);
    }

    private static Op bnTraining(LogicalTensor src, long c, int inputs) {
        Op.Builder b = Op.builder(0, OpKind.BatchNormForwardTraining).input(src);
        for (int i = 1; i < inputs; i++) {
            b.input(t(i, c));
        }
        return b.outputs(any(10), any(11), any(12), any(13), any(14)).attr("epsilon", 0.1f)
                .attr("data_format", "NCX").build();
    }

    // ---------------------------------------------------------------- data types

    @Test
    void dataTypeCombinationsOfTheCorpusAreAccepted() {
        // SoftMax f32 -> bf16 with f32 stats, f16 -> f16, bf16 -> f32
        validate(Op.builder(0, OpKind.SoftMax).input(t(0, 2, 3))
                .outputs(t(1, DataType.BF16, 2, 3), t(2, 2, 1)).attr("axis", -1L).build());
        validate(Op.builder(0, OpKind.SoftMax).input(t(0, DataType.F16, 2, 3)).output(t(1, DataType.F16, 2, 3))
                .build());
        validate(Op.builder(0, OpKind.SoftMax).input(t(0, DataType.BF16, 2, 3)).output(t(1, 2, 3)).build());
        // bf16 data with f32 scale/shift
        validate(Op.builder(0, OpKind.GroupNorm).inputs(t(0, DataType.BF16, 2, 4, 3), t(1, 4), t(2, 4))
                .output(t(3, DataType.BF16, 2, 4, 3)).attr("groups", 2L).attr("keep_stats", false).build());
        validate(Op.builder(0, OpKind.LayerNorm).inputs(t(0, DataType.BF16, 2, 4), t(1, 4), t(2, 4))
                .output(t(3, DataType.BF16, 2, 4)).attr("keep_stats", false).build());
        // f16 data with f16 or f32 auxiliary tensors
        validate(Op.builder(0, OpKind.BatchNormInference).inputs(t(0, DataType.F16, 1, 2), t(1, DataType.F16, 2),
                t(2, DataType.F16, 2), t(3, DataType.F16, 2), t(4, DataType.F16, 2)).output(t(5, DataType.F16, 1, 2))
                .attr("epsilon", 0.1f).build());
        validate(Op.builder(0, OpKind.RMSNorm).inputs(t(0, DataType.F16, 2, 4), t(1, 4))
                .output(t(2, DataType.F16, 2, 4)).build());
        // SoftMaxBackward bf16 -> f32 diff_src
        validate(Op.builder(0, OpKind.SoftMaxBackward).inputs(t(0, DataType.BF16, 2), t(1, DataType.BF16, 2))
                .output(t(2, 2)).build());
        validate(Op.builder(0, OpKind.ReduceSum).input(t(0, DataType.BF16, 2, 3)).output(t(1, DataType.BF16, 2, 1))
                .attr("axes", new long[] {1}).attr("keep_dims", true).build());
    }

    @Test
    void unsupportedDataTypeCombinationsAreRejected() {
        rejected(Op.builder(0, OpKind.SoftMax).input(t(0, DataType.BF16, 2)).output(t(1, DataType.F16, 2)).build(),
                "dst must be f32 or the src data type");
        rejected(Op.builder(0, OpKind.SoftMax).input(t(0, 2)).outputs(t(1, 2), t(2, DataType.BF16, 1)).build(),
                "stats", "expected one of [f32]");
        rejected(Op.builder(0, OpKind.SoftMaxBackward).inputs(t(0, DataType.BF16, 2), t(1, DataType.BF16, 2))
                .output(t(2, DataType.F16, 2)).build(), "diff_src must be f32 or the diff_dst data type");
        rejected(Op.builder(0, OpKind.LogSoftmax).input(t(0, 2)).output(t(1, DataType.BF16, 2)).build(),
                "they must match");
        rejected(Op.builder(0, OpKind.BatchNormInference).inputs(t(0, 1, 2), t(1, DataType.BF16, 2),
                t(2, DataType.BF16, 2), t(3, DataType.BF16, 2), t(4, DataType.BF16, 2)).output(t(5, 1, 2))
                .attr("epsilon", 0.1f).build(), "input 1", "f32 or the src data type");
        rejected(Op.builder(0, OpKind.ReduceMax).input(t(0, DataType.S32, 2)).output(t(1, DataType.S32, 1))
                .build(), "has data type s32");
    }

    // ---------------------------------------------------------------- shape inference

    @Test
    void softmaxShapesWithPlaceholdersAndUnknownRank() {
        Op op = Op.builder(0, OpKind.SoftMax).input(t(0, 2, 3, 4)).outputs(any(1), any(2)).build();
        assertArrayEquals(new long[] {2, 3, 4}, dims(op, 0));
        assertArrayEquals(new long[] {2, 1, 4}, dims(op, 1));
        Op dyn = Op.builder(0, OpKind.SoftMax).input(t(0, DYN, 3, UNK)).outputs(any(1), any(2)).attr("axis", -1L)
                .build();
        assertArrayEquals(new long[] {DYN, 3, UNK}, dims(dyn, 0));
        assertArrayEquals(new long[] {DYN, 3, 1}, dims(dyn, 1));
        Op unknown = Op.builder(0, OpKind.SoftMax).input(any(0)).outputs(any(1), any(2)).attr("axis", 7L).build();
        assertNull(dims(unknown, 0));
        assertNull(dims(unknown, 1));
        Op bwd = Op.builder(0, OpKind.SoftMaxBackward).inputs(t(0, UNK, 4), t(1, 2, DYN)).output(any(2)).build();
        assertArrayEquals(new long[] {2, 4}, dims(bwd, 0));
        Op lbwd = Op.builder(0, OpKind.LogSoftmaxBackward).inputs(any(0), t(1, 2, DYN)).output(any(2)).build();
        assertArrayEquals(new long[] {2, DYN}, dims(lbwd, 0));
    }

    @Test
    void batchNormShapes() {
        Op inf = Op.builder(0, OpKind.BatchNormInference).inputs(t(0, DYN, UNK, 5, 5), t(1, 8), t(2, 8), t(3, UNK),
                t(4, 8)).output(any(5)).attr("epsilon", 0.1f).attr("data_format", "NCX").build();
        assertArrayEquals(new long[] {DYN, UNK, 5, 5}, dims(inf, 0));
        // the channel count comes from the auxiliary inputs when src does not know it
        Op train = bnTraining(t(0, 2, UNK, 4), 8, 5);
        assertArrayEquals(new long[] {2, UNK, 4}, dims(train, 0));
        for (int k = 1; k < 5; k++) {
            assertArrayEquals(new long[] {8}, dims(train, k));
        }
        Op unknownSrc = bnTraining(any(0), 8, 3);
        assertNull(dims(unknownSrc, 0));
        assertArrayEquals(new long[] {8}, dims(unknownSrc, 4));
        Op nxc = Op.builder(0, OpKind.BatchNormForwardTraining).inputs(t(0, 2, 5, 5, 7), t(1, 7), t(2, 7))
                .outputs(any(10), any(11), any(12), any(13), any(14)).attr("epsilon", 0.1f).build();
        assertArrayEquals(new long[] {7}, dims(nxc, 2));
        Op bwd = Op.builder(0, OpKind.BatchNormTrainingBackward)
                .inputs(t(0, 2, 3, 4, 4), t(1, UNK, 3, 4, DYN), t(2, 3), t(3, 3), t(4, 3)).outputs(any(5), any(6), any(7))
                .attr("epsilon", 0.1f).attr("data_format", "NCX").build();
        assertArrayEquals(new long[] {2, 3, 4, 4}, dims(bwd, 0));
        assertArrayEquals(new long[] {3}, dims(bwd, 1));
        assertArrayEquals(new long[] {3}, dims(bwd, 2));
    }

    @Test
    void layerNormShapes() {
        Op ln = Op.builder(0, OpKind.LayerNorm).inputs(t(0, DYN, 3, UNK), t(1, UNK), t(2, 5))
                .outputs(any(3), any(4), any(5)).build();
        assertArrayEquals(new long[] {DYN, 3, UNK}, dims(ln, 0));
        assertArrayEquals(new long[] {DYN, 3}, dims(ln, 1));
        assertArrayEquals(new long[] {DYN, 3}, dims(ln, 2));
        Op two = Op.builder(0, OpKind.LayerNorm).inputs(t(0, DYN, 3, 4), t(1, 3, 4), t(2, 12))
                .outputs(any(3), any(4), any(5)).attr("begin_norm_axis", -2L).build();
        assertArrayEquals(new long[] {DYN}, dims(two, 1));
        Op all = Op.builder(0, OpKind.LayerNorm).input(t(0, 2, 3)).outputs(any(3), any(4), any(5))
                .attr("begin_norm_axis", 0L).attr("use_affine", false).build();
        assertArrayEquals(new long[] {}, dims(all, 1));
        Op bwd = Op.builder(0, OpKind.LayerNormBackward)
                .inputs(t(0, 2, UNK, 4), t(1, UNK, 3, 4), t(2, 2, 3), t(3, 2, 3), t(4, 4), t(5, 4))
                .outputs(any(6), any(7), any(8)).build();
        assertArrayEquals(new long[] {2, 3, 4}, dims(bwd, 0));
        assertArrayEquals(new long[] {4}, dims(bwd, 1));
        assertArrayEquals(new long[] {4}, dims(bwd, 2));
    }

    @Test
    void groupNormAndRmsNormShapes() {
        Op ncx = Op.builder(0, OpKind.GroupNorm).inputs(t(0, DYN, 6, UNK, 4), t(1, 6), t(2, 6))
                .outputs(any(3), any(4), any(5)).attr("groups", 3L).attr("data_format", "NCX").build();
        assertArrayEquals(new long[] {DYN, 6, UNK, 4}, dims(ncx, 0));
        assertArrayEquals(new long[] {DYN, 3}, dims(ncx, 1));
        Op nxc = Op.builder(0, OpKind.GroupNorm).input(t(0, 2, 4, 4, 6)).outputs(any(3), any(4), any(5))
                .attr("groups", 2L).attr("use_affine", false).build();
        assertArrayEquals(new long[] {2, 2}, dims(nxc, 2));
        Op rms = Op.builder(0, OpKind.RMSNorm).inputs(t(0, 2, UNK, 4), t(1, 4)).outputs(any(2), any(3)).build();
        assertArrayEquals(new long[] {2, UNK, 4}, dims(rms, 0));
        assertArrayEquals(new long[] {2, UNK}, dims(rms, 1));
        Op rms0 = Op.builder(0, OpKind.RMSNorm).inputs(t(0, 2, 3, 4), t(1, 1, 3, 1)).outputs(any(2), any(3))
                .attr("begin_norm_axis", 1L).build();
        assertArrayEquals(new long[] {2}, dims(rms0, 1));
    }

    private static Op reduce(LogicalTensor src, long[] axes, boolean keep) {
        return Op.builder(0, OpKind.ReduceMean).input(src).output(any(1)).attr("axes", axes).attr("keep_dims", keep)
                .build();
    }

    @Test
    void reductionShapes() {
        LogicalTensor src = t(0, DYN, 4, UNK, 5);
        assertArrayEquals(new long[] {DYN, 1, UNK, 1}, dims(reduce(src, new long[] {1, -1}, true), 0));
        assertArrayEquals(new long[] {DYN, UNK}, dims(reduce(src, new long[] {1, -1}, false), 0));
        assertArrayEquals(new long[] {4, 5}, dims(reduce(src, new long[] {0, 2}, false), 0));
        assertArrayEquals(new long[] {}, dims(reduce(t(0, 2, 3), new long[] {0, 1}, false), 0));
        assertArrayEquals(new long[] {DYN, 4, UNK, 5}, dims(reduce(src, new long[] {}, false), 0));
        assertNull(dims(reduce(any(0), new long[] {3}, true), 0));
        // axes given as an input: its values are only known at execution
        Op input = Op.builder(0, OpKind.ReduceL2).inputs(t(0, 2, 3), t(1, DataType.S32, 1)).output(any(2)).build();
        assertNull(dims(input, 0));
        Op withValues = validate(input);
        List<LogicalTensor> out = OpSchemas.of(withValues).inferOutputs(withValues, withValues.inputs(),
                Map.of(1L, new long[] {-2}));
        assertArrayEquals(new long[] {3}, out.get(0).dims());
    }

    // ---------------------------------------------------------------- bad attributes

    @Test
    void missingRequiredAttributes() {
        rejected(Op.builder(0, OpKind.BatchNormInference).inputs(t(0, 1, 2), t(1, 2), t(2, 2), t(3, 2), t(4, 2))
                .output(t(5, 1, 2)).build(), "missing required attribute 'epsilon'");
        rejected(Op.builder(0, OpKind.BatchNormTrainingBackward).inputs(t(0, 1, 2), t(1, 1, 2), t(2, 2), t(3, 2))
                .output(t(5, 1, 2)).build(), "missing required attribute 'epsilon'");
        rejected(Op.builder(0, OpKind.GroupNorm).inputs(t(0, 1, 2, 4), t(1, 4), t(2, 4))
                .outputs(t(3, 1, 2, 4), t(4, 1, 2), t(5, 1, 2)).build(), "missing required attribute 'groups'");
    }

    @Test
    void wrongAttributeValuesAndTypes() {
        rejected(Op.builder(0, OpKind.BatchNormInference).inputs(t(0, 1, 2), t(1, 2), t(2, 2), t(3, 2), t(4, 2))
                .output(t(5, 1, 2)).attr("epsilon", 0.1f).attr("data_format", "NHWC").build(), "data_format",
                "one of [NCX, NXC]");
        rejected(Op.builder(0, OpKind.SoftMax).input(t(0, 2)).output(t(1, 2)).attr("mode", "fast").build(), "mode",
                "one of [none, inf_as_zero]");
        rejected(Op.builder(0, OpKind.GroupNorm).input(t(0, 1, 2, 4)).output(t(3, 1, 2, 4)).attr("groups", 0L)
                .attr("keep_stats", false).attr("use_affine", false).build(), "groups", "a positive s64");
        rejected(Op.builder(0, OpKind.LayerNorm).input(t(0, 2, 3)).output(t(1, 2, 3)).attr("keep_stats", false)
                .attr("use_affine", false).attr("epsilon", -1f).build(), "epsilon", "non-negative");
        rejected(bnTraining(t(0, 2, 3), 3, 3).toBuilder().attr("momentum", Float.NaN).build(), "momentum",
                "non-negative finite");
        rejected(Op.builder(0, OpKind.ReduceSum).input(t(0, 2)).output(t(1, 1)).attr("keep_dims", 1L).build(),
                "keep_dims", "expected bool");
        rejected(Op.builder(0, OpKind.ReduceSum).input(t(0, 2)).output(t(1, 1)).attr("axis", 0L).build(),
                "unknown attribute 'axis'");
    }

    // ---------------------------------------------------------------- optional ports

    @Test
    void optionalPortsComeInPairsAndFollowTheAttributes() {
        rejected(bnTraining(t(0, 2, 3), 3, 4), "gamma and beta", "both or neither");
        rejected(Op.builder(0, OpKind.BatchNormTrainingBackward).inputs(t(0, 1, 2), t(1, 1, 2), t(2, 2), t(3, 2))
                .outputs(t(5, 1, 2), t(6, 2)).attr("epsilon", 0.1f).build(), "diff_gamma and diff_beta");
        rejected(Op.builder(0, OpKind.LayerNorm).input(t(0, 2, 3)).output(t(1, 2, 3)).attr("use_affine", false)
                .build(), "keep_stats is true", "expected 3 (dst, mean, variance)");
        rejected(Op.builder(0, OpKind.LayerNorm).input(t(0, 2, 3)).output(t(1, 2, 3)).attr("keep_stats", false)
                .build(), "use_affine is true", "expected 3 (src, gamma, beta)");
        rejected(Op.builder(0, OpKind.LayerNorm).inputs(t(0, 2, 3), t(1, 3)).output(t(1, 2, 3))
                .attr("keep_stats", false).attr("use_affine", false).build(), "gamma and beta");
        rejected(Op.builder(0, OpKind.GroupNorm).input(t(0, 1, 4)).outputs(t(1, 1, 4), t(2, 1, 2))
                .attr("groups", 2L).attr("keep_stats", false).attr("use_affine", false).build(), "mean and variance");
        rejected(Op.builder(0, OpKind.LayerNormBackward).inputs(t(0, 2, 3), t(1, 2, 3), t(2, 2), t(3, 2), t(4, 3))
                .output(t(5, 2, 3)).build(), "use_affine is true", "expected 3 (diff_src, diff_gamma, diff_beta)");
        rejected(Op.builder(0, OpKind.LayerNormBackward).inputs(t(0, 2, 3), t(1, 2, 3), t(2, 2), t(3, 2))
                .outputs(t(5, 2, 3), t(6, 3), t(7, 3)).build(), "use_affine is true", "expected gamma as input 4");
        rejected(Op.builder(0, OpKind.SoftMax).input(t(0, 2)).outputs(t(1, 2), t(2, 1), t(3, 1)).build(),
                "has 3 outputs, expected between 1 and 2");
        rejected(Op.builder(0, OpKind.ReduceSum).inputs(t(0, 2, 3), t(1, DataType.S32, 1)).output(t(2, 2))
                .attr("axes", new long[] {1}).build(), "exactly one of them");
        rejected(Op.builder(0, OpKind.ReduceSum).inputs(t(0, 2, 3), t(1, DataType.S32, 1, 1)).output(t(2, 2))
                .build(), "expected a 1-D tensor");
    }

    // ---------------------------------------------------------------- bad ranks

    @Test
    void badRanks() {
        rejected(Op.builder(0, OpKind.BatchNormInference).inputs(t(0, 4), t(1, 4), t(2, 4), t(3, 4), t(4, 4))
                .output(t(5, 4)).attr("epsilon", 0.1f).build(), "has rank 1", "expected at least 2");
        rejected(Op.builder(0, OpKind.GroupNorm).input(t(0, 4)).output(t(1, 4)).attr("groups", 2L)
                .attr("keep_stats", false).attr("use_affine", false).build(), "expected at least 2");
        rejected(Op.builder(0, OpKind.LayerNorm).input(t(0)).output(t(1)).attr("keep_stats", false)
                .attr("use_affine", false).build(), "expected at least 1");
        rejected(Op.builder(0, OpKind.BatchNormInference).inputs(t(0, 1, 4), t(1, 2, 2), t(2, 4), t(3, 4), t(4, 4))
                .output(t(5, 1, 4)).attr("epsilon", 0.1f).build(), "gamma", "expected a 1-D tensor");
        rejected(Op.builder(0, OpKind.SoftMax).input(t(0, 2, 3)).output(t(1, 2, 3)).attr("axis", 2L).build(),
                "axis 2 is out of range", "[-2, 1]");
        rejected(Op.builder(0, OpKind.LogSoftmaxBackward).inputs(t(0, 2, 3), t(1, 2, 3)).output(t(2, 2, 3))
                .attr("axis", -3L).build(), "axis -3 is out of range");
        rejected(Op.builder(0, OpKind.LayerNorm).input(t(0, 2, 3)).output(t(1, 2, 3)).attr("keep_stats", false)
                .attr("use_affine", false).attr("begin_norm_axis", 2L).build(), "begin_norm_axis 2 is out of range");
        rejected(reduce(t(0, 2, 3), new long[] {2}, true), "axis 2", "out of range", "[-2, 1]");
    }

    // ---------------------------------------------------------------- shape contradictions

    @Test
    void shapeContradictions() {
        rejected(Op.builder(0, OpKind.BatchNormInference).inputs(t(0, 1, 2, 5), t(1, 3), t(2, 2), t(3, 2), t(4, 2))
                .output(t(5, 1, 2, 5)).attr("epsilon", 0.1f).attr("data_format", "NCX").build(), "gamma",
                "has 3 elements", "channel count C", "is 2");
        rejected(Op.builder(0, OpKind.BatchNormInference).inputs(t(0, 1, 2, 5), t(1, 2), t(2, 2), t(3, 2), t(4, 2))
                .output(t(5, 1, 2, 5)).attr("epsilon", 0.1f).build(), "has 2 elements", "NXC", "is 5");
        rejected(Op.builder(0, OpKind.BatchNormTrainingBackward).inputs(t(0, 1, 2, 5), t(1, 1, 2, 4), t(2, 2),
                t(3, 2)).output(t(5, 1, 2, 5)).attr("epsilon", 0.1f).build(), "must have the same shape");
        rejected(Op.builder(0, OpKind.SoftMaxBackward).inputs(t(0, 2, 3), t(1, 2, 4)).output(t(2, 2, 3)).build(),
                "diff_dst", "dst", "must have the same shape");
        rejected(Op.builder(0, OpKind.LayerNorm).inputs(t(0, 2, 4), t(1, 5), t(2, 4)).output(t(3, 2, 4))
                .attr("keep_stats", false).build(), "gamma", "expected the normalized dims [4]");
        rejected(Op.builder(0, OpKind.LayerNorm).inputs(t(0, 2, 3, 4), t(1, 4, 3), t(2, 12)).output(t(3, 2, 3, 4))
                .attr("keep_stats", false).attr("begin_norm_axis", 1L).build(), "gamma", "[3,4]");
        rejected(Op.builder(0, OpKind.LayerNormBackward).inputs(t(0, 2, 3), t(1, 2, 3), t(2, 3), t(3, 2))
                .output(t(5, 2, 3)).attr("use_affine", false).build(), "mean", "expected the leading dims [2]");
        rejected(Op.builder(0, OpKind.GroupNorm).input(t(0, 1, 6, 4)).output(t(1, 1, 6, 4)).attr("groups", 4L)
                .attr("keep_stats", false).attr("use_affine", false).attr("data_format", "NCX").build(),
                "groups 4 does not divide", "= 6");
        rejected(Op.builder(0, OpKind.GroupNorm).inputs(t(0, 1, 4, 6), t(1, 4), t(2, 6)).output(t(3, 1, 4, 6))
                .attr("groups", 2L).attr("keep_stats", false).build(), "gamma", "has 4 elements");
        rejected(Op.builder(0, OpKind.RMSNorm).inputs(t(0, 2, 4), t(1, 3)).output(t(2, 2, 4)).build(), "gamma",
                "do not broadcast");
        rejected(reduce(t(0, 2, 3), new long[] {1, -1}, true), "twice", "unique");
        rejected(Op.builder(0, OpKind.ReduceSum).input(t(0, 2, 3)).output(t(1, 2, 3)).attr("axes", new long[] {1})
                .attr("keep_dims", true).build(), "declared [2,3]", "inputs give [2,1]");
    }
}
