package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.dimsToString;

import java.util.Arrays;
import java.util.Set;
import java.util.function.Consumer;

import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.ShapeContext;

/**
 * ReduceL1, ReduceL2, ReduceMax, ReduceMean, ReduceMin, ReduceProd and ReduceSum: the axes come
 * from the {@code axes} attribute or from the optional s32 input {@code axes} (exactly one of
 * them); an empty axes list is the identity; {@code keep_dims} keeps reduced dims as 1.
 */
final class ReductionSchemas {
    private ReductionSchemas() {
    }

    static final OpKind[] KINDS = {OpKind.ReduceL1, OpKind.ReduceL2, OpKind.ReduceMax, OpKind.ReduceMean,
        OpKind.ReduceMin, OpKind.ReduceProd, OpKind.ReduceSum};

    static void register(Consumer<OpSchemaImpl> r) {
        for (OpKind kind : KINDS) {
            r.accept(OpSchemaImpl.builder(kind)
                    .typeVar("T1", DataType.F32, DataType.BF16, DataType.F16)
                    .input("src", "T1")
                    .optionalInput("axes", Set.of(DataType.S32), ValueDomain.AXES)
                    .output("dst", "T1")
                    .attr("axes", new long[0])
                    .attr("keep_dims", false)
                    .validator(ReductionSchemas::checkAxesSource)
                    .shape(ReductionSchemas::infer)
                    .build());
        }
    }

    /** The axes attribute and the axes input exclude each other. */
    private static void checkAxesSource(Op op) {
        if (op.inputs().size() > 1) {
            if (op.longsAttr("axes").length > 0) {
                throw new InvalidGraphException(op.id(), op.describe() + ": has both the attribute axes "
                        + Arrays.toString(op.longsAttr("axes")) + " and the input axes (tensor " + op.input(1).id()
                        + "); expected exactly one of them");
            }
            long[] d = op.input(1).dims();
            if (d != null && d.length != 1) {
                throw new InvalidGraphException(op.id(), op.describe() + ": input axes (tensor " + op.input(1).id()
                        + ") has dims " + dimsToString(d) + "; expected a 1-D tensor");
            }
        }
    }

    private static void infer(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        if (src == null) {
            return;
        }
        long[] axes;
        if (ctx.hasInput(1)) {
            axes = ctx.values(1);
            if (axes == null) {
                return; // the axes are only known at execution
            }
        } else {
            axes = ctx.op().longsAttr("axes");
        }
        boolean[] reduced = reducedAxes(ctx, axes, src.length);
        ctx.setOutput(0, outputDims(src, reduced, ctx.op().boolAttr("keep_dims")));
    }

    /** Which axes of a rank-{@code rank} src are reduced; errors for out-of-range or repeated axes. */
    static boolean[] reducedAxes(ShapeContext ctx, long[] axes, int rank) {
        boolean[] reduced = new boolean[rank];
        for (long axis : axes) {
            int a = Dims.normalizeAxis(axis, rank);
            if (a < 0) {
                throw ctx.error("axis " + axis + " of axes " + Arrays.toString(axes) + " is out of range for src "
                        + dimsToString(ctx.dims(0)) + "; expected axes in [" + -rank + ", " + (rank - 1) + "]");
            }
            if (reduced[a]) {
                throw ctx.error("axes " + Arrays.toString(axes) + " name axis " + a + " twice; expected unique axes");
            }
            reduced[a] = true;
        }
        return reduced;
    }

    /** src dims with reduced dims set to 1 (keep_dims) or removed. */
    static long[] outputDims(long[] src, boolean[] reduced, boolean keepDims) {
        long[] out = new long[src.length];
        int n = 0;
        for (int i = 0; i < src.length; i++) {
            if (!reduced[i]) {
                out[n++] = src[i];
            } else if (keepDims) {
                out[n++] = 1;
            }
        }
        return Arrays.copyOf(out, n);
    }
}
