package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

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
 * LayerNorm forward: each row (the dims from {@code begin_norm_axis} on) normalized with its biased
 * mean and variance, {@code dst = (x - mean) / sqrt(var + epsilon) * gamma + beta} with gamma and
 * beta only under {@code use_affine}; the mean and variance outputs are written when the op has
 * them (with or without {@code keep_stats}, as the reference). Two passes for the statistics (the
 * variance from centred values, so large means do not cancel), one for the output, all vectorised
 * along the row; rows in parallel.
 */
public final class LayerNormPrimitive implements Primitive {
    private static final VectorSpecies<Float> S = Isa.FLOAT;
    /** Floats per vector (a constant C2 folds). */
    private static final int L = Isa.LANES;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    /**
     * Shape, source strides, where normalization begins, epsilon, ports (-1 when absent) and the
     * strides of gamma and beta over the normalized elements: the primitive cache key.
     */
    public record Desc(long[] dims, long[] srcStrides, int begin, float epsilon, int srcInput, int gammaInput,
            int betaInput, long[] gammaDims, long[] gammaStrides, long[] betaDims, long[] betaStrides, int meanOutput,
            int varianceOutput) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Desc d && Arrays.equals(d.dims, dims) && Arrays.equals(d.srcStrides, srcStrides)
                    && d.begin == begin && Float.compare(d.epsilon, epsilon) == 0 && d.srcInput == srcInput
                    && d.gammaInput == gammaInput && d.betaInput == betaInput && Arrays.equals(d.gammaDims, gammaDims)
                    && Arrays.equals(d.betaDims, betaDims) && Arrays.equals(d.gammaStrides, gammaStrides)
                    && Arrays.equals(d.betaStrides, betaStrides)
                    && d.meanOutput == meanOutput && d.varianceOutput == varianceOutput;
        }

        @Override
        public int hashCode() {
            return ((Arrays.hashCode(dims) * 31 + Arrays.hashCode(srcStrides)) * 31 + begin) * 31
                    + Float.hashCode(epsilon) + gammaInput * 7 + meanOutput;
        }
    }

    public static Desc describe(Op op, List<LogicalTensor> inputs, List<LogicalTensor> outputs) {
        LogicalTensor src = Views.port(inputs, op.input(0));
        Views.requireDense(Views.port(outputs, op.output(0)), "LayerNorm");
        long[] dims = src.dims();
        int begin = Views.normalizeAxis(op.longAttr("begin_norm_axis"), dims.length);
        boolean affine = op.boolAttr("use_affine") && op.inputs().size() == 3;
        long cols = Views.product(dims, begin, dims.length);
        long[] gd = null;
        long[] bd = null;
        long[] gs = null;
        long[] bs = null;
        int gi = -1;
        int bi = -1;
        if (affine) {
            LogicalTensor g = Views.port(inputs, op.input(1));
            LogicalTensor b = Views.port(inputs, op.input(2));
            gd = g.dims();
            bd = b.dims();
            gs = g.strides();
            bs = b.strides();
            gi = Views.indexOf(inputs, g.id());
            bi = Views.indexOf(inputs, b.id());
        }
        int mean = -1;
        int var = -1;
        if (op.outputs().size() == 3) {
            mean = Views.indexOf(outputs, op.output(1).id());
            var = Views.indexOf(outputs, op.output(2).id());
            if (mean >= 0) {
                Views.requireDense(outputs.get(mean), "LayerNorm mean");
            }
            if (var >= 0) {
                Views.requireDense(outputs.get(var), "LayerNorm variance");
            }
        }
        return new Desc(dims, src.strides(), begin, op.floatAttr("epsilon"), Views.indexOf(inputs, src.id()), gi, bi,
                gd, gs, bd, bs, mean, var);
    }

    private final Desc d;
    private final int rows;
    private final int cols;
    private final long[] outerDims;
    private final long[] outerStrides;
    /** Copy of the source into dst when a row is not contiguous, else null. */
    private final StridedCopy.Plan stage;
    /** Gathers of gamma/beta into dense rows when they are not contiguous, else null. */
    private final StridedCopy.Plan gammaPack;
    private final StridedCopy.Plan betaPack;

    public LayerNormPrimitive(Desc d) {
        this.d = d;
        long[] dims = d.dims;
        this.rows = (int) Views.product(dims, 0, d.begin);
        this.cols = (int) Views.product(dims, d.begin, dims.length);
        boolean direct = Views.contiguous(dims, d.srcStrides, d.begin, dims.length);
        long[] dense = LogicalTensor.denseStrides(dims);
        this.stage = direct ? null : StridedCopy.plan(dims, d.srcStrides, dims, dense);
        this.outerDims = Arrays.copyOf(dims, d.begin);
        this.outerStrides = Arrays.copyOf(direct ? d.srcStrides : dense, d.begin);
        long[] flat = {cols};
        long[] unit = {1};
        boolean affine = d.gammaInput >= 0;
        this.gammaPack = affine && !Views.contiguous(d.gammaDims, d.gammaStrides, 0, d.gammaDims.length)
                ? StridedCopy.plan(d.gammaDims, d.gammaStrides, flat, unit) : null;
        this.betaPack = affine && !Views.contiguous(d.betaDims, d.betaStrides, 0, d.betaDims.length)
                ? StridedCopy.plan(d.betaDims, d.betaStrides, flat, unit) : null;
    }

    @Override
    public void execute(Invocation inv) {
        MemorySegment out = inv.out(0);
        MemorySegment src = inv.in(d.srcInput);
        if (stage != null) {
            StridedCopy.run(stage, src, 0, StridedCopy.F32, out, 0, StridedCopy.F32, inv.pool());
            src = out;
        }
        MemorySegment gamma = d.gammaInput < 0 ? null : param(inv.in(d.gammaInput), gammaPack);
        MemorySegment beta = d.betaInput < 0 ? null : param(inv.in(d.betaInput), betaPack);
        MemorySegment mean = d.meanOutput >= 0 ? inv.out(d.meanOutput) : null;
        MemorySegment var = d.varianceOutput >= 0 ? inv.out(d.varianceOutput) : null;
        MemorySegment in = src;
        Views.parallel(inv.pool(), rows, (long) rows * cols, (r0, r1) -> {
            float[] moments = new float[2];
            for (int r = r0; r < r1; r++) {
                long so = Views.offset(r, outerDims, outerStrides, 0, outerDims.length);
                row(in, so, out, (long) r * cols, gamma, beta, mean, var, r, moments);
            }
        });
    }

    private MemorySegment param(MemorySegment seg, StridedCopy.Plan pack) {
        if (pack == null) {
            return seg;
        }
        MemorySegment dense = MemorySegment.ofArray(new float[cols]);
        StridedCopy.run(pack, seg, 0, StridedCopy.F32, dense, 0, StridedCopy.F32, null);
        return dense;
    }

    private void row(MemorySegment src, long so, MemorySegment dst, long dof, MemorySegment gamma, MemorySegment beta,
            MemorySegment meanOut, MemorySegment varOut, int r, float[] moments) {
        // The passes are separate methods on purpose: as one method, C1 ran out of registers at
        // tier 3, and a method C1 cannot profile never reached C2 (it ran on boxed vectors).
        int n = cols;
        float rough = sum(src, so, n) / n;
        // Centred second pass; the residual sum corrects the rounded mean (corrected two-pass).
        centredMoments(src, so, n, rough, moments);
        float corr = moments[1] / n;
        float mean = rough + corr;
        float var = Math.max(0f, moments[0] / n - corr * corr);
        float inv = (float) (1 / Math.sqrt((double) var + d.epsilon));
        normalize(src, so, dst, dof, gamma, beta, n, rough, corr, inv);
        if (meanOut != null) {
            meanOut.set(F, 4L * r, mean);
        }
        if (varOut != null) {
            varOut.set(F, 4L * r, var);
        }
    }

    private static float sum(MemorySegment src, long so, int n) {
        int full = n & -L;
        FloatVector acc = FloatVector.zero(S);
        for (int q = 0; q < full; q += L) {
            acc = acc.add(FloatVector.fromMemorySegment(S, src, 4 * (so + q), ORDER));
        }
        if (full < n) {
            acc = acc.add(FloatVector.fromMemorySegment(S, src, 4 * (so + full), ORDER, S.indexInRange(full, n)));
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    /** The sums of squares and of (x - rough), into {@code moments[0]} and {@code moments[1]}. */
    private static void centredMoments(MemorySegment src, long so, int n, float rough, float[] moments) {
        int full = n & -L;
        FloatVector m = FloatVector.broadcast(S, rough);
        FloatVector sq = FloatVector.zero(S);
        FloatVector res = FloatVector.zero(S);
        for (int q = 0; q < full; q += L) {
            FloatVector c = FloatVector.fromMemorySegment(S, src, 4 * (so + q), ORDER).sub(m);
            sq = c.fma(c, sq);
            res = res.add(c);
        }
        if (full < n) {
            VectorMask<Float> tail = S.indexInRange(full, n);
            FloatVector c = FloatVector.fromMemorySegment(S, src, 4 * (so + full), ORDER, tail).sub(m);
            sq = sq.add(c.mul(c), tail);
            res = res.add(c, tail);
        }
        moments[0] = sq.reduceLanes(VectorOperators.ADD);
        moments[1] = res.reduceLanes(VectorOperators.ADD);
    }

    private static void normalize(MemorySegment src, long so, MemorySegment dst, long dof, MemorySegment gamma,
            MemorySegment beta, int n, float rough, float corr, float inv) {
        int full = n & -L;
        // x - mean as (x - rough) - corr: the first difference is exact for x near the mean, and
        // a float mean would round away what corr recovered
        FloatVector m = FloatVector.broadcast(S, rough);
        FloatVector cv = FloatVector.broadcast(S, corr);
        FloatVector iv = FloatVector.broadcast(S, inv);
        for (int q = 0; q < full; q += L) {
            FloatVector y = FloatVector.fromMemorySegment(S, src, 4 * (so + q), ORDER).sub(m).sub(cv).mul(iv);
            if (gamma != null) {
                y = y.fma(FloatVector.fromMemorySegment(S, gamma, 4L * q, ORDER),
                        FloatVector.fromMemorySegment(S, beta, 4L * q, ORDER));
            }
            y.intoMemorySegment(dst, 4 * (dof + q), ORDER);
        }
        if (full < n) {
            VectorMask<Float> tail = S.indexInRange(full, n);
            FloatVector y = FloatVector.fromMemorySegment(S, src, 4 * (so + full), ORDER, tail).sub(m).sub(cv).mul(iv);
            if (gamma != null) {
                y = y.fma(FloatVector.fromMemorySegment(S, gamma, 4L * full, ORDER, tail),
                        FloatVector.fromMemorySegment(S, beta, 4L * full, ORDER, tail));
            }
            y.intoMemorySegment(dst, 4 * (dof + full), ORDER, tail);
        }
    }

    @Override
    public String toString() {
        return "layernorm " + Arrays.toString(d.dims) + " from axis " + d.begin + (d.gammaInput >= 0 ? " affine" : "");
    }
}
