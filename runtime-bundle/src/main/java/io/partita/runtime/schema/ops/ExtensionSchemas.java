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
import io.partita.spi.IndexParams;

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

    /** Every numeric type the reference kernels of these ops handle, Partita's extension types included. */
    static final DataType[] VALUE_TYPES = {DataType.F32, DataType.BF16, DataType.F16, DataType.S32,
        DataType.S64, DataType.S8, DataType.U8, DataType.F64, DataType.S16, DataType.U16, DataType.U64};
    /** The comparisons of PartitaCompare. */
    public static final String[] COMPARE_MODES = {"less", "less_equal", "greater", "greater_equal", "equal"};

    private static final DataType[] VALUE_TYPES_AND_BOOLEAN = {DataType.F32, DataType.BF16, DataType.F16,
        DataType.S32, DataType.S64, DataType.S8, DataType.U8, DataType.F64, DataType.S16, DataType.U16,
        DataType.U64, DataType.BOOLEAN};
    private static final Set<DataType> SIZES_OR_SCALES = Set.of(DataType.S32, DataType.S64, DataType.F32);
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
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16, DataType.F64, DataType.BOOLEAN)
                .input("src", "T")
                .input("axes", INDEX_TYPES, ValueDomain.AXES)
                .output("dst", "T")
                .attr("mode", "sum", REDUCE_MODES)
                .attr("keep_dims", true)
                .validator(ExtensionSchemas::checkAxesInput)
                .shape(ExtensionSchemas::inferReduce)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaCompare)
                .typeVar("T", VALUE_TYPES_AND_BOOLEAN)
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
        r.accept(OpSchemaImpl.builder(OpKind.PartitaResize)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .optionalInput("sizes", SIZES_OR_SCALES, ValueDomain.SHAPE)
                .optionalInput("roi", Set.of(DataType.F32), ValueDomain.ANY)
                .output("dst", "T")
                .attr("axes", new long[0])
                .attr("scales", new float[0])
                .attr("dst_dims", new long[0])
                .attr("mode", "nearest", "nearest", "linear", "cubic")
                .attr("coordinate_transformation_mode", "half_pixel", RESIZE_COORDINATE_MODES)
                .attr("nearest_mode", "round_prefer_floor", "round_prefer_floor", "round_prefer_ceil", "floor",
                        "ceil")
                .attr("cubic_coeff_a", -0.75f)
                .attr("exclude_outside", false)
                .attr("extrapolation_value", 0f)
                .attr("antialias", false)
                .attr("keep_aspect_ratio_policy", "stretch", "stretch", "not_larger", "not_smaller")
                .validator(ExtensionSchemas::checkResize)
                .shape(ExtensionSchemas::inferResize)
                .build());
        for (OpKind kind : new OpKind[] {OpKind.PartitaCopy, OpKind.PartitaCast}) {
            // A copy keeps src's data type; a cast's dst has its own.
            r.accept(OpSchemaImpl.builder(kind)
                    .typeVar("T1", VALUE_TYPES_AND_BOOLEAN)
                    .typeVar("T2", VALUE_TYPES_AND_BOOLEAN)
                    .input("src", "T1")
                    .output("dst", kind == OpKind.PartitaCopy ? "T1" : "T2")
                    .shape(ctx -> {
                        if (ctx.dims(0) != null) {
                            ctx.sameAsInput(0, 0);
                        }
                    })
                    .build());
        }
        r.accept(OpSchemaImpl.builder(OpKind.PartitaRange)
                .typeVar("T", DataType.S32, DataType.S64)
                .input("start", "T", ValueDomain.SHAPE)
                .input("limit", "T", ValueDomain.SHAPE)
                .input("delta", "T", ValueDomain.SHAPE)
                .output("dst", "T")
                .shape(ExtensionSchemas::inferRange)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaTopK)
                .typeVar("T", VALUE_TYPES)
                .input("src", "T")
                .input("k", INDEX_TYPES, ValueDomain.SHAPE)
                .output("values", "T")
                .output("indices", Set.of(DataType.S64))
                .attr("axis", -1L)
                .attr("largest", true)
                .shape(ExtensionSchemas::inferTopK)
                .build());
        for (OpKind kind : new OpKind[] {OpKind.PartitaSqueeze, OpKind.PartitaUnsqueeze}) {
            r.accept(OpSchemaImpl.builder(kind)
                    .typeVar("T", VALUE_TYPES_AND_BOOLEAN)
                    .input("src", "T")
                    .input("axes", INDEX_TYPES, ValueDomain.SHAPE)
                    .output("dst", "T")
                    .shape(kind == OpKind.PartitaSqueeze ? ExtensionSchemas::inferSqueeze
                            : ExtensionSchemas::inferUnsqueeze)
                    .build());
        }
        r.accept(OpSchemaImpl.builder(OpKind.PartitaLRN)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .output("dst", "T")
                .attr("alpha", 1e-4f)
                .attr("beta", 0.75f)
                .attr("bias", 1f)
                .requiredAttr("size", io.partita.graph.AttrType.S64)
                .validator(op -> {
                    if (op.longAttr("size") < 1) {
                        throw new InvalidGraphException(op.id(), op.describe() + ": size " + op.longAttr("size")
                                + "; expected at least 1");
                    }
                })
                .shape(ctx -> {
                    ctx.requireMinRank(0, 2);
                    if (ctx.dims(0) != null) {
                        ctx.sameAsInput(0, 0);
                    }
                })
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaCumSum)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16, DataType.S32, DataType.S64, DataType.F64,
                        DataType.U64)
                .input("src", "T")
                .input("axis", INDEX_TYPES, ValueDomain.AXES)
                .output("dst", "T")
                .attr("exclusive", false)
                .attr("reverse", false)
                .shape(ctx -> {
                    long[] a = ctx.dims(1);
                    if (a != null && a.length > 1 || a != null && a.length == 1 && a[0] != 1) {
                        throw ctx.error("axis has dims " + dimsToString(a) + "; expected a scalar");
                    }
                    ctx.requireMinRank(0, 1);
                    if (ctx.dims(0) != null) {
                        ctx.sameAsInput(0, 0);
                    }
                })
                .build());
        for (OpKind kind : new OpKind[] {OpKind.PartitaFloor, OpKind.PartitaCeil}) {
            r.accept(OpSchemaImpl.builder(kind)
                    .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                    .input("src", "T")
                    .output("dst", "T")
                    .shape(ctx -> {
                        if (ctx.dims(0) != null) {
                            ctx.sameAsInput(0, 0);
                        }
                    })
                    .build());
        }
        for (OpKind kind : new OpKind[] {OpKind.PartitaMaximum, OpKind.PartitaMinimum}) {
            r.accept(OpSchemaImpl.builder(kind)
                    .typeVar("T", VALUE_TYPES)
                    .input("src_0", "T")
                    .input("src_1", "T")
                    .output("dst", "T")
                    .attr("auto_broadcast", "numpy", "none", "numpy")
                    .shape(ctx -> ctx.setOutput(0, ShapeRules.autoBroadcast(ctx, 0, 1)))
                    .build());
        }
        r.accept(OpSchemaImpl.builder(OpKind.PartitaSelect)
                .typeVar("T", VALUE_TYPES_AND_BOOLEAN)
                .input("cond", Set.of(DataType.BOOLEAN), ValueDomain.BOOLEAN)
                .input("src_0", "T")
                .input("src_1", "T")
                .output("dst", "T")
                .attr("auto_broadcast", "numpy", "none", "numpy")
                .shape(BinarySchemas::inferSelect)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaSlice)
                .typeVar("T", VALUE_TYPES)
                .input("src", "T")
                .input("starts", INDEX_TYPES, ValueDomain.SHAPE)
                .input("ends", INDEX_TYPES, ValueDomain.SHAPE)
                .input("axes", INDEX_TYPES, ValueDomain.SHAPE)
                .input("steps", INDEX_TYPES, ValueDomain.SHAPE)
                .output("dst", "T")
                .shape(ExtensionSchemas::inferSlice)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaSplit)
                .typeVar("T", VALUE_TYPES)
                .input("src", "T")
                .optionalInput("split", INDEX_TYPES, ValueDomain.SHAPE)
                .output("dst", "T")
                .attr("axis", 0L)
                .requiredAttr("index", io.partita.graph.AttrType.S64)
                .attr("num_outputs", 0L)
                .shape(ExtensionSchemas::inferSplit)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaPad)
                .typeVar("T", VALUE_TYPES)
                .input("src", "T")
                .input("pads", INDEX_TYPES, ValueDomain.SHAPE)
                .input("value", "T")
                .optionalInput("axes", INDEX_TYPES, ValueDomain.SHAPE)
                .output("dst", "T")
                .attr("mode", "constant", PAD_MODES)
                .shape(ExtensionSchemas::inferPad)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaTile)
                .typeVar("T", VALUE_TYPES)
                .input("src", "T")
                .input("repeats", INDEX_TYPES, ValueDomain.SHAPE)
                .output("dst", "T")
                .shape(ExtensionSchemas::inferTile)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaExpand)
                .typeVar("T", VALUE_TYPES)
                .input("src", "T")
                .input("shape", INDEX_TYPES, ValueDomain.SHAPE)
                .output("dst", "T")
                .shape(ExtensionSchemas::inferExpand)
                .build());
    }

    /** The coordinate transformation modes of PartitaResize (ONNX's). */
    public static final String[] RESIZE_COORDINATE_MODES = {"half_pixel", "half_pixel_symmetric",
        "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"};

    /** Whether a PartitaResize takes its scales from input 1 (f32) rather than sizes (s32/s64) or the attribute. */
    public static boolean scalesInput(Op op) {
        return op.inputs().size() > 1 && op.input(1).dataType() == DataType.F32;
    }

    private static void checkResize(Op op) {
        boolean scales = op.floatsAttr("scales").length > 0;
        boolean sizes = op.inputs().size() > 1;
        long[] srcDims = op.input(0).dims();
        if (scalesInput(op) && (op.longsAttr("dst_dims").length == 0
                || srcDims != null && op.longsAttr("dst_dims").length != srcDims.length)) {
            throw new InvalidGraphException(op.id(), op.describe() + ": scales given as an input need the attribute "
                    + "dst_dims (the output dims, checked at execution) of the src rank");
        }
        if (scales == sizes) {
            throw new InvalidGraphException(op.id(), op.describe() + ": has " + (scales ? "both" : "neither")
                    + " the attribute scales and the input sizes; expected exactly one of them");
        }
        for (float f : op.floatsAttr("scales")) {
            if (!(f > 0) || !Float.isFinite(f)) {
                throw new InvalidGraphException(op.id(), op.describe() + ": scales "
                        + Arrays.toString(op.floatsAttr("scales")) + "; expected positive finite scales");
            }
        }
        boolean crop = op.stringAttr("coordinate_transformation_mode").equals("tf_crop_and_resize");
        if (crop != (op.inputs().size() > 2)) {
            throw new InvalidGraphException(op.id(), op.describe() + ": the roi input is "
                    + (crop ? "required by" : "only read by") + " coordinate_transformation_mode tf_crop_and_resize");
        }
        if (op.boolAttr("antialias") && op.stringAttr("mode").equals("nearest")) {
            throw new InvalidGraphException(op.id(), op.describe() + ": antialias applies to linear and cubic "
                    + "modes only");
        }
    }

    /** Output dims and the scale of every src axis (1 where not resized). */
    public record ResizePlan(long[] out, double[] scale) {
    }

    /**
     * The output dims and per-axis scales of a resize (ONNX's rules): from scales, out = floor(in * scale);
     * from sizes, stretch takes them as given (scale out / in), not_larger / not_smaller take the
     * smallest / largest ratio over the axes as one scale and out = round(scale * in) (half to even).
     */
    public static ResizePlan resizePlan(long[] src, long[] axesAttr, float[] scales, long[] sizes, String policy,
            java.util.function.Function<String, RuntimeException> error) {
        int rank = src.length;
        long[] axes = axesAttr;
        if (axes.length == 0) {
            axes = new long[rank];
            for (int i = 0; i < rank; i++) {
                axes[i] = i;
            }
        }
        int[] ax = new int[axes.length];
        boolean[] seen = new boolean[rank];
        for (int k = 0; k < axes.length; k++) {
            int a = Dims.normalizeAxis(axes[k], rank);
            if (a < 0 || seen[a]) {
                throw error.apply("axes " + Arrays.toString(axes) + ": axis " + axes[k] + " is out of range or "
                        + "repeated for rank " + rank);
            }
            seen[a] = true;
            ax[k] = a;
        }
        int n = scales.length > 0 ? scales.length : sizes.length;
        if (n != ax.length) {
            throw error.apply((scales.length > 0 ? "scales " + Arrays.toString(scales) : "sizes "
                    + Arrays.toString(sizes)) + " has " + n + " values; expected " + ax.length + " (one per axis)");
        }
        long[] out = src.clone();
        double[] scale = new double[rank];
        Arrays.fill(scale, 1);
        if (scales.length > 0) {
            for (int k = 0; k < ax.length; k++) {
                scale[ax[k]] = scales[k];
                out[ax[k]] = (long) Math.floor(src[ax[k]] * (double) scales[k]);
            }
            return new ResizePlan(out, scale);
        }
        for (long v : sizes) {
            if (v < 0) {
                throw error.apply("sizes " + Arrays.toString(sizes) + " has a negative size");
            }
        }
        if (policy.equals("stretch")) {
            for (int k = 0; k < ax.length; k++) {
                out[ax[k]] = sizes[k];
                scale[ax[k]] = (double) sizes[k] / src[ax[k]];
            }
            return new ResizePlan(out, scale);
        }
        double common = policy.equals("not_larger") ? Double.POSITIVE_INFINITY : 0;
        for (int k = 0; k < ax.length; k++) {
            double r = (double) sizes[k] / src[ax[k]];
            common = policy.equals("not_larger") ? Math.min(common, r) : Math.max(common, r);
        }
        for (int k = 0; k < ax.length; k++) {
            scale[ax[k]] = common;
            out[ax[k]] = (long) Math.rint(common * src[ax[k]]);
        }
        return new ResizePlan(out, scale);
    }

    private static void inferResize(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        for (long d : src) {
            if (d == 0) {
                throw ctx.error("src " + dimsToString(src) + " has no elements; expected a non-empty src");
            }
        }
        if (scalesInput(ctx.op())) {
            ctx.setOutput(0, ctx.op().longsAttr("dst_dims"));
            return;
        }
        float[] scales = ctx.op().floatsAttr("scales");
        long[] sizes = new long[0];
        if (ctx.hasInput(1)) {
            length1d(ctx, 1, "sizes");
            sizes = ctx.values(1);
        }
        boolean known = sizes != null;
        for (long d : src) {
            known &= d >= 0;
        }
        if (!known) {
            ctx.setOutput(0, dynamic(src.length));
            return;
        }
        ctx.setOutput(0, resizePlan(src, ctx.op().longsAttr("axes"), scales, sizes,
                ctx.op().stringAttr("keep_aspect_ratio_policy"), ctx::error).out());
    }

    private static void inferTopK(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        if (src.length == 0) {
            throw ctx.error("src is a scalar; expected rank >= 1");
        }
        int a = axis(ctx, src, "src");
        long n = length1d(ctx, 1, "k");
        if (n >= 0 && n != 1) {
            throw ctx.error("k has " + n + " values; expected one");
        }
        long[] k = ctx.values(1);
        long[] out = src.clone();
        if (k == null) {
            out[a] = LogicalTensor.DYNAMIC_DIM;
        } else {
            if (k[0] < 0 || src[a] >= 0 && k[0] > src[a]) {
                throw ctx.error("k " + k[0] + " for axis " + a + " of src " + dimsToString(src) + "; expected k in [0, "
                        + src[a] + "]");
            }
            out[a] = k[0];
        }
        ctx.setOutput(0, out);
        ctx.setOutput(1, out);
    }

    /** src dims without the axes named by the values (which must be 1s), or all 1s when empty. */
    public static long[] squeezeDims(long[] src, long[] axes, java.util.function.Function<String, RuntimeException> error) {
        boolean[] drop = new boolean[src.length];
        for (long ax : axes) {
            int a = Dims.normalizeAxis(ax, src.length);
            if (a < 0 || drop[a]) {
                throw error.apply("axes " + Arrays.toString(axes) + ": axis " + ax + " is out of range or repeated for "
                        + "src " + dimsToString(src));
            }
            if (src[a] != 1) {
                throw error.apply("axis " + ax + " of src " + dimsToString(src) + " is not 1; expected squeezed "
                        + "axes of size 1");
            }
            drop[a] = true;
        }
        long[] out = new long[src.length];
        int n = 0;
        for (int i = 0; i < src.length; i++) {
            if (!(axes.length == 0 ? src[i] == 1 : drop[i])) {
                out[n++] = src[i];
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** src dims with 1s inserted at the axes of the output (rank src + axes). */
    public static long[] unsqueezeDims(long[] src, long[] axes,
            java.util.function.Function<String, RuntimeException> error) {
        int rank = src.length + axes.length;
        boolean[] added = new boolean[rank];
        for (long ax : axes) {
            int a = Dims.normalizeAxis(ax, rank);
            if (a < 0 || added[a]) {
                throw error.apply("axes " + Arrays.toString(axes) + ": axis " + ax + " is out of range or repeated for "
                        + "an output of rank " + rank);
            }
            added[a] = true;
        }
        long[] out = new long[rank];
        for (int i = 0, k = 0; i < rank; i++) {
            out[i] = added[i] ? 1 : src[k++];
        }
        return out;
    }

    private static void inferSqueeze(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        long n = length1d(ctx, 1, "axes");
        long[] axes = ctx.values(1);
        if (axes == null) {
            if (n > 0) {
                ctx.setOutput(0, dynamic(src.length - (int) Math.min(n, src.length)));
            }
            return;
        }
        ctx.setOutput(0, squeezeDims(src, axes, ctx::error));
    }

    private static void inferUnsqueeze(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        long n = length1d(ctx, 1, "axes");
        long[] axes = ctx.values(1);
        if (axes == null) {
            if (n >= 0) {
                ctx.setOutput(0, dynamic(src.length + (int) n));
            }
            return;
        }
        ctx.setOutput(0, unsqueezeDims(src, axes, ctx::error));
    }

    /** The modes of PartitaPad. */
    public static final String[] PAD_MODES = {"constant", "reflect", "edge", "wrap"};

    /** dims of the given rank, each known only at execution. */
    private static long[] dynamic(int rank) {
        long[] out = new long[rank];
        Arrays.fill(out, LogicalTensor.DYNAMIC_DIM);
        return out;
    }

    /** The length of a 1-D input, or -1 when unknown; an error for another rank. */
    private static long length1d(ShapeContext ctx, int i, String name) {
        long[] d = ctx.dims(i);
        if (d == null) {
            return -1;
        }
        if (d.length != 1) {
            throw ctx.error("input " + name + " has dims " + dimsToString(d) + "; expected a 1-D tensor");
        }
        return d[0] < 0 ? -1 : d[0];
    }

    /** The length of a PartitaRange: from its bounds when they are known, else known only at execution. */
    private static void inferRange(ShapeContext ctx) {
        String[] names = {"start", "limit", "delta"};
        long[] v = new long[3];
        boolean known = true;
        for (int i = 0; i < 3; i++) {
            long[] d = ctx.dims(i);
            if (d != null && (d.length > 1 || d.length == 1 && d[0] != 1)) {
                throw ctx.error(names[i] + " has dims " + dimsToString(d) + "; expected a scalar");
            }
            long[] x = ctx.values(i);
            known &= x != null && x.length == 1;
            v[i] = known ? x[0] : 0;
        }
        ctx.setOutput(0, known ? rangeLength(v[0], v[1], v[2], ctx::error) : LogicalTensor.DYNAMIC_DIM);
    }

    /** ONNX's Range length {@code max(ceil((limit - start) / delta), 0)}; delta 0 is refused. */
    public static long rangeLength(long start, long limit, long delta,
            java.util.function.Function<String, RuntimeException> error) {
        if (delta == 0) {
            throw error.apply("delta is 0; expected a non-zero step");
        }
        double n = Math.ceil(((double) limit - start) / delta);
        return (long) Math.max(n, 0);
    }

    private static void inferSlice(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        long n = length1d(ctx, 1, "starts");
        String[] names = {"ends", "axes", "steps"};
        for (int i = 2; i <= 4; i++) {
            long m = length1d(ctx, i, names[i - 2]);
            if (n >= 0 && m >= 0 && m != n) {
                throw ctx.error("input " + names[i - 2] + " has " + m + " values and starts " + n
                        + "; expected as many");
            }
        }
        long[] st = ctx.values(1);
        long[] en = ctx.values(2);
        long[] ax = ctx.values(3);
        long[] sp = ctx.values(4);
        boolean known = st != null && en != null && ax != null && sp != null;
        for (long d : src) {
            known &= d >= 0;
        }
        if (!known) {
            ctx.setOutput(0, dynamic(src.length));
            return;
        }
        IndexParams.SliceAxis[] s = IndexParams.sliceAxes(src, st, en, ax, sp, ctx::error);
        long[] out = new long[src.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = s[i].count();
        }
        ctx.setOutput(0, out);
    }

    /** The sizes of the parts of a dim: from split values, or num_outputs parts of ceil(dim / n), the last smaller. */
    public static long[] splitSizes(long dim, long[] split, long numOutputs,
            java.util.function.Function<String, RuntimeException> error) {
        if (split != null) {
            long sum = 0;
            for (long v : split) {
                if (v < 0) {
                    throw error.apply("split " + Arrays.toString(split) + " has a negative size");
                }
                sum += v;
            }
            if (sum != dim) {
                throw error.apply("split " + Arrays.toString(split) + " sums to " + sum + "; expected the dim " + dim);
            }
            return split;
        }
        if (numOutputs <= 0) {
            throw error.apply("num_outputs " + numOutputs + " without a split input; expected at least 1");
        }
        long chunk = -Math.floorDiv(-dim, numOutputs);
        long[] out = new long[(int) numOutputs];
        long left = dim;
        for (int i = 0; i < out.length; i++) {
            out[i] = Math.min(chunk, Math.max(left, 0));
            left -= out[i];
        }
        return out;
    }

    private static void inferSplit(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        int a = axis(ctx, src, "src");
        long index = ctx.op().longAttr("index");
        long[] split = ctx.hasInput(1) ? ctx.values(1) : null;
        if (ctx.hasInput(1)) {
            length1d(ctx, 1, "split");
        }
        long[] out = src.clone();
        if ((ctx.hasInput(1) && split == null) || src[a] < 0) {
            out[a] = LogicalTensor.DYNAMIC_DIM;
            ctx.setOutput(0, out);
            return;
        }
        long[] sizes = splitSizes(src[a], split, ctx.op().longAttr("num_outputs"), ctx::error);
        if (index < 0 || index >= sizes.length) {
            throw ctx.error("index " + index + " for " + sizes.length + " parts; expected an index in [0, "
                    + (sizes.length - 1) + "]");
        }
        out[a] = sizes[(int) index];
        ctx.setOutput(0, out);
    }

    private static void inferPad(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        long[] v = ctx.dims(2);
        if (v != null) {
            long n = 1;
            for (long d : v) {
                n *= d;
            }
            if (n != 1) {
                throw ctx.error("value has dims " + dimsToString(v) + "; expected a scalar");
            }
        }
        long np = length1d(ctx, 1, "pads");
        if (ctx.hasInput(3)) {
            long na = length1d(ctx, 3, "axes");
            if (np >= 0 && na >= 0 && np != 2 * na) {
                throw ctx.error("pads has " + np + " values for " + na + " axes; expected " + 2 * na);
            }
        }
        long[] pads = ctx.values(1);
        long[] axes = ctx.hasInput(3) ? ctx.values(3) : new long[0];
        if (pads == null || axes == null) {
            ctx.setOutput(0, dynamic(src.length));
            return;
        }
        long[][] p = IndexParams.padsPerAxis(src.length, pads, axes, ctx::error);
        long[] out = new long[src.length];
        String mode = ctx.op().stringAttr("mode");
        for (int i = 0; i < out.length; i++) {
            if (src[i] < 0) {
                out[i] = src[i];
                continue;
            }
            out[i] = src[i] + p[i][0] + p[i][1];
            if (out[i] < 0) {
                throw ctx.error("pads " + Arrays.toString(pads) + " crop axis " + i + " of src " + dimsToString(src)
                        + " below 0 elements");
            }
            if (!mode.equals("constant") && src[i] == 0 && out[i] > 0) {
                throw ctx.error("mode " + mode + " pads axis " + i + " of src " + dimsToString(src)
                        + ", which has no elements to repeat");
            }
        }
        ctx.setOutput(0, out);
    }

    private static void inferTile(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        long n = length1d(ctx, 1, "repeats");
        if (n >= 0 && n != src.length) {
            throw ctx.error("repeats has " + n + " values for src " + dimsToString(src) + "; expected " + src.length);
        }
        long[] reps = ctx.values(1);
        if (reps == null) {
            ctx.setOutput(0, dynamic(src.length));
            return;
        }
        long[] out = new long[src.length];
        for (int i = 0; i < out.length; i++) {
            if (reps[i] < 0) {
                throw ctx.error("repeats " + Arrays.toString(reps) + " has a negative value; expected >= 0");
            }
            out[i] = src[i] < 0 ? src[i] : Math.multiplyExact(src[i], reps[i]);
        }
        ctx.setOutput(0, out);
    }

    private static void inferExpand(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        long n = length1d(ctx, 1, "shape");
        long[] shape = ctx.values(1);
        if (shape == null) {
            if (n >= 0) {
                ctx.setOutput(0, dynamic((int) Math.max(n, src.length)));
            }
            return;
        }
        int rank = Math.max(shape.length, src.length);
        long[] out = new long[rank];
        for (int i = 0; i < rank; i++) {
            int si = i - (rank - src.length);
            int hi = i - (rank - shape.length);
            long a = si < 0 ? 1 : src[si];
            long b = hi < 0 ? 1 : shape[hi];
            if (b < 0) {
                throw ctx.error("shape " + Arrays.toString(shape) + " has a negative dim");
            }
            if (a < 0) {
                out[i] = b == 1 ? a : b;
            } else if (a == b || b == 1) {
                out[i] = a;
            } else if (a == 1) {
                out[i] = b;
            } else {
                throw ctx.error("src " + dimsToString(src) + " does not broadcast with shape " + Arrays.toString(shape)
                        + " (numpy rules)");
            }
        }
        ctx.setOutput(0, out);
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
        String mode = op.stringAttr("mode");
        if (op.input(0).dataType() == DataType.BOOLEAN && !mode.equals("max") && !mode.equals("min")) {
            throw new InvalidGraphException(op.id(), op.describe() + ": mode " + mode + " on boolean src; expected "
                    + "max or min (any / all)");
        }
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
