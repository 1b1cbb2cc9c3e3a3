package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;
import static io.partita.graph.LogicalTensor.UNKNOWN_DIM;
import static io.partita.graph.LogicalTensor.dimsToString;

import java.util.Arrays;
import java.util.Set;
import java.util.function.Consumer;

import io.partita.graph.AttrType;
import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.Dims;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.ShapeContext;
import io.partita.runtime.schema.ShapeRules;

/**
 * Reshapes, transposes, concatenation, reorders, type casts, dropout, index generation and graph
 * markers (quantization lives in {@link QuantizationSchemas}, registered from here).
 */
public final class DataMovementSchemas {
    /** oneDNN's limit on the number of Concat inputs. */
    public static final int MAX_CONCAT_INPUTS = 64;
    /**
     * Wildcard ports: the schema builder has no untyped variadic port, so Wildcard takes up to this
     * many optional inputs and outputs of any data type.
     */
    public static final int WILDCARD_PORTS = 32;

    private static final Set<DataType> SHAPE_TYPES = Set.of(DataType.S32, DataType.S64);

    private DataMovementSchemas() {
    }

    public static void register(Consumer<OpSchemaImpl> r) {
        r.accept(OpSchemaImpl.builder(OpKind.End)
                .input("src", OpSchemaImpl.ALL_TYPES, ValueDomain.ANY)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.StaticReshape)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .output("dst", "T")
                .requiredAttr("shape", AttrType.S64_ARRAY)
                .requiredAttr("special_zero", AttrType.BOOL)
                .validator(op -> checkShapeEntries(op, op.longsAttr("shape"), op.boolAttr("special_zero")))
                .shape(ctx -> ctx.setOutput(0, reshape(ctx, ctx.dims(0), ctx.op().longsAttr("shape"),
                        ctx.op().boolAttr("special_zero"), "attribute 'shape'")))
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.DynamicReshape)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .input("shape", SHAPE_TYPES, ValueDomain.SHAPE)
                .output("dst", "T")
                .requiredAttr("special_zero", AttrType.BOOL)
                .shape(DataMovementSchemas::inferDynamicReshape)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.StaticTranspose)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .output("dst", "T")
                .requiredAttr("order", AttrType.S64_ARRAY)
                .shape(ctx -> {
                    long[] in = ctx.dims(0);
                    if (in != null) {
                        ctx.setOutput(0, transpose(ctx, in, ctx.op().longsAttr("order"), "attribute 'order'"));
                    }
                })
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.DynamicTranspose)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .input("order", SHAPE_TYPES, ValueDomain.SHAPE)
                .output("dst", "T")
                .shape(DataMovementSchemas::inferDynamicTranspose)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.Concat)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .variadicInput("src_i", "T")
                .output("dst", "T")
                .requiredAttr("axis", AttrType.S64)
                .validator(op -> {
                    if (op.inputs().size() > MAX_CONCAT_INPUTS) {
                        throw new InvalidGraphException(op.id(), op.describe() + ": has " + op.inputs().size()
                                + " inputs, expected at most " + MAX_CONCAT_INPUTS);
                    }
                })
                .shape(DataMovementSchemas::inferConcat)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.Reorder)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .output("dst", "T")
                .shape(ShapeRules::sameAsFirstInput)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.TypeCast)
                .typeVar("T1", DataType.F32, DataType.BF16, DataType.F16)
                .typeVar("T2", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T1")
                .output("dst", "T2")
                .validator(DataMovementSchemas::checkTypeCast)
                .shape(ShapeRules::sameAsFirstInput)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.Dropout)
                .typeVar("T", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T")
                .input("seed", Set.of(DataType.S64), ValueDomain.ANY)
                .input("offset", Set.of(DataType.S64), ValueDomain.ANY)
                // SCALE draws values in (0, 1): valid drop probabilities.
                .input("probability", Set.of(DataType.F32), ValueDomain.SCALE)
                .output("dst", "T")
                .optionalOutput("mask", Set.of(DataType.U8))
                .shape(DataMovementSchemas::inferDropout)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.GenIndex)
                .typeVar("T1", DataType.F32, DataType.BF16, DataType.F16)
                .input("src", "T1")
                .output("dst", Set.of(DataType.S32))
                .requiredAttr("axis", AttrType.S64)
                .shape(ctx -> {
                    checkAxis(ctx, ctx.op().longAttr("axis"), ctx.rank(0));
                    ShapeRules.sameAsFirstInput(ctx);
                })
                .build());
        OpSchemaImpl.Builder wildcard = OpSchemaImpl.builder(OpKind.Wildcard);
        for (int i = 0; i < WILDCARD_PORTS; i++) {
            wildcard.optionalInput("src_" + i, OpSchemaImpl.ALL_TYPES, ValueDomain.ANY);
            wildcard.optionalOutput("dst_" + i, OpSchemaImpl.ALL_TYPES);
        }
        r.accept(wildcard.build());
        QuantizationSchemas.register(r);
    }

    // ---------------------------------------------------------------- reshape

    private static void checkShapeEntries(Op op, long[] shape, boolean specialZero) {
        String problem = shapeProblem(shape, specialZero);
        if (problem != null) {
            throw new InvalidGraphException(op.id(), op.describe() + ": attribute 'shape' " + problem);
        }
    }

    /** What is wrong with a target shape's entries, or null. */
    private static String shapeProblem(long[] shape, boolean specialZero) {
        int minusOnes = 0;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < -1) {
                return Arrays.toString(shape) + " has " + shape[i] + " at index " + i + "; expected dims >= 0 or -1"
                        + " (inferred)" + (specialZero ? ", 0 copies the src dim" : "");
            }
            if (shape[i] == -1) {
                minusOnes++;
            }
        }
        if (minusOnes > 1) {
            return Arrays.toString(shape) + " has " + minusOnes + " entries -1; at most one dim can be inferred";
        }
        return null;
    }

    /**
     * The dims a reshape of {@code in} (null: rank unknown) to {@code shape} gives: with special_zero
     * a 0 copies the src dim at that index, a -1 is inferred from the element count; placeholders
     * propagate.
     */
    static long[] reshape(ShapeContext ctx, long[] in, long[] shape, boolean specialZero, String what) {
        String problem = shapeProblem(shape, specialZero);
        if (problem != null) {
            throw ctx.error(what + " " + problem);
        }
        long[] out = new long[shape.length];
        int inferred = -1;
        for (int i = 0; i < shape.length; i++) {
            long s = shape[i];
            if (s == -1) {
                inferred = i;
                out[i] = UNKNOWN_DIM;
            } else if (s == 0 && specialZero) {
                if (in == null) {
                    out[i] = UNKNOWN_DIM;
                } else if (i >= in.length) {
                    throw ctx.error(what + " " + Arrays.toString(shape) + " has 0 at index " + i
                            + " with special_zero=true, but src " + dimsToString(in) + " has rank " + in.length
                            + " (no dim to copy)");
                } else {
                    out[i] = in[i];
                }
            } else {
                out[i] = s;
            }
        }
        if (in == null) {
            return out;
        }
        long inCount = Dims.product(in, 0, in.length);
        if (inferred >= 0) {
            long[] rest = new long[out.length - 1];
            for (int i = 0, j = 0; i < out.length; i++) {
                if (i != inferred) {
                    rest[j++] = out[i];
                }
            }
            long restCount = Dims.product(rest, 0, rest.length);
            if (inCount < 0 || restCount < 0) {
                out[inferred] = Dims.placeholderOf(inCount, restCount);
            } else if (restCount == 0) {
                throw ctx.error(what + " " + Arrays.toString(shape) + " cannot infer its -1 dim: the other dims "
                        + dimsToString(rest) + " hold 0 elements (src " + dimsToString(in) + ")");
            } else if (inCount % restCount != 0) {
                throw ctx.error("src " + dimsToString(in) + " (" + inCount + " elements) cannot be reshaped to "
                        + what + " " + Arrays.toString(shape) + ": " + inCount + " is not a multiple of " + restCount);
            } else {
                out[inferred] = inCount / restCount;
            }
        } else if (inCount >= 0 && Dims.allKnown(out)) {
            long outCount = Dims.product(out, 0, out.length);
            if (outCount != inCount) {
                throw ctx.error("src " + dimsToString(in) + " (" + inCount + " elements) cannot be reshaped to "
                        + dimsToString(out) + " (" + outCount + " elements) given by " + what + " "
                        + Arrays.toString(shape));
            }
        }
        return out;
    }

    /**
     * The highest output rank a DynamicReshape's shape input may give (oneDNN's own limit is 12):
     * the rank is allocated as a dims array, so a shape input declared with 2^31 values must be
     * refused rather than allocated.
     */
    static final int MAX_RESHAPE_RANK = 1024;

    private static void inferDynamicReshape(ShapeContext ctx) {
        ctx.requireRank(1, 1);
        long[] values = ctx.values(1);
        boolean specialZero = ctx.op().boolAttr("special_zero");
        if (values != null) {
            ctx.setOutput(0, reshape(ctx, ctx.dims(0), values, specialZero, "shape input (tensor "
                    + ctx.input(1).id() + ")"));
            return;
        }
        long[] shapeDims = ctx.dims(1);
        if (shapeDims != null && shapeDims[0] >= 0) {
            if (shapeDims[0] > MAX_RESHAPE_RANK) {
                throw ctx.error("shape input (tensor " + ctx.input(1).id() + ") has " + shapeDims[0]
                        + " values: the output would have rank " + shapeDims[0] + "; at most " + MAX_RESHAPE_RANK
                        + " is accepted");
            }
            // Rank known, dims only at execution.
            long[] out = new long[(int) shapeDims[0]];
            Arrays.fill(out, DYNAMIC_DIM);
            ctx.setOutput(0, out);
        }
    }

    // ---------------------------------------------------------------- transpose

    /**
     * The dims a transpose of {@code in} by {@code order} gives: output dim i is input dim order[i];
     * order entries in [-rank, rank-1], each axis once; an empty order reverses the dims.
     */
    static long[] transpose(ShapeContext ctx, long[] in, long[] order, String what) {
        int rank = in.length;
        if (order.length == 0) {
            long[] out = new long[rank];
            for (int i = 0; i < rank; i++) {
                out[i] = in[rank - 1 - i];
            }
            return out;
        }
        if (order.length != rank) {
            throw ctx.error(what + " " + Arrays.toString(order) + " has " + order.length + " entries but src "
                    + dimsToString(in) + " has rank " + rank + "; expected a permutation of its " + rank + " axes");
        }
        boolean[] seen = new boolean[rank];
        long[] out = new long[rank];
        for (int i = 0; i < rank; i++) {
            int a = Dims.normalizeAxis(order[i], rank);
            if (a < 0) {
                throw ctx.error(what + " " + Arrays.toString(order) + " has axis " + order[i] + " out of range [-"
                        + rank + ", " + (rank - 1) + "] for src " + dimsToString(in));
            }
            if (seen[a]) {
                throw ctx.error(what + " " + Arrays.toString(order) + " names axis " + a
                        + " twice; expected a permutation of the src axes");
            }
            seen[a] = true;
            out[i] = in[a];
        }
        return out;
    }

    /** Output axis i reads input axis perm[i] (order normalized; empty order reverses). */
    public static int[] permutation(long[] order, int rank) {
        int[] perm = new int[rank];
        for (int i = 0; i < rank; i++) {
            perm[i] = order.length == 0 ? rank - 1 - i : Dims.normalizeAxis(order[i], rank);
        }
        return perm;
    }

    private static void inferDynamicTranspose(ShapeContext ctx) {
        ctx.requireRank(1, 1);
        long[] in = ctx.dims(0);
        if (in == null) {
            return;
        }
        long[] values = ctx.values(1);
        if (values != null) {
            ctx.setOutput(0, transpose(ctx, in, values, "order input (tensor " + ctx.input(1).id() + ")"));
            return;
        }
        long[] orderDims = ctx.dims(1);
        if (orderDims != null && orderDims[0] >= 0 && orderDims[0] != in.length && orderDims[0] != 0) {
            throw ctx.error("order input (tensor " + ctx.input(1).id() + ") has " + orderDims[0]
                    + " entries but src " + dimsToString(in) + " has rank " + in.length);
        }
        if (orderDims != null && orderDims[0] == 0) {
            ctx.setOutput(0, transpose(ctx, in, new long[0], "order input"));
            return;
        }
        long[] out = new long[in.length];
        // Any permutation of equal known dims gives the same dims; otherwise known at execution.
        boolean allEqual = Dims.allKnown(in);
        for (long d : in) {
            allEqual &= d == in[0];
        }
        for (int i = 0; i < out.length; i++) {
            out[i] = allEqual ? in[0] : DYNAMIC_DIM;
        }
        ctx.setOutput(0, out);
    }

    // ---------------------------------------------------------------- concat

    private static void inferConcat(ShapeContext ctx) {
        long axisAttr = ctx.op().longAttr("axis");
        int rank = -1;
        int rankFrom = -1;
        boolean someUnknownRank = false;
        for (int i = 0; i < ctx.inputCount(); i++) {
            long[] d = ctx.dims(i);
            if (d == null) {
                someUnknownRank = true;
                continue;
            }
            if (rank < 0) {
                rank = d.length;
                rankFrom = i;
            } else if (d.length != rank) {
                throw ctx.error("input " + i + " (tensor " + ctx.input(i).id() + ") " + dimsToString(d) + " has rank "
                        + d.length + " but input " + rankFrom + " " + dimsToString(ctx.dims(rankFrom)) + " has rank "
                        + rank + "; Concat inputs must have the same rank");
            }
        }
        if (rank < 0) {
            return;
        }
        int axis = Dims.normalizeAxis(axisAttr, rank);
        if (axis < 0) {
            throw ctx.error("axis " + axisAttr + " is out of range for inputs of rank " + rank + "; expected [-" + rank
                    + ", " + (rank - 1) + "]");
        }
        long[] out = ctx.dims(rankFrom);
        long sum = someUnknownRank ? UNKNOWN_DIM : 0;
        for (int i = 0; i < ctx.inputCount(); i++) {
            long[] d = ctx.dims(i);
            if (d == null) {
                continue;
            }
            for (int k = 0; k < rank; k++) {
                if (k == axis) {
                    continue;
                }
                Long m = Dims.merge(out[k], d[k]);
                if (m == null) {
                    throw ctx.error("input " + i + " (tensor " + ctx.input(i).id() + ") " + dimsToString(d)
                            + " and input " + rankFrom + " " + dimsToString(ctx.dims(rankFrom)) + " differ at dim " + k
                            + "; only the concatenation axis " + axis + " may differ");
                }
                out[k] = m;
            }
            sum = Dims.combine(sum, d[axis], Long::sum);
        }
        out[axis] = sum;
        ctx.setOutput(0, out);
    }

    // ---------------------------------------------------------------- misc

    private static void checkTypeCast(Op op) {
        DataType from = op.input(0).dataType();
        DataType to = op.output(0).dataType();
        if (from == to) {
            throw new InvalidGraphException(op.id(), op.describe() + ": src and dst are both " + from
                    + "; TypeCast converts between different data types");
        }
        if ((from == DataType.BF16 && to == DataType.F16) || (from == DataType.F16 && to == DataType.BF16)) {
            throw new InvalidGraphException(op.id(), op.describe() + ": conversion " + from + " -> " + to
                    + " is not supported; expected f32 on one side (as oneDNN)");
        }
    }

    private static void inferDropout(ShapeContext ctx) {
        String[] names = {"src", "seed", "offset", "probability"};
        for (int i = 1; i < 4; i++) {
            long[] d = ctx.dims(i);
            if (d != null && Dims.allKnown(d) && Dims.product(d, 0, d.length) != 1) {
                throw ctx.error(names[i] + " (input " + i + ", tensor " + ctx.input(i).id() + ") is "
                        + dimsToString(d) + "; expected a single value (a scalar)");
            }
        }
        ShapeRules.sameAsFirstInput(ctx);
    }

    /** Checks an axis attribute against a known rank (rank unknown: nothing to check). */
    static void checkAxis(ShapeContext ctx, long axis, int rank) {
        if (rank >= 0 && Dims.normalizeAxis(axis, rank) < 0) {
            throw ctx.error("axis " + axis + " is out of range for src " + dimsToString(ctx.dims(0)) + " of rank "
                    + rank + "; expected [-" + rank + ", " + (rank - 1) + "]");
        }
    }
}
