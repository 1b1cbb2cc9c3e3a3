package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import io.partita.backend.dnnl.internal.isa.Isa;

/**
 * SoftMax along one axis, numerically stable: {@code dst = exp(x - max) / sum(exp(x - max))}, the
 * optional {@code stats} output {@code max + log(sum)}. Mode {@code inf_as_zero} gives zeros (stats
 * -inf) for a line of only -inf, mode {@code none} NaN, as oneDNN. The axis last: one line per
 * row, vectorised along it. Otherwise neighbouring lines at once, one per vector lane, so
 * every load is contiguous. Post-ops run on each finished block while it is in cache. A source
 * whose lines are not contiguous is first copied into dst and normalized there.
 */
public final class SoftMaxPrimitive implements Primitive {
    private static final VectorSpecies<Float> S = Isa.FLOAT;
    /** Floats per vector (a constant C2 folds). */
    private static final int L = Isa.LANES;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    /**
     * Shape, source strides, axis, mode, ports ({@code statsOutput} -1 when absent) and post-ops:
     * the primitive cache key.
     */
    public record Desc(long[] dims, long[] srcStrides, int axis, boolean infAsZero, int srcInput, int statsOutput,
            PostOpChain post, int[] postInputs) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Desc d && Arrays.equals(d.dims, dims) && Arrays.equals(d.srcStrides, srcStrides)
                    && d.axis == axis && d.infAsZero == infAsZero && d.srcInput == srcInput
                    && d.statsOutput == statsOutput && d.post.equals(post) && Arrays.equals(d.postInputs, postInputs);
        }

        @Override
        public int hashCode() {
            return ((Arrays.hashCode(dims) * 31 + Arrays.hashCode(srcStrides)) * 31 + axis * 7 + statsOutput) * 31
                    + post.hashCode() + (infAsZero ? 1 : 0);
        }
    }

    public static Desc describe(Op op, List<LogicalTensor> inputs, List<LogicalTensor> outputs, PostOpChain post,
            int[] postInputs) {
        LogicalTensor src = Views.port(inputs, op.input(0));
        // output 0 is the partition's final value (the op's dst, or the end of its post-op chain)
        Views.requireDense(outputs.get(0), "SoftMax");
        int stats = op.outputs().size() > 1 ? Views.indexOf(outputs, op.output(1).id()) : -1;
        if (stats >= 0) {
            Views.requireDense(outputs.get(stats), "SoftMax stats");
        }
        long[] dims = src.dims();
        int axis = Views.normalizeAxis(op.longAttr("axis"), dims.length);
        return new Desc(dims, src.strides(), axis, "inf_as_zero".equals(op.stringAttr("mode")),
                Views.indexOf(inputs, src.id()), stats, post, postInputs);
    }

    private final Desc d;
    private final int outer;
    private final int len;
    private final int inner;
    /** Copy of the source into dst when its lines are not contiguous, else null. */
    private final StridedCopy.Plan stage;
    private final long[] outerDims;
    private final long[] outerStrides;
    private final long axisStride;

    public SoftMaxPrimitive(Desc d) {
        this.d = d;
        long[] dims = d.dims;
        int a = d.axis;
        this.outer = (int) Views.product(dims, 0, a);
        this.len = (int) dims[a];
        this.inner = (int) Views.product(dims, a + 1, dims.length);
        boolean direct = Views.contiguous(dims, d.srcStrides, a + 1, dims.length) && (inner > 1 || len == 1
                || d.srcStrides[a] == 1);
        long[] dense = io.partita.graph.LogicalTensor.denseStrides(dims);
        this.stage = direct ? null : StridedCopy.plan(dims, d.srcStrides, dims, dense);
        long[] strides = direct ? d.srcStrides : dense;
        this.outerDims = Arrays.copyOf(dims, a);
        this.outerStrides = Arrays.copyOf(strides, a);
        this.axisStride = strides[a];
    }

    @Override
    public void execute(Invocation inv) {
        MemorySegment out = inv.out(0);
        MemorySegment src = inv.in(d.srcInput);
        if (stage != null) {
            StridedCopy.run(stage, src, 0, StridedCopy.F32, out, 0, StridedCopy.F32, inv.pool());
            src = out;
        }
        MemorySegment stats = d.statsOutput >= 0 ? inv.out(d.statsOutput) : null;
        PostOpChain.Bound post = d.post.isEmpty() ? null : d.post.bind(inv.operands(d.postInputs));
        MemorySegment in = src;
        long total = (long) outer * len * inner;
        if (total == 0) {
            return;
        }
        if (inner == 1) {
            Views.parallel(inv.pool(), outer, total, (o0, o1) -> {
                for (int o = o0; o < o1; o++) {
                    long so = Views.offset(o, outerDims, outerStrides, 0, outerDims.length);
                    row(in, so, out, (long) o * len, stats, o);
                    if (post != null) {
                        post.apply(out, 4L * o * len, (long) o * len, len);
                    }
                }
            });
            return;
        }
        // Column blocks whose len rows stay in cache across the three passes (about 256 KB).
        int width = (int) Math.min(inner, Math.max(L, (65536 / Math.max(len, 1)) & -L));
        int blocks = (inner + width - 1) / width;
        Views.parallel(inv.pool(), outer * blocks, total, (t0, t1) -> {
            float[] max = new float[width];
            float[] sum = new float[width];
            for (int t = t0; t < t1; t++) {
                int o = t / blocks;
                int c0 = t % blocks * width;
                int c1 = Math.min(inner, c0 + width);
                long so = Views.offset(o, outerDims, outerStrides, 0, outerDims.length);
                long dof = (long) o * len * inner;
                columns(in, so, out, dof, stats, (long) o * inner, c0, c1, max, sum);
                if (post != null) {
                    if (blocks == 1) {
                        post.apply(out, 4 * dof, dof, len * inner);
                    } else {
                        for (int k = 0; k < len; k++) {
                            long f = dof + (long) k * inner + c0;
                            post.apply(out, 4 * f, f, c1 - c0);
                        }
                    }
                }
            }
        });
    }

    /**
     * One line along the last axis: source at element {@code so} (unit stride), dst at {@code dof}.
     * The three passes are separate methods on purpose: as one method, C1 ran out of registers
     * compiling it at tier 3, and a method C1 cannot profile never reached C2 (it ran on boxed
     * vectors).
     */
    private void row(MemorySegment src, long so, MemorySegment dst, long dof, MemorySegment stats, long line) {
        int n = len;
        float max = rowMax(src, so, n);
        if (d.infAsZero && max == Float.NEGATIVE_INFINITY) {
            dst.asSlice(4 * dof, 4L * n).fill((byte) 0);
            if (stats != null) {
                stats.set(F, 4 * line, Float.NEGATIVE_INFINITY);
            }
            return;
        }
        float sum = rowExp(src, so, dst, dof, n, max);
        rowScale(dst, dof, n, 1f / sum);
        if (stats != null) {
            stats.set(F, 4 * line, max + (float) Math.log(sum));
        }
    }

    private static float rowMax(MemorySegment src, long so, int n) {
        FloatVector mv = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        int q = 0;
        for (; q + L <= n; q += L) {
            mv = mv.max(FloatVector.fromMemorySegment(S, src, 4 * (so + q), ORDER));
        }
        float max = mv.reduceLanes(VectorOperators.MAX);
        for (; q < n; q++) {
            max = Math.max(max, src.get(F, 4 * (so + q)));
        }
        return max;
    }

    /** Writes exp(x - max) to dst and returns the sum. */
    private static float rowExp(MemorySegment src, long so, MemorySegment dst, long dof, int n, float max) {
        FloatVector m = FloatVector.broadcast(S, max);
        FloatVector sv = FloatVector.zero(S);
        int q = 0;
        for (; q + L <= n; q += L) {
            FloatVector e = FloatVector.fromMemorySegment(S, src, 4 * (so + q), ORDER).sub(m)
                    .lanewise(VectorOperators.EXP);
            e.intoMemorySegment(dst, 4 * (dof + q), ORDER);
            sv = sv.add(e);
        }
        if (q < n) {
            VectorMask<Float> k = S.indexInRange(q, n);
            FloatVector e = FloatVector.fromMemorySegment(S, src, 4 * (so + q), ORDER, k).sub(m)
                    .lanewise(VectorOperators.EXP);
            e.intoMemorySegment(dst, 4 * (dof + q), ORDER, k);
            sv = sv.add(e, k);
        }
        return sv.reduceLanes(VectorOperators.ADD);
    }

    private static void rowScale(MemorySegment dst, long dof, int n, float factor) {
        FloatVector scale = FloatVector.broadcast(S, factor);
        int q = 0;
        for (; q + L <= n; q += L) {
            long o = 4 * (dof + q);
            FloatVector.fromMemorySegment(S, dst, o, ORDER).mul(scale).intoMemorySegment(dst, o, ORDER);
        }
        if (q < n) {
            VectorMask<Float> k = S.indexInRange(q, n);
            long o = 4 * (dof + q);
            FloatVector.fromMemorySegment(S, dst, o, ORDER, k).mul(scale).intoMemorySegment(dst, o, ORDER, k);
        }
    }

    /**
     * Lines {@code c0 <= j < c1} of an outer block, one per vector lane: line j's element k is at
     * {@code so + k * axisStride + j} in the source and {@code dof + k * inner + j} in dst. Each
     * pass walks the block row by row (k outer), so memory is read sequentially and the block
     * stays in cache between the passes; per-line maxima and sums live in {@code max}/{@code sum}.
     * The passes are separate methods for the reason given at {@link #row}.
     */
    private void columns(MemorySegment src, long so, MemorySegment dst, long dof, MemorySegment stats, long statsBase,
            int c0, int c1, float[] max, float[] sum) {
        int n = c1 - c0;
        java.util.Arrays.fill(max, 0, n, Float.NEGATIVE_INFINITY);
        java.util.Arrays.fill(sum, 0, n, 0f);
        columnsMax(src, so + c0, n, max);
        columnsExp(src, so + c0, dst, dof + c0, n, max, sum);
        if (stats != null) {
            for (int j = 0; j < n; j++) {
                boolean empty = d.infAsZero && max[j] == Float.NEGATIVE_INFINITY;
                stats.set(F, 4 * (statsBase + c0 + j), empty ? Float.NEGATIVE_INFINITY
                        : max[j] + (float) Math.log(sum[j]));
            }
        }
        // sum now holds the scale; lines of only -inf (inf_as_zero) get 0 and are overwritten with 0 below
        boolean anyEmpty = false;
        for (int j = 0; j < n; j++) {
            boolean empty = d.infAsZero && max[j] == Float.NEGATIVE_INFINITY;
            anyEmpty |= empty;
            sum[j] = empty ? 0f : 1f / sum[j];
        }
        columnsScale(dst, dof + c0, n, sum, anyEmpty ? max : null);
    }

    private void columnsMax(MemorySegment src, long so, int n, float[] max) {
        int full = n & -L;
        VectorMask<Float> tail = S.indexInRange(full, n);
        for (int k = 0; k < len; k++) {
            long o = 4 * (so + k * axisStride);
            int q = 0;
            for (; q < full; q += L) {
                FloatVector.fromArray(S, max, q).max(FloatVector.fromMemorySegment(S, src, o + 4L * q, ORDER))
                        .intoArray(max, q);
            }
            if (q < n) {
                FloatVector.fromArray(S, max, q, tail)
                        .max(FloatVector.fromMemorySegment(S, src, o + 4L * q, ORDER, tail)).intoArray(max, q, tail);
            }
        }
    }

    private void columnsExp(MemorySegment src, long so, MemorySegment dst, long dof, int n, float[] max, float[] sum) {
        int full = n & -L;
        VectorMask<Float> tail = S.indexInRange(full, n);
        for (int k = 0; k < len; k++) {
            long o = 4 * (so + k * axisStride);
            long w = 4 * (dof + (long) k * inner);
            int q = 0;
            for (; q < full; q += L) {
                FloatVector e = FloatVector.fromMemorySegment(S, src, o + 4L * q, ORDER)
                        .sub(FloatVector.fromArray(S, max, q)).lanewise(VectorOperators.EXP);
                e.intoMemorySegment(dst, w + 4L * q, ORDER);
                FloatVector.fromArray(S, sum, q).add(e).intoArray(sum, q);
            }
            if (q < n) {
                FloatVector e = FloatVector.fromMemorySegment(S, src, o + 4L * q, ORDER, tail)
                        .sub(FloatVector.fromArray(S, max, q, tail)).lanewise(VectorOperators.EXP);
                e.intoMemorySegment(dst, w + 4L * q, ORDER, tail);
                FloatVector.fromArray(S, sum, q, tail).add(e).intoArray(sum, q, tail);
            }
        }
    }

    /** Multiplies by the per-line scale; where {@code max} is given, lines of only -inf get 0. */
    private void columnsScale(MemorySegment dst, long dof, int n, float[] scale, float[] max) {
        int full = n & -L;
        VectorMask<Float> tail = S.indexInRange(full, n);
        for (int k = 0; k < len; k++) {
            long w = 4 * (dof + (long) k * inner);
            int q = 0;
            for (; q < full; q += L) {
                FloatVector.fromMemorySegment(S, dst, w + 4L * q, ORDER).mul(FloatVector.fromArray(S, scale, q))
                        .intoMemorySegment(dst, w + 4L * q, ORDER);
            }
            if (q < n) {
                FloatVector.fromMemorySegment(S, dst, w + 4L * q, ORDER, tail)
                        .mul(FloatVector.fromArray(S, scale, q, tail))
                        .intoMemorySegment(dst, w + 4L * q, ORDER, tail);
            }
            if (max != null) {
                for (int j = 0; j < n; j++) {
                    if (scale[j] == 0f && max[j] == Float.NEGATIVE_INFINITY) {
                        dst.set(F, w + 4L * j, 0f); // NaN * 0 is NaN: write the 0
                    }
                }
            }
        }
    }

    @Override
    public String toString() {
        return "softmax " + Arrays.toString(d.dims) + " axis " + d.axis + (d.infAsZero ? " inf_as_zero" : "")
                + (d.post.isEmpty() ? "" : " " + d.post);
    }
}
