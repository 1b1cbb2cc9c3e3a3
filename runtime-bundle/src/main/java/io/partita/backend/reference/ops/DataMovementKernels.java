package io.partita.backend.reference.ops;

import java.util.function.BiConsumer;

import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefOp;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.ops.DataMovementSchemas;

/**
 * Reference kernels of reshapes, transposes, concatenation, reorders, casts, dropout, index
 * generation and markers (quantization in {@link QuantizationKernels}, registered from here).
 * The reference sees logical row-major data, so reshapes, reorders and casts are copies; the
 * interpreter rounds a cast's output to its data type.
 */
public final class DataMovementKernels {
    private DataMovementKernels() {
    }

    public static void register(BiConsumer<OpKind, RefOp> r) {
        r.accept(OpKind.End, ctx -> {
            // End only marks a graph output: nothing to compute.
        });
        r.accept(OpKind.StaticReshape, DataMovementKernels::share);
        r.accept(OpKind.DynamicReshape, DataMovementKernels::share);
        r.accept(OpKind.Reorder, DataMovementKernels::share);
        r.accept(OpKind.TypeCast, DataMovementKernels::copy);
        r.accept(OpKind.StaticTranspose, ctx -> transpose(ctx, ctx.op().longsAttr("order")));
        r.accept(OpKind.DynamicTranspose, ctx -> transpose(ctx, ctx.in(1).toLongs()));
        r.accept(OpKind.Concat, DataMovementKernels::concat);
        r.accept(OpKind.GenIndex, DataMovementKernels::genIndex);
        r.accept(OpKind.Dropout, DataMovementKernels::dropout);
        // Wildcard has a schema but no reference kernel: the backend refuses it by name.
        QuantizationKernels.register(r);
    }

    /**
     * Output 0 is input 0's elements under the output dims, sharing the element array: the data
     * type is the same (the schema says so), so the interpreter's rounding of the output leaves the
     * shared values unchanged, and kernels never write their inputs.
     */
    private static void share(RefContext ctx) {
        RefTensor src = ctx.in(0);
        ctx.setOut(0, new RefTensor(ctx.op().output(0).dataType(), ctx.outputDims(0), src.data()));
    }

    /** Output 0 holds a copy of input 0's elements in the same logical order (rounded on output). */
    private static void copy(RefContext ctx) {
        double[] src = ctx.in(0).data();
        System.arraycopy(src, 0, ctx.out(0).data(), 0, src.length);
    }

    /** Output dim i is input dim perm[i]: walks the output in order, stepping through the input. */
    private static void transpose(RefContext ctx, long[] order) {
        RefTensor src = ctx.in(0);
        RefTensor out = ctx.out(0);
        int rank = src.rank();
        int[] perm = DataMovementSchemas.permutation(order, rank);
        long[] dims = out.dims();
        long[] step = new long[rank];
        for (int i = 0; i < rank; i++) {
            step[i] = src.strides()[perm[i]];
        }
        double[] x = src.data();
        double[] y = out.data();
        long[] idx = new long[rank];
        long off = 0;
        for (int k = 0; k < y.length; k++) {
            y[k] = x[(int) off];
            for (int d = rank - 1; d >= 0; d--) {
                idx[d]++;
                off += step[d];
                if (idx[d] < dims[d]) {
                    break;
                }
                off -= step[d] * idx[d];
                idx[d] = 0;
            }
        }
    }

    private static void concat(RefContext ctx) {
        RefTensor out = ctx.out(0);
        int rank = out.rank();
        int axis = (int) Math.floorMod(ctx.op().longAttr("axis"), rank);
        long inner = 1;
        for (int i = axis + 1; i < rank; i++) {
            inner *= out.dim(i);
        }
        long outer = 1;
        for (int i = 0; i < axis; i++) {
            outer *= out.dim(i);
        }
        int outBlock = (int) (out.dim(axis) * inner);
        double[] y = out.data();
        int at = 0;
        for (int k = 0; k < ctx.inputCount(); k++) {
            RefTensor in = ctx.in(k);
            int block = (int) (in.dim(axis) * inner);
            double[] x = in.data();
            for (int o = 0; o < outer; o++) {
                System.arraycopy(x, o * block, y, o * outBlock + at, block);
            }
            at += block;
        }
    }

    /** Every element gets its index along the axis. */
    private static void genIndex(RefContext ctx) {
        RefTensor out = ctx.out(0);
        int rank = out.rank();
        int axis = (int) Math.floorMod(ctx.op().longAttr("axis"), rank);
        long inner = 1;
        for (int i = axis + 1; i < rank; i++) {
            inner *= out.dim(i);
        }
        long len = out.dim(axis);
        double[] y = out.data();
        for (int i = 0; i < y.length; i++) {
            y[i] = (i / inner) % len;
        }
    }

    /**
     * Dropout: element i is kept when {@code u_i > p}, where {@code u_i} in (0, 1) comes from a
     * counter-based generator keyed by the seed and offset inputs (see {@link #uniform}); kept
     * elements are scaled by {@code 1 / (1 - p)}, dropped ones are 0; the optional mask output is
     * 1 for kept elements. Deterministic for a given (seed, offset, element index), whatever the
     * thread count. It does not reproduce oneDNN's Philox-based masks bit for bit: compare Dropout
     * outputs between backends through the mask, not element values.
     */
    private static void dropout(RefContext ctx) {
        long seed = (long) ctx.in(1).data()[0];
        long offset = (long) ctx.in(2).data()[0];
        double p = ctx.in(3).data()[0];
        if (!(p >= 0 && p <= 1)) {
            throw new InvalidArgumentException(ctx.op().describe() + ": probability (input 3) is " + p
                    + "; expected a value in [0, 1]");
        }
        double[] x = ctx.in(0).data();
        double[] y = ctx.out(0).data();
        double[] mask = ctx.outputCount() > 1 ? ctx.out(1).data() : null;
        double scale = p < 1 ? 1 / (1 - p) : 0;
        long stream = streamKey(seed, offset);
        for (int i = 0; i < x.length; i++) {
            boolean keep = uniform(stream, i) > p;
            y[i] = keep ? x[i] * scale : 0;
            if (mask != null) {
                mask[i] = keep ? 1 : 0;
            }
        }
    }

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    /** The generator stream of a (seed, offset) pair: distinct offsets give unrelated streams. */
    static long streamKey(long seed, long offset) {
        return mix64(mix64(seed + GOLDEN) ^ mix64(offset * GOLDEN + 0x632BE59BD9B4E019L));
    }

    /**
     * The i-th uniform value of a stream: the SplitMix64 finalizer of the stream key plus i times
     * the golden-ratio increment, top 24 bits, centred in its bin so the value is in (0, 1).
     */
    static double uniform(long stream, long i) {
        long h = mix64(stream + (i + 1) * GOLDEN);
        return ((h >>> 40) + 0.5) / (1 << 24);
    }

    /** The SplitMix64 finalizer (Steele, Lea, Flood 2014). */
    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
