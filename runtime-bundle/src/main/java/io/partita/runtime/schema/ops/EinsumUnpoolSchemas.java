package io.partita.runtime.schema.ops;

import static io.partita.graph.LogicalTensor.dimsToString;

import java.util.Arrays;
import java.util.Set;
import java.util.function.Consumer;

import io.partita.graph.AttrType;
import io.partita.graph.DataType;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.graph.OpSchema.ValueDomain;
import io.partita.runtime.schema.OpSchemaImpl;
import io.partita.runtime.schema.ShapeContext;

/**
 * Schemas of two Partita extension ops added for ONNX models: PartitaEinsum (the equation parsed
 * and checked against the operands' ranks when the op is validated) and PartitaMaxUnpool.
 */
public final class EinsumUnpoolSchemas {
    private EinsumUnpoolSchemas() {
    }

    public static void register(Consumer<OpSchemaImpl> r) {
        r.accept(OpSchemaImpl.builder(OpKind.PartitaEinsum)
                .typeVar("T", ExtensionSchemas.VALUE_TYPES)
                .variadicInput("src_i", "T")
                .output("dst", "T")
                .requiredAttr("equation", AttrType.STRING)
                .validator(op -> {
                    EinsumEquation eq = equation(op);
                    if (eq.inputCount() != op.inputs().size()) {
                        throw new InvalidGraphException(op.id(), op.describe() + ": equation '"
                                + op.stringAttr("equation") + "' has " + eq.inputCount()
                                + " input term(s) but the op has " + op.inputs().size() + " input(s)");
                    }
                })
                .shape(EinsumUnpoolSchemas::inferEinsum)
                .build());
        r.accept(OpSchemaImpl.builder(OpKind.PartitaMaxUnpool)
                .typeVar("T", ExtensionSchemas.VALUE_TYPES)
                .input("src", "T")
                .input("indices", Set.of(DataType.S64), ValueDomain.ANY)
                .optionalInput("output_shape", Set.of(DataType.S64), ValueDomain.SHAPE)
                .output("dst", "T")
                .requiredAttr("kernel", AttrType.S64_ARRAY)
                .attr("strides", new long[0])
                .attr("pads_begin", new long[0])
                .attr("pads_end", new long[0])
                .validator(EinsumUnpoolSchemas::checkUnpool)
                .shape(EinsumUnpoolSchemas::inferUnpool)
                .build());
    }

    /** The op's equation, parsed; a malformed one is an error naming the op and the bad part. */
    public static EinsumEquation equation(Op op) {
        String text = op.stringAttr("equation");
        try {
            return EinsumEquation.parse(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidGraphException(op.id(), op.describe() + ": equation '" + text + "' " + e.getMessage());
        }
    }

    /** The op's equation bound to inputs of the given dims' ranks; a misfit is an error naming the op. */
    public static EinsumEquation.Plan plan(Op op, long[][] dims) {
        int[] ranks = new int[dims.length];
        for (int i = 0; i < dims.length; i++) {
            ranks[i] = dims[i].length;
        }
        try {
            return equation(op).bind(ranks);
        } catch (IllegalArgumentException e) {
            throw new InvalidGraphException(op.id(), op.describe() + ": equation '" + op.stringAttr("equation")
                    + "' " + e.getMessage());
        }
    }

    /** Label sizes of a plan; disagreeing dims are an error naming the op and the label. */
    public static long[] labelSizes(Op op, EinsumEquation.Plan plan, long[][] dims) {
        try {
            return plan.labelSizes(dims);
        } catch (IllegalArgumentException e) {
            throw new InvalidGraphException(op.id(), op.describe() + ": equation '" + op.stringAttr("equation")
                    + "': " + e.getMessage());
        }
    }

    private static void inferEinsum(ShapeContext ctx) {
        long[][] dims = new long[ctx.inputCount()][];
        for (int i = 0; i < dims.length; i++) {
            dims[i] = ctx.dims(i);
            if (dims[i] == null) {
                return;
            }
        }
        EinsumEquation.Plan plan = plan(ctx.op(), dims);
        ctx.setOutput(0, plan.outputDims(labelSizes(ctx.op(), plan, dims)));
    }

    // ---------------------------------------------------------------- MaxUnpool

    private static void checkUnpool(Op op) {
        long[] k = op.longsAttr("kernel");
        long[] s = op.longsAttr("strides");
        long[] pb = op.longsAttr("pads_begin");
        long[] pe = op.longsAttr("pads_end");
        int n = k.length;
        if (n == 0) {
            throw new InvalidGraphException(op.id(), op.describe() + ": kernel is empty; expected one size per "
                    + "spatial dim");
        }
        check(op, "strides", s, n, 1);
        check(op, "pads_begin", pb, n, 0);
        check(op, "pads_end", pe, n, 0);
        check(op, "kernel", k, n, 1);
        long[] src = op.input(0).dims();
        if (src != null && src.length != n + 2) {
            throw new InvalidGraphException(op.id(), op.describe() + ": src " + dimsToString(src) + " has rank "
                    + src.length + " but kernel " + Arrays.toString(k) + " has " + n + " spatial dims; expected rank "
                    + (n + 2));
        }
    }

    private static void check(Op op, String name, long[] v, int n, long min) {
        if (v.length != 0 && v.length != n) {
            throw new InvalidGraphException(op.id(), op.describe() + ": " + name + " " + Arrays.toString(v) + " has "
                    + v.length + " values; expected " + n + " (one per spatial dim)");
        }
        for (long x : v) {
            if (x < min) {
                throw new InvalidGraphException(op.id(), op.describe() + ": " + name + " " + Arrays.toString(v)
                        + " has " + x + "; expected values >= " + min);
            }
        }
    }

    /** An attribute's value per spatial dim, its default when empty. */
    private static long attr(Op op, String name, int d, long def) {
        long[] v = op.longsAttr(name);
        return v.length == 0 ? def : v[d];
    }

    /**
     * The dims unpooling gives (the MaxPool input the attributes describe): N and C of src, each
     * spatial dim {@code (in - 1) * stride - pads + kernel}. Unknown src dims stay unknown.
     */
    public static long[] unpooledDims(Op op, long[] src) {
        long[] k = op.longsAttr("kernel");
        long[] out = src.clone();
        for (int d = 0; d < k.length; d++) {
            long in = src[d + 2];
            if (in < 0) {
                continue;
            }
            long v = (in - 1) * attr(op, "strides", d, 1) - attr(op, "pads_begin", d, 0) - attr(op, "pads_end", d, 0)
                    + k[d];
            if (v < 1) {
                throw new InvalidGraphException(op.id(), op.describe() + ": src " + dimsToString(src)
                        + " unpools to spatial dim " + d + " of size " + v + "; expected >= 1 (pads too large)");
            }
            out[d + 2] = v;
        }
        return out;
    }

    /** output_shape must have src's rank and hold every unpooled dim (the result sits at its start). */
    public static void checkOutputShape(Op op, long[] unpooled, long[] shape) {
        if (shape.length != unpooled.length) {
            throw new InvalidGraphException(op.id(), op.describe() + ": output_shape " + Arrays.toString(shape)
                    + " has " + shape.length + " values; expected " + unpooled.length + " (src's rank)");
        }
        for (int i = 0; i < shape.length; i++) {
            if (unpooled[i] >= 0 && shape[i] < unpooled[i] || shape[i] < 0) {
                throw new InvalidGraphException(op.id(), op.describe() + ": output_shape " + Arrays.toString(shape)
                        + " is smaller than the unpooled dims " + dimsToString(unpooled) + " at dim " + i);
            }
        }
    }

    private static void inferUnpool(ShapeContext ctx) {
        long[] src = ctx.dims(0);
        long[] idx = ctx.dims(1);
        if (src != null && idx != null) {
            ctx.requireRank(1, src.length);
            for (int i = 0; i < src.length; i++) {
                ctx.requireEqual(src[i], idx[i], "indices dim " + i);
            }
        }
        if (src == null) {
            return;
        }
        long[] unpooled = unpooledDims(ctx.op(), src);
        if (!ctx.hasInput(2)) {
            ctx.setOutput(0, unpooled);
            return;
        }
        long[] shape = ctx.values(2);
        if (shape == null) {
            // Known only at execution: a declared output of src's rank stands (the runtime checks it
            // against the values when it runs), else the dims are dynamic.
            long[] declared = ctx.declaredOutput(0).dims();
            long[] out = new long[src.length];
            Arrays.fill(out, LogicalTensor.DYNAMIC_DIM);
            ctx.setOutput(0, declared != null && declared.length == src.length ? declared : out);
            return;
        }
        checkOutputShape(ctx.op(), unpooled, shape);
        ctx.setOutput(0, shape);
    }
}
