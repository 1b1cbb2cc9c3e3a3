package io.partita.formats.onnx;

import static io.partita.formats.onnx.OnnxBytes.floatTensor;
import static io.partita.formats.onnx.OnnxBytes.graph;
import static io.partita.formats.onnx.OnnxBytes.int64Tensor;
import static io.partita.formats.onnx.OnnxBytes.intAttr;
import static io.partita.formats.onnx.OnnxBytes.intsAttr;
import static io.partita.formats.onnx.OnnxBytes.list;
import static io.partita.formats.onnx.OnnxBytes.model;
import static io.partita.formats.onnx.OnnxBytes.node;
import static io.partita.formats.onnx.OnnxBytes.valueInfo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.GraphRuntime;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchemaRegistry;

/**
 * The translations to Partita extension ops: ArgMax/ArgMin, Gather/GatherElements with run-time
 * indices, Reduce* with run-time axes and the reductions oneDNN lacks; RMSNormalization to RMSNorm.
 */
class OnnxIndexAndReduceImportTest {
    private static final OpSchemaRegistry SCHEMAS = GraphRuntime.referenceOnly().opSchemas();
    private static final int FLOAT = 1;
    private static final int INT64 = 7;

    private static OnnxModel read(long opset, List<OnnxBytes> nodes, List<OnnxBytes> inits, List<OnnxBytes> inputs,
            List<OnnxBytes> outputs) {
        return OnnxModels.read(SCHEMAS, model(opset, graph(nodes, inits, inputs, outputs)).toByteArray(), "t.onnx");
    }

    private static List<OpKind> kinds(OnnxModel m) {
        return m.graph().ops().stream().map(Op::kind).toList();
    }

    @Test
    void argMaxAndArgMinBecomeExtensionOpsWithNormalizedAxis() {
        OnnxModel m = read(13, list(node("ArgMax", List.of("x"), List.of("y"), intAttr("axis", -1),
                intAttr("keepdims", 0), intAttr("select_last_index", 1))), list(),
                list(valueInfo("x", FLOAT, 2, 3, 5)), list(valueInfo("y", INT64, 2, 3)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.PartitaArgMax, op.kind());
        assertEquals(2L, op.longAttr("axis"));
        assertEquals(false, op.boolAttr("keep_dims"));
        assertEquals(true, op.boolAttr("select_last_index"));
        assertEquals(DataType.S64, op.output(0).dataType());
        assertArrayEquals(new long[] {2, 3}, op.output(0).dims());
        assertEquals(List.of(OpKind.PartitaArgMax), m.extensionOps());

        OnnxModel m11 = read(11, list(node("ArgMin", List.of("x"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 4, 3)), list(valueInfo("y", INT64, 1, 3)));
        Op min = m11.graph().ops().get(0);
        assertEquals(OpKind.PartitaArgMin, min.kind());
        assertArrayEquals(new long[] {1, 3}, min.output(0).dims());
    }

    @Test
    void argMaxRefusesSelectLastIndexBeforeVersion12AndABadAxis() {
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(11,
                list(node("ArgMax", List.of("x"), List.of("y"), intAttr("select_last_index", 1))), list(),
                list(valueInfo("x", FLOAT, 4)), list(valueInfo("y", INT64, 1))));
        assertTrue(e.getMessage().contains("ArgMax") && e.getMessage().contains("select_last_index"), e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read(13,
                list(node("ArgMin", List.of("x"), List.of("y"), intAttr("axis", 3))), list(),
                list(valueInfo("x", FLOAT, 4, 2)), list(valueInfo("y", INT64, 4, 1))));
        assertTrue(e.getMessage().contains("ArgMin") && e.getMessage().contains("axis 3"), e.getMessage());
    }

    @Test
    void gatherWithRunTimeIndicesIsAnExtensionOpAndWithConstantsIsFolded() {
        OnnxModel m = read(13, list(node("Gather", List.of("x", "i"), List.of("y"), intAttr("axis", 1))), list(),
                list(valueInfo("x", FLOAT, 2, 5), valueInfo("i", INT64, 3, 4)), list(valueInfo("y", FLOAT, 2, 3, 4)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.PartitaGather, op.kind());
        assertEquals(1L, op.longAttr("axis"));
        assertArrayEquals(new long[] {2, 3, 4}, op.output(0).dims());
        // Embedding: constant table, run-time indices
        OnnxModel emb = read(11, list(node("Gather", List.of("w", "i"), List.of("y"))),
                list(floatTensor("w", new long[] {3, 2}, 1, 2, 3, 4, 5, 6)),
                list(valueInfo("i", INT64, 4)), list(valueInfo("y", FLOAT, 4, 2)));
        assertEquals(List.of(OpKind.PartitaGather), kinds(emb));
        OnnxModel ge = read(13, list(node("GatherElements", List.of("x", "i"), List.of("y"), intAttr("axis", -1))),
                list(), list(valueInfo("x", FLOAT, 2, 5), valueInfo("i", INT64, 2, 2)),
                list(valueInfo("y", FLOAT, 2, 2)));
        assertEquals(OpKind.PartitaGatherElements, ge.graph().ops().get(0).kind());
        assertEquals(1L, ge.graph().ops().get(0).longAttr("axis"));
    }

    @Test
    void reduceWithRunTimeAxesIsPartitaReduceOfKnownRank() {
        OnnxModel m = read(13, list(node("ReduceSum", List.of("x", "a"), List.of("y"), intAttr("keepdims", 0))),
                list(), list(valueInfo("x", FLOAT, 3, 4, 5), valueInfo("a", INT64, 2)), list(valueInfo("y", FLOAT, 5)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.PartitaReduce, op.kind());
        assertEquals("sum", op.stringAttr("mode"));
        assertEquals(1, op.output(0).dims().length);
        assertEquals(LogicalTensor.DYNAMIC_DIM, op.output(0).dims()[0]);
        // constant axes keep the oneDNN reduction
        OnnxModel c = read(13, list(node("ReduceSum", List.of("x", "a"), List.of("y"))),
                list(int64Tensor("a", new long[] {1}, -1)), list(valueInfo("x", FLOAT, 3, 4)),
                list(valueInfo("y", FLOAT, 3, 1)));
        assertEquals(List.of(OpKind.ReduceSum), kinds(c));
    }

    @Test
    void emptyRunTimeAxesReduceEverythingOrCopyWithNoop() {
        OnnxModel all = read(18, list(node("ReduceMax", List.of("x", "a"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 3, 4), valueInfo("a", INT64, 0)), list(valueInfo("y", FLOAT, 1, 1)));
        Op op = all.graph().ops().get(0);
        assertEquals(OpKind.ReduceMax, op.kind());
        assertArrayEquals(new long[] {0, 1}, op.longsAttr("axes"));
        OnnxModel noop = read(18, list(node("ReduceMax", List.of("x", "a"), List.of("y"),
                intAttr("noop_with_empty_axes", 1))), list(),
                list(valueInfo("x", FLOAT, 3, 4), valueInfo("a", INT64, 0)), list(valueInfo("y", FLOAT, 3, 4)));
        assertEquals(List.of(OpKind.Reorder), kinds(noop));
    }

    @Test
    void reduceSumSquareLogSumAndLogSumExpUsePartitaReduceBeforeAndAfter18() {
        OnnxModel m = read(13, list(node("ReduceSumSquare", List.of("x"), List.of("y"), intsAttr("axes", 1))),
                list(), list(valueInfo("x", FLOAT, 3, 4)), list(valueInfo("y", FLOAT, 3, 1)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.PartitaReduce, op.kind());
        assertEquals("sum_square", op.stringAttr("mode"));
        assertArrayEquals(new long[] {3, 1}, op.output(0).dims());
        OnnxModel lse = read(18, list(node("ReduceLogSumExp", List.of("x", "a"), List.of("y"),
                intAttr("keepdims", 0))), list(int64Tensor("a", new long[] {1}, 0)),
                list(valueInfo("x", FLOAT, 3, 4)), list(valueInfo("y", FLOAT, 4)));
        Op l = lse.graph().ops().get(0);
        assertEquals("log_sum_exp", l.stringAttr("mode"));
        assertArrayEquals(new long[] {4}, l.output(0).dims());
    }

    @Test
    void rmsNormalizationIsRmsNormFromTheAxis() {
        OnnxModel m = read(23, list(node("RMSNormalization", List.of("x", "s"), List.of("y"), intAttr("axis", -2))),
                list(floatTensor("s", new long[] {4}, 1, 2, 3, 4)), list(valueInfo("x", FLOAT, 2, 3, 4)),
                list(valueInfo("y", FLOAT, 2, 3, 4)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.RMSNorm, op.kind());
        assertEquals(1L, op.longAttr("begin_norm_axis"));
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(23,
                list(node("RMSNormalization", List.of("x", "s"), List.of("y"))),
                list(floatTensor("s", new long[] {3}, 1, 2, 3)), list(valueInfo("x", FLOAT, 2, 4)),
                list(valueInfo("y", FLOAT, 2, 4))));
        assertTrue(e.getMessage().contains("RMSNormalization") && e.getMessage().contains("does not broadcast"),
                e.getMessage());
    }

    @Test
    void comparisonsArePartitaCompareGivingBooleans() {
        for (String[] c : new String[][] {{"Less", "less"}, {"LessOrEqual", "less_equal"}, {"Greater", "greater"},
            {"GreaterOrEqual", "greater_equal"}, {"Equal", "equal"}}) {
            OnnxModel m = read(16, list(node(c[0], List.of("a", "b"), List.of("y"))), list(),
                    list(valueInfo("a", FLOAT, 2, 3), valueInfo("b", FLOAT, 3)), list(valueInfo("y", 9, 2, 3)));
            Op op = m.graph().ops().get(0);
            assertEquals(OpKind.PartitaCompare, op.kind(), c[0]);
            assertEquals(c[1], op.stringAttr("mode"));
            assertEquals(DataType.BOOLEAN, op.output(0).dataType());
            assertArrayEquals(new long[] {2, 3}, op.output(0).dims());
        }
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(13,
                list(node("Less", List.of("a", "b"), List.of("y"))), list(),
                list(valueInfo("a", FLOAT, 3), valueInfo("b", INT64, 3)), list(valueInfo("y", 9, 3))));
        assertTrue(e.getMessage().contains("Less") && e.getMessage().contains("one data type"), e.getMessage());
    }

    @Test
    void rangeOfConstantsIsFoldedAndAKnownZeroDeltaRefused() {
        OnnxModel m = read(13, list(node("Range", List.of("s", "l", "d"), List.of("r")),
                node("Reshape", List.of("x", "r"), List.of("y"))),
                list(int64Tensor("s", new long[] {}, 3), int64Tensor("l", new long[] {}, 1),
                        int64Tensor("d", new long[] {}, -1)),
                list(valueInfo("x", FLOAT, 6)), list(valueInfo("y", FLOAT, 3, 2)));
        assertEquals(List.of(OpKind.StaticReshape), kinds(m));
        assertArrayEquals(new long[] {3, 2}, m.graph().ops().get(0).longsAttr("shape"));
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(13,
                list(node("Range", List.of("s", "l", "d"), List.of("y"))),
                list(int64Tensor("s", new long[] {}, 0), int64Tensor("d", new long[] {}, 0)),
                list(valueInfo("l", INT64)), list(valueInfo("y", INT64, 2))));
        assertTrue(e.getMessage().contains("Range") && e.getMessage().contains("delta is 0"), e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read(13,
                list(node("Range", List.of("s", "l", "d"), List.of("r")), node("Reshape", List.of("x", "r"),
                        List.of("y"))),
                list(int64Tensor("s", new long[] {}, 0), int64Tensor("l", new long[] {}, 4),
                        int64Tensor("d", new long[] {}, 0)),
                list(valueInfo("x", FLOAT, 6)), list(valueInfo("y", FLOAT, 6))));
        assertTrue(e.getMessage().contains("delta other than 0"), e.getMessage());
    }

    @Test
    void clipWithRunTimeOrCrossedBoundsIsMaximumThenMinimum() {
        OnnxModel m = read(13, list(node("Clip", List.of("x", "lo", "hi"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 4), valueInfo("lo", FLOAT), valueInfo("hi", FLOAT)),
                list(valueInfo("y", FLOAT, 4)));
        assertEquals(List.of(OpKind.Maximum, OpKind.Minimum), kinds(m));
        OnnxModel onlyMin = read(13, list(node("Clip", List.of("x", "lo"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 4), valueInfo("lo", FLOAT)), list(valueInfo("y", FLOAT, 4)));
        assertEquals(List.of(OpKind.Maximum), kinds(onlyMin));
        OnnxModel crossed = read(13, list(node("Clip", List.of("x", "lo", "hi"), List.of("y"))),
                list(floatTensor("lo", new long[] {}, 2), floatTensor("hi", new long[] {}, 1)),
                list(valueInfo("x", FLOAT, 4)), list(valueInfo("y", FLOAT, 4)));
        assertEquals(List.of(OpKind.Maximum, OpKind.Minimum), kinds(crossed));
        OnnxModel clamp = read(13, list(node("Clip", List.of("x", "lo", "hi"), List.of("y"))),
                list(floatTensor("lo", new long[] {}, -1), floatTensor("hi", new long[] {}, 1)),
                list(valueInfo("x", FLOAT, 4)), list(valueInfo("y", FLOAT, 4)));
        assertEquals(List.of(OpKind.Clamp), kinds(clamp));
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(13,
                list(node("Clip", List.of("x", "lo"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 4), valueInfo("lo", FLOAT, 2)), list(valueInfo("y", FLOAT, 4))));
        assertTrue(e.getMessage().contains("expected a scalar"), e.getMessage());
    }

    private static OnnxBytes stringAttr(String name, String v) {
        return OnnxBytes.message().string(1, name).int64(20, 3).string(4, v);
    }

    @Test
    void sliceOfRunTimeDataWithDefaultsAndOldAttributes() {
        OnnxModel m = read(13, list(node("Slice", List.of("x", "s", "e"), List.of("y"))),
                list(int64Tensor("s", new long[] {1}, 1), int64Tensor("e", new long[] {1}, 3)),
                list(valueInfo("x", FLOAT, 4, 2)), list(valueInfo("y", FLOAT, 2, 2)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.PartitaSlice, op.kind());
        assertEquals(5, op.inputs().size());
        assertArrayEquals(new long[] {2, 2}, op.output(0).dims());
        OnnxModel old = read(9, list(node("Slice", List.of("x"), List.of("y"), intsAttr("starts", -1),
                intsAttr("ends", 100), intsAttr("axes", 1))), list(), list(valueInfo("x", FLOAT, 4, 2)),
                list(valueInfo("y", FLOAT, 4, 1)));
        assertArrayEquals(new long[] {4, 1}, old.graph().ops().get(0).output(0).dims());
        // starts known only at execution: the output dims too
        OnnxModel dyn = read(13, list(node("Slice", List.of("x", "s", "e"), List.of("y"))),
                list(int64Tensor("e", new long[] {1}, 3)),
                list(valueInfo("x", FLOAT, 4, 2), valueInfo("s", INT64, 1)), list(valueInfo("y", FLOAT, 2, 2)));
        assertEquals(LogicalTensor.DYNAMIC_DIM, dyn.graph().ops().get(0).output(0).dims()[0]);
    }

    @Test
    void splitIsOnePartitaSplitPerOutput() {
        OnnxModel m = read(18, list(node("Split", List.of("x"), List.of("a", "b", "c"), intAttr("axis", -1),
                intAttr("num_outputs", 3))), list(), list(valueInfo("x", FLOAT, 2, 7)),
                list(valueInfo("a", FLOAT, 2, 3), valueInfo("b", FLOAT, 2, 3), valueInfo("c", FLOAT, 2, 1)));
        assertEquals(List.of(OpKind.PartitaSplit, OpKind.PartitaSplit, OpKind.PartitaSplit), kinds(m));
        assertArrayEquals(new long[] {2, 1}, m.graph().ops().get(2).output(0).dims());
        OnnxModel old = read(11, list(node("Split", List.of("x"), List.of("a", "b"), intsAttr("split", 1, 3))),
                list(), list(valueInfo("x", FLOAT, 4)), list(valueInfo("a", FLOAT, 1), valueInfo("b", FLOAT, 3)));
        assertArrayEquals(new long[] {3}, old.graph().ops().get(1).output(0).dims());
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(13,
                list(node("Split", List.of("x"), List.of("a", "b"))), list(), list(valueInfo("x", FLOAT, 5)),
                list(valueInfo("a", FLOAT, 2), valueInfo("b", FLOAT, 3))));
        assertTrue(e.getMessage().contains("Split") && e.getMessage().contains("equal parts"), e.getMessage());
    }

    @Test
    void padOldAndNewVersionsAndBadModes() {
        OnnxModel m = read(11, list(node("Pad", List.of("x", "p"), List.of("y"), stringAttr("mode", "reflect"))),
                list(int64Tensor("p", new long[] {4}, 0, 1, 0, 2)), list(valueInfo("x", FLOAT, 2, 3)),
                list(valueInfo("y", FLOAT, 2, 6)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.PartitaPad, op.kind());
        assertEquals("reflect", op.stringAttr("mode"));
        assertArrayEquals(new long[] {2, 6}, op.output(0).dims());
        OnnxModel v2 = read(6, list(node("Pad", List.of("x"), List.of("y"), intsAttr("pads", 1, 0, 1, 0),
                OnnxBytes.floatAttr("value", 2.5f))), list(), list(valueInfo("x", FLOAT, 2, 3)),
                list(valueInfo("y", FLOAT, 4, 3)));
        assertArrayEquals(new long[] {4, 3}, v2.graph().ops().get(0).output(0).dims());
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(18,
                list(node("Pad", List.of("x", "p"), List.of("y"), stringAttr("mode", "wrap"))),
                list(int64Tensor("p", new long[] {2}, 1, 1)), list(valueInfo("x", FLOAT, 3)),
                list(valueInfo("y", FLOAT, 5))));
        assertTrue(e.getMessage().contains("Pad") && e.getMessage().contains("mode 'wrap'"), e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read(13,
                list(node("Pad", List.of("x", "p"), List.of("y"))),
                list(int64Tensor("p", new long[] {2}, 1, 1)), list(valueInfo("x", FLOAT, 2, 3)),
                list(valueInfo("y", FLOAT, 4, 3))));
        assertTrue(e.getMessage().contains("expected 4"), e.getMessage());
    }

    @Test
    void tileAndExpandWithConstantAndRunTimeInputs() {
        OnnxModel t = read(13, list(node("Tile", List.of("x", "r"), List.of("y"))),
                list(int64Tensor("r", new long[] {2}, 2, 3)), list(valueInfo("x", FLOAT, 2, 3)),
                list(valueInfo("y", FLOAT, 4, 9)));
        assertEquals(OpKind.PartitaTile, t.graph().ops().get(0).kind());
        assertArrayEquals(new long[] {4, 9}, t.graph().ops().get(0).output(0).dims());
        OnnxModel ex = read(13, list(node("Expand", List.of("x", "s"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 3, 1), valueInfo("s", INT64, 3)), list(valueInfo("y", FLOAT, 2, 3, 4)));
        Op op = ex.graph().ops().get(0);
        assertEquals(OpKind.PartitaExpand, op.kind());
        assertEquals(3, op.output(0).dims().length);
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(13,
                list(node("Tile", List.of("x", "r"), List.of("y"))), list(int64Tensor("r", new long[] {1}, 2)),
                list(valueInfo("x", FLOAT, 2, 3)), list(valueInfo("y", FLOAT, 4, 3))));
        assertTrue(e.getMessage().contains("Tile") && e.getMessage().contains("repeats"), e.getMessage());
    }

    @Test
    void resizeIsInterpolateWhereExactAndPartitaResizeOtherwise() {
        OnnxModel lin = read(13, list(node("Resize", List.of("x", "", "s"), List.of("y"),
                stringAttr("mode", "linear"))), list(floatTensor("s", new long[] {4}, 1, 1, 2, 2)),
                list(valueInfo("x", FLOAT, 1, 2, 3, 4)), list(valueInfo("y", FLOAT, 1, 2, 6, 8)));
        Op op = lin.graph().ops().get(0);
        assertEquals(OpKind.Interpolate, op.kind());
        assertEquals("bilinear", op.stringAttr("mode"));
        assertArrayEquals(new long[] {6, 8}, op.longsAttr("sizes"));
        // 0.6 * 5 is not exactly 3 in float: ONNX's coordinates use 0.6, Interpolate would use 3 / 5
        OnnxModel inexact = read(13, list(node("Resize", List.of("x", "", "s"), List.of("y"),
                stringAttr("mode", "linear"))), list(floatTensor("s", new long[] {4}, 1, 1, 0.6f, 1)),
                list(valueInfo("x", FLOAT, 1, 1, 5, 4)), list(valueInfo("y", FLOAT, 1, 1, 3, 4)));
        Op r = inexact.graph().ops().get(0);
        assertEquals(OpKind.PartitaResize, r.kind());
        assertArrayEquals(new long[] {1, 1, 3, 4}, r.output(0).dims());
        OnnxModel nearest = read(19, list(node("Resize", List.of("x", "", "", "z"), List.of("y"),
                intsAttr("axes", -1))), list(), list(valueInfo("x", FLOAT, 2, 3), valueInfo("z", INT64, 1)),
                list(valueInfo("y", FLOAT, 2, 7)));
        Op n = nearest.graph().ops().get(0);
        assertEquals(OpKind.PartitaResize, n.kind());
        assertArrayEquals(new long[] {1}, n.longsAttr("axes"));
        assertEquals(LogicalTensor.DYNAMIC_DIM, n.output(0).dims()[1]);
    }

    @Test
    void resizeRefusesRunTimeScalesAndAttributesOfLaterVersions() {
        // run-time scales: the dims of a declared graph output, checked at execution
        OnnxModel declared = read(13, list(node("Resize", List.of("x", "", "s"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 1, 1, 2, 2), valueInfo("s", FLOAT, 4)),
                list(valueInfo("y", FLOAT, 1, 1, 4, 4)));
        Op op = declared.graph().ops().get(0);
        assertEquals(OpKind.PartitaResize, op.kind());
        assertArrayEquals(new long[] {1, 1, 4, 4}, op.longsAttr("dst_dims"));
        assertArrayEquals(new long[] {1, 1, 4, 4}, op.output(0).dims());
        // ... and refused for an intermediate tensor, whose dims nothing declares
        UnsupportedOnnxException u = assertThrows(UnsupportedOnnxException.class, () -> read(13,
                list(node("Resize", List.of("x", "", "s"), List.of("r")), node("Relu", List.of("r"), List.of("y"))),
                list(), list(valueInfo("x", FLOAT, 1, 1, 2, 2), valueInfo("s", FLOAT, 4)),
                list(valueInfo("y", FLOAT, 1, 1, 4, 4))));
        assertTrue(u.getMessage().contains("Resize") && u.getMessage().contains("scales known only at execution"),
                u.getMessage());
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(13,
                list(node("Resize", List.of("x", "", "s"), List.of("y"), intAttr("antialias", 1),
                        stringAttr("mode", "linear"))), list(floatTensor("s", new long[] {2}, 2, 2)),
                list(valueInfo("x", FLOAT, 2, 2)), list(valueInfo("y", FLOAT, 4, 4))));
        assertTrue(e.getMessage().contains("antialias exists from Resize 18"), e.getMessage());
        e = assertThrows(OnnxImportException.class, () -> read(18,
                list(node("Resize", List.of("x", "", "s"), List.of("y"),
                        stringAttr("coordinate_transformation_mode", "half_pixel_symmetric"))),
                list(floatTensor("s", new long[] {2}, 2, 2)),
                list(valueInfo("x", FLOAT, 2, 2)), list(valueInfo("y", FLOAT, 4, 4))));
        assertTrue(e.getMessage().contains("half_pixel_symmetric"), e.getMessage());
    }

    @Test
    void upsampleNearestIsAnAsymmetricFloorResize() {
        OnnxModel m = read(9, list(node("Upsample", List.of("x", "s"), List.of("y"))),
                list(floatTensor("s", new long[] {4}, 1, 1, 2, 3)), list(valueInfo("x", FLOAT, 1, 1, 2, 2)),
                list(valueInfo("y", FLOAT, 1, 1, 4, 6)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.PartitaResize, op.kind());
        assertEquals("asymmetric", op.stringAttr("coordinate_transformation_mode"));
        assertEquals("floor", op.stringAttr("nearest_mode"));
        assertArrayEquals(new long[] {1, 1, 4, 6}, op.output(0).dims());
    }

    @Test
    void anIntegerConstantGraphOutputIsAPartitaCopy() {
        OnnxModel m = read(13, list(node("Shape", List.of("x"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 2, 3)), list(valueInfo("y", INT64, 2)));
        assertEquals(List.of(OpKind.PartitaCopy), kinds(m));
        assertEquals(List.of(OpKind.PartitaCopy), m.extensionOps());
    }

    @Test
    void topKWithAttributeOrInputK() {
        OnnxModel m = read(11, list(node("TopK", List.of("x", "k"), List.of("v", "i"), intAttr("largest", 0))),
                list(int64Tensor("k", new long[] {1}, 2)), list(valueInfo("x", FLOAT, 3, 5)),
                list(valueInfo("v", FLOAT, 3, 2), valueInfo("i", INT64, 3, 2)));
        Op op = m.graph().ops().get(0);
        assertEquals(OpKind.PartitaTopK, op.kind());
        assertEquals(false, op.boolAttr("largest"));
        assertEquals(1L, op.longAttr("axis"));
        assertArrayEquals(new long[] {3, 2}, op.output(1).dims());
        OnnxModel v1 = read(9, list(node("TopK", List.of("x"), List.of("v", "i"), intAttr("k", 3), intAttr("axis", 0))),
                list(), list(valueInfo("x", FLOAT, 3, 5)),
                list(valueInfo("v", FLOAT, 3, 5), valueInfo("i", INT64, 3, 5)));
        assertArrayEquals(new long[] {3, 5}, v1.graph().ops().get(0).output(0).dims());
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(9,
                list(node("TopK", List.of("x"), List.of("v", "i"))), list(), list(valueInfo("x", FLOAT, 3)),
                list(valueInfo("v", FLOAT, 1), valueInfo("i", INT64, 1))));
        assertTrue(e.getMessage().contains("TopK") && e.getMessage().contains("attribute k"), e.getMessage());
    }

    @Test
    void squeezeAndUnsqueezeWithRunTimeAxes() {
        OnnxModel u = read(13, list(node("Unsqueeze", List.of("x", "a"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 3, 4), valueInfo("a", INT64, 2)), list(valueInfo("y", FLOAT, 1, 3, 4, 1)));
        Op op = u.graph().ops().get(0);
        assertEquals(OpKind.PartitaUnsqueeze, op.kind());
        assertEquals(4, op.output(0).dims().length);
        OnnxModel s2 = read(13, list(node("Squeeze", List.of("x", "a"), List.of("y"))), list(),
                list(valueInfo("x", FLOAT, 1, 3, 1), valueInfo("a", INT64, 1)), list(valueInfo("y", FLOAT, 3, 1)));
        assertEquals(OpKind.PartitaSqueeze, s2.graph().ops().get(0).kind());
        assertEquals(2, s2.graph().ops().get(0).output(0).dims().length);
        // constant axes stay a StaticReshape
        OnnxModel c = read(13, list(node("Unsqueeze", List.of("x", "a"), List.of("y"))),
                list(int64Tensor("a", new long[] {1}, 0)), list(valueInfo("x", FLOAT, 3)), list(valueInfo("y", FLOAT, 1, 3)));
        assertEquals(List.of(OpKind.StaticReshape), kinds(c));
    }

    @Test
    void thresholdedReluAndShrinkAreComparisonsAndSelections() {
        OnnxModel t = read(10, list(node("ThresholdedRelu", List.of("x"), List.of("y"),
                OnnxBytes.floatAttr("alpha", 2f))), list(), list(valueInfo("x", FLOAT, 4)), list(valueInfo("y", FLOAT, 4)));
        assertEquals(List.of(OpKind.PartitaCompare, OpKind.Select), kinds(t));
        assertEquals("greater", t.graph().ops().get(0).stringAttr("mode"));
        OnnxModel s = read(9, list(node("Shrink", List.of("x"), List.of("y"), OnnxBytes.floatAttr("lambd", 1.5f),
                OnnxBytes.floatAttr("bias", 1.5f))), list(), list(valueInfo("x", FLOAT, 5)),
                list(valueInfo("y", FLOAT, 5)));
        assertEquals(List.of(OpKind.Add, OpKind.Subtract, OpKind.PartitaCompare, OpKind.Select, OpKind.PartitaCompare,
                OpKind.Select), kinds(s));
    }

    @Test
    void lrnCumSumFloorCeilMeanGroupNormAndDropoutMask() {
        OnnxModel lrn = read(13, list(node("LRN", List.of("x"), List.of("y"), intAttr("size", 3))), list(),
                list(valueInfo("x", FLOAT, 1, 4, 2, 2)), list(valueInfo("y", FLOAT, 1, 4, 2, 2)));
        assertEquals(3L, lrn.graph().ops().get(0).longAttr("size"));
        assertEquals(OpKind.PartitaLRN, lrn.graph().ops().get(0).kind());
        OnnxModel cs = read(14, list(node("CumSum", List.of("x", "a"), List.of("y"), intAttr("reverse", 1))),
                list(int64Tensor("a", new long[] {}, 0)), list(valueInfo("x", FLOAT, 3)), list(valueInfo("y", FLOAT, 3)));
        assertEquals(true, cs.graph().ops().get(0).boolAttr("reverse"));
        OnnxModel fc = read(13, list(node("Floor", List.of("x"), List.of("f")), node("Ceil", List.of("f"), List.of("y"))),
                list(), list(valueInfo("x", FLOAT, 3)), list(valueInfo("y", FLOAT, 3)));
        assertEquals(List.of(OpKind.PartitaFloor, OpKind.PartitaCeil), kinds(fc));
        OnnxModel mean = read(13, list(node("Mean", List.of("a", "b", "c"), List.of("y"))), list(),
                list(valueInfo("a", FLOAT, 3), valueInfo("b", FLOAT, 3), valueInfo("c", FLOAT, 3)),
                list(valueInfo("y", FLOAT, 3)));
        assertEquals(List.of(OpKind.Add, OpKind.Add, OpKind.Divide), kinds(mean));
        OnnxModel gn = read(21, list(node("GroupNormalization", List.of("x", "s", "b"), List.of("y"),
                intAttr("num_groups", 2))), list(floatTensor("s", new long[] {4}, 1, 1, 1, 1),
                floatTensor("b", new long[] {4}, 0, 0, 0, 0)), list(valueInfo("x", FLOAT, 1, 4, 3)),
                list(valueInfo("y", FLOAT, 1, 4, 3)));
        assertEquals(2L, gn.graph().ops().get(0).longAttr("groups"));
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(21,
                list(node("GroupNormalization", List.of("x", "s", "b"), List.of("y"), intAttr("num_groups", 3))),
                list(floatTensor("s", new long[] {4}, 1, 1, 1, 1), floatTensor("b", new long[] {4}, 0, 0, 0, 0)),
                list(valueInfo("x", FLOAT, 1, 4, 3)), list(valueInfo("y", FLOAT, 1, 4, 3))));
        assertTrue(e.getMessage().contains("GroupNormalization") && e.getMessage().contains("does not divide"),
                e.getMessage());
        OnnxModel drop = read(13, list(node("Dropout", List.of("x"), List.of("y", "m"))), list(),
                list(valueInfo("x", FLOAT, 2, 2)), list(valueInfo("y", FLOAT, 2, 2), valueInfo("m", 9, 2, 2)));
        assertEquals(List.of(OpKind.Reorder, OpKind.PartitaCopy), kinds(drop));
    }

    @Test
    void integerMaxMinWhereClipAndBooleanReduceUseExtensionOps() {
        int int32 = 6;
        OnnxModel max = read(13, list(node("Max", List.of("a", "b"), List.of("y"))), list(),
                list(valueInfo("a", int32, 3), valueInfo("b", int32, 3)), list(valueInfo("y", int32, 3)));
        assertEquals(List.of(OpKind.PartitaMaximum), kinds(max));
        OnnxModel fmax = read(13, list(node("Max", List.of("a", "b"), List.of("y"))), list(),
                list(valueInfo("a", FLOAT, 3), valueInfo("b", FLOAT, 3)), list(valueInfo("y", FLOAT, 3)));
        assertEquals(List.of(OpKind.Maximum), kinds(fmax));
        OnnxModel where = read(16, list(node("Where", List.of("c", "a", "b"), List.of("y"))), list(),
                list(valueInfo("c", 9, 3), valueInfo("a", INT64, 3), valueInfo("b", INT64, 3)),
                list(valueInfo("y", INT64, 3)));
        assertEquals(List.of(OpKind.PartitaSelect), kinds(where));
        OnnxModel clip = read(13, list(node("Clip", List.of("x", "lo"), List.of("y"))),
                list(), list(valueInfo("x", int32, 3), valueInfo("lo", int32)), list(valueInfo("y", int32, 3)));
        assertEquals(List.of(OpKind.PartitaMaximum), kinds(clip));
        OnnxModel any = read(20, list(node("ReduceMax", List.of("x"), List.of("y"), intAttr("keepdims", 0))), list(),
                list(valueInfo("x", 9, 2, 3)), list(valueInfo("y", 9)));
        assertEquals(List.of(OpKind.PartitaReduce), kinds(any));
    }

    private static Op convTranspose(OnnxBytes... attrs) {
        float[] w = new float[9];
        java.util.Arrays.fill(w, 1);
        return read(22, list(node("ConvTranspose", List.of("x", "w"), List.of("y"), attrs)),
                list(floatTensor("w", new long[] {1, 1, 3, 3}, w)), list(valueInfo("x", FLOAT, 1, 1, 3, 3)),
                list(valueInfo("y", FLOAT, 1, 1, 6, 6))).graph().ops().get(0);
    }

    @Test
    void convTransposeOutputShapeAndSamePadsFollowOnnxsSplit() {
        // total padding per dim: 2 * (3 - 1) + 3 - out
        Op upper = convTranspose(intsAttr("strides", 2, 2), stringAttr("auto_pad", "SAME_UPPER"));
        assertArrayEquals(new long[] {0, 0}, upper.longsAttr("pads_begin"));
        assertArrayEquals(new long[] {1, 1}, upper.longsAttr("pads_end"));
        Op lower = convTranspose(intsAttr("strides", 2, 2), stringAttr("auto_pad", "SAME_LOWER"));
        assertArrayEquals(new long[] {1, 1}, lower.longsAttr("pads_begin"));
        assertArrayEquals(new long[] {0, 0}, lower.longsAttr("pads_end"));
        // output 8 needs total -1: the end is extended by output_padding
        Op shape = convTranspose(intsAttr("strides", 2, 2), intsAttr("output_shape", 8, 7));
        assertArrayEquals(new long[] {0, 0}, shape.longsAttr("pads_begin"));
        assertArrayEquals(new long[] {0, 0}, shape.longsAttr("pads_end"));
        assertArrayEquals(new long[] {1, 0}, shape.longsAttr("output_padding"));
        assertArrayEquals(new long[] {1, 1, 8, 7}, shape.output(0).dims());
        UnsupportedOnnxException e = assertThrows(UnsupportedOnnxException.class,
                () -> convTranspose(intsAttr("strides", 2, 2), intsAttr("output_shape", 10, 7)));
        assertTrue(e.getMessage().contains("ConvTranspose") && e.getMessage().contains("at the beginning"),
                e.getMessage());
    }

    @Test
    void rangeWithRunTimeIntegerBoundsIsPartitaRangeAtOpsets11And27() {
        for (long opset : new long[] {11, 27}) {
            OnnxModel m = read(opset, list(node("Range", List.of("s", "l", "d"), List.of("y"))), list(),
                    list(valueInfo("s", INT64), valueInfo("l", INT64), valueInfo("d", INT64)),
                    list(valueInfo("y", INT64, 3)));
            assertEquals(List.of(OpKind.PartitaRange), kinds(m), "opset " + opset);
            assertEquals(opset, m.opset());
        }
        UnsupportedOnnxException u = assertThrows(UnsupportedOnnxException.class, () -> read(11,
                list(node("Range", List.of("s", "l", "d"), List.of("y"))), list(),
                list(valueInfo("s", FLOAT), valueInfo("l", FLOAT), valueInfo("d", FLOAT)),
                list(valueInfo("y", FLOAT, 3))));
        assertTrue(u.getMessage().contains("Range") && u.getMessage().contains("depend on float values"),
                u.getMessage());
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(11,
                list(node("Range", List.of("s", "l", "d"), List.of("y"), intAttr("stash_type", 1))), list(),
                list(valueInfo("s", INT64), valueInfo("l", INT64), valueInfo("d", INT64)),
                list(valueInfo("y", INT64, 3))));
        assertTrue(e.getMessage().contains("stash_type exists from Range 27"), e.getMessage());
        u = assertThrows(UnsupportedOnnxException.class, () -> read(27,
                list(node("Range", List.of("s", "l", "d"), List.of("y"), intAttr("stash_type", 0))), list(),
                list(valueInfo("s", INT64), valueInfo("l", INT64), valueInfo("d", INT64)),
                list(valueInfo("y", INT64, 3))));
        assertTrue(u.getMessage().contains("stash_type 0"), u.getMessage());
    }

    @Test
    void rangeWithConstantBoundsIsFoldedAndAZeroDeltaIsRefused() {
        OnnxModel m = read(27, list(node("Range", List.of("s", "l", "d"), List.of("r")),
                node("Add", List.of("x", "r"), List.of("y"))),
                list(int64Tensor("s", new long[] {}, 10), int64Tensor("l", new long[] {}, 4),
                        int64Tensor("d", new long[] {}, -2)),
                list(valueInfo("x", INT64, 3)), list(valueInfo("y", INT64, 3)));
        assertTrue(kinds(m).stream().noneMatch(k -> k == OpKind.PartitaRange), kinds(m).toString());
        OnnxImportException e = assertThrows(OnnxImportException.class, () -> read(27,
                list(node("Range", List.of("s", "l", "d"), List.of("y"))),
                list(int64Tensor("s", new long[] {}, 1), int64Tensor("l", new long[] {}, 4),
                        int64Tensor("d", new long[] {}, 0)), list(), list(valueInfo("y", INT64, 3))));
        assertTrue(e.getMessage().contains("delta other than 0"), e.getMessage());
    }
}
