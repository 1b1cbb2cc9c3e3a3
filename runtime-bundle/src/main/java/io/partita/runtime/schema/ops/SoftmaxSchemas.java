package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.dimsToString;

import java.util.function.Consumer;

import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.ShapeContext;

/**
 * SoftMax, LogSoftmax and their backward ops. SoftMax and SoftMaxBackward default to axis 1,
 * LogSoftmax and LogSoftmaxBackward to axis -1 (as in oneDNN). The backward ops take the forward
 * op's output {@code dst} (softmax resp. log-softmax values), not its input.
 */
final class SoftmaxSchemas {
    private SoftmaxSchemas() {
    }

    static void register(Consumer<OpSchemaImpl> r) {
        r.accept(OpSchemaImpl.builder(OpKind.SoftMax)
                .typeVar("T1", DataType.F32, DataType.BF16, DataType.F16)
                .typeVar("T2", DataType.F32, DataType.BF16, DataType.F16)
                .typeVar("T3", DataType.F32)
                .input("src", "T1")
                .output("dst", "T2")
                .optionalOutput("stats", "T3")
                .attr("axis", 1L)
                .attr("mode", "none", "none", "inf_as_zero")
                .validator(SoftmaxSchemas::checkSoftmaxTypes)
                .shape(SoftmaxSchemas::inferSoftmax)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.SoftMaxBackward)
                .typeVar("T1", DataType.F32, DataType.BF16, DataType.F16)
                .typeVar("T2", DataType.F32, DataType.BF16, DataType.F16)
                .input("diff_dst", "T1")
                .input("dst", "T1")
                .output("diff_src", "T2")
                .attr("axis", 1L)
                .validator(SoftmaxSchemas::checkBackwardTypes)
                .shape(SoftmaxSchemas::inferBackward)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.LogSoftmax)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .output("dst", "T")
                .attr("axis", -1L)
                .shape(ctx -> {
                    checkAxis(ctx, 0);
                    ctx.sameAsInput(0, 0);
                })
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.LogSoftmaxBackward)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("diff_dst", "T")
                .input("dst", "T")
                .output("diff_src", "T")
                .attr("axis", -1L)
                .shape(SoftmaxSchemas::inferBackward)
                .build());
    }

    /** The normalized axis of input {@code in}, or -1 when its rank is unknown; an error when out of range. */
    static int checkAxis(ShapeContext ctx, int in) {
        int rank = ctx.rank(in);
        if (rank < 0) {
            return -1;
        }
        long axis = ctx.op().longAttr("axis");
        int a = Dims.normalizeAxis(axis, rank);
        if (a < 0) {
            throw ctx.error("axis " + axis + " is out of range for input " + in + " of rank " + rank + " "
                    + dimsToString(ctx.dims(in)) + "; expected an axis in [" + -rank + ", " + (rank - 1) + "]");
        }
        return a;
    }

    private static void inferSoftmax(ShapeContext ctx) {
        int axis = checkAxis(ctx, 0);
        ctx.sameAsInput(0, 0);
        if (ctx.outputCount() > 1 && axis >= 0) {
            long[] stats = ctx.dims(0);
            stats[axis] = 1;
            ctx.setOutput(1, stats);
        }
    }

    /** diff_dst and dst describe the same tensor shape; diff_src has it too. */
    private static void inferBackward(ShapeContext ctx) {
        long[] merged = NormReduceShapes.mergeSame(ctx, 0, 1, "diff_dst", "dst");
        if (merged == null) {
            return;
        }
        int rank = merged.length;
        long axis = ctx.op().longAttr("axis");
        if (Dims.normalizeAxis(axis, rank) < 0) {
            throw ctx.error("axis " + axis + " is out of range for rank " + rank + " " + dimsToString(merged)
                    + "; expected an axis in [" + -rank + ", " + (rank - 1) + "]");
        }
        ctx.setOutput(0, merged);
    }

    /** f32 -> f32/bf16/f16, bf16 -> f32/bf16, f16 -> f32/f16: differing types need an f32 side. */
    private static void checkSoftmaxTypes(Op op) {
        DataType src = op.input(0).dataType();
        DataType dst = op.output(0).dataType();
        if (src != dst && src != DataType.F32 && dst != DataType.F32) {
            throw new InvalidGraphException(op.id(), op.describe() + ": src " + src + " with dst " + dst
                    + " is not supported; dst must be f32 or the src data type");
        }
    }

    /** diff_src is f32 or the data type of diff_dst. */
    private static void checkBackwardTypes(Op op) {
        DataType diffDst = op.input(0).dataType();
        DataType diffSrc = op.output(0).dataType();
        if (diffSrc != diffDst && diffSrc != DataType.F32) {
            throw new InvalidGraphException(op.id(), op.describe() + ": diff_dst " + diffDst + " with diff_src "
                    + diffSrc + " is not supported; diff_src must be f32 or the diff_dst data type");
        }
    }
}
