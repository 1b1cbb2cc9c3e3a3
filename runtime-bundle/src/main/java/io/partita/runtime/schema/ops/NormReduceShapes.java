package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.dimsToString;

import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.OpValidator;
import io.partita.runtime.schema.ShapeContext;

/** Shape and type checks shared by the normalization, softmax and reduction schemas. */
final class NormReduceShapes {
    private NormReduceShapes() {
    }

    /** The channel axis of a rank-{@code rank} (>= 2) tensor in data format NCX or NXC. */
    static int channelAxis(String dataFormat, int rank) {
        return "NCX".equals(dataFormat) ? 1 : rank - 1;
    }

    /** Two descriptions of one shape merged dim by dim; null when both ranks are unknown. */
    static long[] mergeSame(ShapeContext ctx, int in0, int in1, String name0, String name1) {
        long[] a = ctx.dims(in0);
        long[] b = ctx.dims(in1);
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        if (a.length != b.length) {
            throw ctx.error(name0 + " " + dimsToString(a) + " and " + name1 + " " + dimsToString(b)
                    + " must have the same shape (ranks " + a.length + " and " + b.length + ")");
        }
        long[] out = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            Long m = Dims.merge(a[i], b[i]);
            if (m == null) {
                throw ctx.error(name0 + " " + dimsToString(a) + " and " + name1 + " " + dimsToString(b)
                        + " must have the same shape (dim " + i + " differs)");
            }
            out[i] = m;
        }
        return out;
    }

    /**
     * Checks that input {@code in} (if present and of known rank) is a 1-D tensor of {@code c}
     * elements (c may be a placeholder) and returns the merged channel count.
     */
    static long checkPerChannel(ShapeContext ctx, int in, String name, long c, String whatC) {
        if (!ctx.hasInput(in)) {
            return c;
        }
        long[] d = ctx.dims(in);
        if (d == null) {
            return c;
        }
        if (d.length != 1) {
            throw ctx.error(name + " (input " + in + ") has dims " + dimsToString(d) + "; expected a 1-D tensor of "
                    + whatC + " elements");
        }
        Long m = Dims.merge(c, d[0]);
        if (m == null) {
            throw ctx.error(name + " (input " + in + ") has " + d[0] + " elements but " + whatC + " is " + c);
        }
        return m;
    }

    /**
     * The axis where normalization begins, in [0, rank): {@code begin_norm_axis} may be negative
     * (from the back) and must lie in [-rank, rank-1].
     */
    static int beginNormAxis(ShapeContext ctx, int rank) {
        long b = ctx.op().longAttr("begin_norm_axis");
        int a = Dims.normalizeAxis(b, rank);
        if (a < 0) {
            throw ctx.error("begin_norm_axis " + b + " is out of range for src of rank " + rank + " "
                    + dimsToString(ctx.dims(0)) + "; expected a value in [" + -rank + ", " + (rank - 1) + "]");
        }
        return a;
    }

    /**
     * Checks a scale/shift input against the normalized dims: either the same dims, or a 1-D
     * tensor with as many elements.
     */
    static void checkNormalizedParam(ShapeContext ctx, int in, String name, long[] normDims, long[] src, int begin) {
        if (!ctx.hasInput(in)) {
            return;
        }
        long[] d = ctx.dims(in);
        if (d == null) {
            return;
        }
        String expected = "; expected the normalized dims " + dimsToString(normDims) + " of src " + dimsToString(src)
                + " (begin_norm_axis " + ctx.op().longAttr("begin_norm_axis") + ")";
        if (d.length == normDims.length) {
            for (int i = 0; i < d.length; i++) {
                if (Dims.merge(d[i], normDims[i]) == null) {
                    throw ctx.error(name + " (input " + in + ") has dims " + dimsToString(d) + expected);
                }
            }
            return;
        }
        if (d.length == 1) {
            long n = Dims.product(normDims, 0, normDims.length);
            if (n < 0 || d[0] < 0 || n == d[0]) {
                return;
            }
        }
        throw ctx.error(name + " (input " + in + ") has dims " + dimsToString(d) + expected);
    }

    /** Whether {@code from} broadcasts (numpy, one direction) to {@code to}; placeholders are compatible. */
    static boolean broadcastsTo(long[] from, long[] to) {
        if (from.length > to.length) {
            return false;
        }
        for (int i = 0; i < from.length; i++) {
            long f = from[from.length - 1 - i];
            long t = to[to.length - 1 - i];
            if (f != 1 && f >= 0 && t >= 0 && f != t) {
                return false;
            }
        }
        return true;
    }

    /**
     * Data types of the auxiliary tensors (scale, shift, statistics): bf16 ones need a bf16 src,
     * f16 ones an f16 src (f32 ones go with any src).
     */
    static OpValidator auxTypes(int firstAuxInput, int firstAuxOutput) {
        return op -> {
            DataType src = op.input(0).dataType();
            for (int i = firstAuxInput; i < op.inputs().size(); i++) {
                checkAux(op, "input " + i, op.input(i), src);
            }
            for (int i = firstAuxOutput; i < op.outputs().size(); i++) {
                checkAux(op, "output " + i, op.output(i), src);
            }
        };
    }

    private static void checkAux(Op op, String where, LogicalTensor t, DataType src) {
        DataType dt = t.dataType();
        if ((dt == DataType.BF16 || dt == DataType.F16) && dt != src) {
            throw new InvalidGraphException(op.id(), op.describe() + ": " + where + " (tensor " + t.id() + ") is " + dt
                    + " but src is " + src + "; scale, shift and statistics must be f32 or the src data type");
        }
    }

    /** Optional inputs/outputs that come in pairs: {@code n} of them present must not be exactly {@code odd}. */
    static void requireBoth(Op op, int count, int odd, String what) {
        if (count == odd) {
            throw new InvalidGraphException(op.id(), op.describe() + ": " + what
                    + " must be given both or neither (got only the first)");
        }
    }
}
