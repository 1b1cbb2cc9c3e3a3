package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.dimsToString;

import java.util.Arrays;
import java.util.Set;
import java.util.function.Consumer;

import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.ShapeContext;
import io.partita.runtime.schema.ShapeRules;

/**
 * Schemas of the Partita extension ops that select and index (added for ONNX): PartitaArgMax and
 * PartitaArgMin (index of the extreme value along one axis, s64), PartitaReduce (a reduction whose
 * axes are an input, possibly known only at execution, with ONNX's reduction modes), PartitaGather
 * and PartitaGatherElements (indexing by an index tensor known only at execution), PartitaCompare
 * (elementwise comparisons giving booleans).
 */
public final class ExtensionSchemas {
    private ExtensionSchemas() {
    }

    /** The reduction modes of PartitaReduce (ONNX's Reduce* ops). */
    public static final String[] REDUCE_MODES = {"sum", "mean", "max", "min", "prod", "l1", "l2", "sum_square",
        "log_sum", "log_sum_exp"};

    private static final DataType[] VALUE_TYPES = {DataType.F32, DataType.BF16, DataType.F16, DataType.S32,
        DataType.S64, DataType.S8, DataType.U8};
    /** The comparisons of PartitaCompare. */
    public static final String[] COMPARE_MODES = {"less", "less_equal", "greater", "greater_equal", "equal"};

    private static final Set<DataType> INDEX_TYPES = Set.of(DataType.S32, DataType.S64);

    public static void register(Consumer<OpSchemaImpl> r) {
        for (OpKind kind : new OpKind[] {OpKind.PartitaArgMax, OpKind.PartitaArgMin}) {
            r.accept(OpSchemaImpl.builder(kind)
                    .typeVar("T", VALUE_TYPES)
                    .input("src", "T")
                    .output("dst", Set.of(DataType.S64))
                    .attr("axis", 0L)
                    .attr("keep_dims", true)
                    .attr("select_last_index", false)
                    .shape(ExtensionSchemas::inferArg)
                    .build());
        }
        r.accept(OpSchemaImpl.builder(OpKind.PartitaReduce)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .input("axes", INDEX_TYPES, ValueDomain.AXES)
                .output("dst", "T")
                .attr("mode", "sum", REDUCE_MODES)
                .attr("keep_dims", true)
                .validator(ExtensionSchemas::checkAxesInput)
                .shape(ExtensionSchemas::inferReduce)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaCompare)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16, DataType.S32, DataType.S64, DataType.S8,
                        DataType.U8, DataType.BOOLEAN)
                .input("src_0", "T")
                .input("src_1", "T")
                .output("dst", Set.of(DataType.BOOLEAN))
                .attr("mode", "less", COMPARE_MODES)
                .attr("auto_broadcast", "numpy", "none", "numpy")
                .shape(ctx -> ctx.setOutput(0, ShapeRules.autoBroadcast(ctx, 0, 1)))
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaGather)
                .typeVar("T", VALUE_TYPES)
                .input("src", "T")
                .input("indices", INDEX_TYPES, ValueDomain.ANY)
                .output("dst", "T")
                .attr("axis", 0L)
                .shape(ExtensionSchemas::inferGather)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaGatherElements)
                .typeVar("T", VALUE_TYPES)
                .input("src", "T")
                .input("indices", INDEX_TYPES, ValueDomain.ANY)
                .output("dst", "T")
                .attr("axis", 0L)
                .shape(ExtensionSchemas::inferGatherElements)
                .build());
    }

    /** The axis attribute normalized against {@code rank}; an error naming the op when out of range. */
    static int axis(ShapeContext ctx, long[] src, String what) {
        long axis = ctx.op().longAttr("axis");
        int a = Dims.normalizeAxis(axis, src.length);
        if (a < 0) {
            throw ctx.error("axis " + axis + " is out of range for " + what + " " + dimsToString(src) + "; expected "
                    + "an axis in [" + -src.length + ", " + (src.length - 1) + "]");
        }
        return a;
    }

    private static void inferArg(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        if (src.length == 0) {
            throw ctx.error("src is a scalar; expected rank >= 1");
        }
        int a = axis(ctx, src, "src");
        if (src[a] == 0) {
            throw ctx.error("src " + dimsToString(src) + " has no elements along axis " + a
                    + "; expected at least one to select from");
        }
        boolean[] reduced = new boolean[src.length];
        reduced[a] = true;
        ctx.setOutput(0, ReductionSchemas.outputDims(src, reduced, ctx.op().boolAttr("keep_dims")));
    }

    private static void checkAxesInput(Op op) {
        long[] d = op.input(1).dims();
        if (d != null && d.length != 1) {
            throw new InvalidGraphException(op.id(), op.describe() + ": input axes (tensor " + op.input(1).id()
                    + ") has dims " + dimsToString(d) + "; expected a 1-D tensor");
        }
    }

    /** Axes known: the reduced dims; axes known only at execution: the rank (from the axes count). */
    private static void inferReduce(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        boolean keep = ctx.op().boolAttr("keep_dims");
        long[] axes = ctx.values(1);
        if (axes != null) {
            boolean[] reduced;
            if (axes.length == 0) {
                reduced = new boolean[src.length];
                Arrays.fill(reduced, true);
            } else {
                reduced = ReductionSchemas.reducedAxes(ctx, axes, src.length);
            }
            ctx.setOutput(0, ReductionSchemas.outputDims(src, reduced, keep));
            return;
        }
        long[] ad = ctx.dims(1);
        if (ad == null || ad.length != 1 || ad[0] < 0) {
            return;
        }
        if (ad[0] > src.length) {
            throw ctx.error("axes input (tensor " + ctx.input(1).id() + ") has " + ad[0] + " values for src "
                    + dimsToString(src) + "; expected at most " + src.length + " (unique axes)");
        }
        int rank = keep ? src.length : ad[0] == 0 ? 0 : src.length - (int) ad[0];
        long[] out = new long[rank];
        Arrays.fill(out, LogicalTensor.DYNAMIC_DIM);
        ctx.setOutput(0, out);
    }

    private static void inferGather(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        long[] idx = ctx.dims(1);
        if (src == null || idx == null) {
            return;
        }
        if (src.length == 0) {
            throw ctx.error("src is a scalar; expected rank >= 1");
        }
        int a = axis(ctx, src, "src");
        long[] out = new long[src.length - 1 + idx.length];
        System.arraycopy(src, 0, out, 0, a);
        System.arraycopy(idx, 0, out, a, idx.length);
        System.arraycopy(src, a + 1, out, a + idx.length, src.length - a - 1);
        ctx.setOutput(0, out);
    }

    private static void inferGatherElements(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        long[] idx = ctx.dims(1);
        if (src == null || idx == null) {
            return;
        }
        if (src.length == 0 || idx.length != src.length) {
            throw ctx.error("indices " + dimsToString(idx) + " and src " + dimsToString(src)
                    + " must have the same rank >= 1");
        }
        int a = axis(ctx, src, "src");
        for (int i = 0; i < src.length; i++) {
            if (i != a && idx[i] >= 0 && src[i] >= 0 && idx[i] > src[i]) {
                throw ctx.error("indices " + dimsToString(idx) + " exceed src " + dimsToString(src) + " at dim " + i
                        + "; expected at most the src dim on every axis but " + a);
            }
        }
        ctx.setOutput(0, idx);
    }
}
