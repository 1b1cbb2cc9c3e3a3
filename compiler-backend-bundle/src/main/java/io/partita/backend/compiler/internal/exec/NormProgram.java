package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

import io.partita.backend.compiler.internal.codegen.RowKernel;
import io.partita.backend.compiler.internal.codegen.RowKernelGenerator;
import io.partita.backend.compiler.internal.codegen.VectorMath;
import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.ExprBuilder;
import io.partita.backend.compiler.internal.expr.Fn;
import io.partita.backend.compiler.internal.fusion.NormShape;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.CompileRequest;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

/**
 * A compiled LayerNorm/RMSNorm with its elementwise neighbours, row by row: the generated pre
 * kernel computes src's row into a buffer (or the row is copied in), the statistics are reduced
 * from that buffer in f32 vectors (two passes for the variance: the row is in cache, and
 * subtracting the mean first keeps large offsets from cancelling), and the generated post kernel
 * normalises, applies gamma/beta and the rest of the chain in place before the row is written.
 * No tensor between the ops exists beyond one row per thread.
 */
public final class NormProgram implements Program {
    private final CompileRequest request;
    private final boolean layer;
    private final float eps;
    /** Null when src is a partition input, copied into the row buffer. */
    private final RowKernel pre;
    private final RowOperands preOps;
    private final int preSlots;
    private final RowKernel post;
    private final RowOperands postOps;
    private final int postSlots;
    private final int fixedScalars;
    private final int gammaPort;
    private final int betaPort;
    private final int resultOut;
    private final int srcOut;
    private final int meanOut;
    private final int varOut;
    /** Each thread's row buffers, kept between calls (no allocation per call in steady state). */
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(() -> new Scratch(this));
    /**
     * Per calling thread: gamma and beta of the execution it runs, read by the pool's threads while
     * it waits (per-execution arrays were garbage on every iteration of a transformer).
     */
    private static final ThreadLocal<float[][]> CHANNEL_ROWS = ThreadLocal.withInitial(() -> new float[2][0]);

    public NormProgram(CompileRequest request, NormShape shape, RowKernelGenerator generator) {
        this.request = request;
        this.layer = shape.layerNorm();
        this.eps = shape.epsilon();
        long[] dims = shape.src().dims();
        int rank = dims.length;
        long c = dims[rank - 1];
        int staticN = c > 0 && c < Integer.MAX_VALUE / 8 ? (int) c : 0;
        String what = "partition " + request.partitionId() + " (" + request.pattern() + ")";
        long srcId = shape.src().id();

        preOps = new RowOperands(request, 0);
        if (shape.pre().isEmpty()) {
            preOps.row(shape.src());
            pre = null;
            preSlots = 1;
        } else {
            ExprBuilder b = new ExprBuilder();
            for (Op op : shape.pre()) {
                b.add(op, rank, t -> preOps.leaf(b, t));
            }
            Expr e = b.build(srcId);
            preSlots = e.sources();
            pre = generator.kernel(e, staticN, what);
        }

        // normalise (+ affine) as nodes ahead of the post chain: one generated loop for all of it
        ExprBuilder b = new ExprBuilder();
        int x = b.source();
        b.bind(srcId, x);
        int v;
        if (layer) {
            int mean = b.scalar();
            int inv = b.scalar();
            v = b.apply(Fn.MUL, b.apply(Fn.SUB, x, mean), inv);
            fixedScalars = 2;
        } else {
            v = b.apply(Fn.MUL, x, b.scalar());
            fixedScalars = 1;
        }
        int fixedSources = 1;
        Op norm = shape.norm();
        if (shape.affine()) {
            gammaPort = RowOperands.port(request, norm.input(1));
            v = b.apply(Fn.MUL, v, b.source());
            fixedSources++;
            if (layer) {
                betaPort = RowOperands.port(request, norm.input(2));
                v = b.apply(Fn.ADD, v, b.source());
                fixedSources++;
            } else {
                betaPort = -1;
            }
        } else {
            gammaPort = -1;
            betaPort = -1;
        }
        b.bind(norm.output(0).id(), v);
        postOps = new RowOperands(request, fixedSources);
        for (Op op : shape.post()) {
            b.add(op, rank, t -> postOps.leaf(b, t));
        }
        Expr e = b.build(shape.result().id());
        postSlots = e.sources();
        post = generator.kernel(e, staticN, what);

        int result = -1;
        int src = -1;
        int mean = -1;
        int var = -1;
        List<LogicalTensor> outs = request.outputs();
        for (int i = 0; i < outs.size(); i++) {
            long id = outs.get(i).id();
            if (id == shape.result().id()) {
                result = i;
            } else if (id == srcId) {
                src = i;
            } else if (norm.outputs().size() > 1 && id == norm.output(1).id()) {
                mean = i; // LayerNorm's mean, or RMSNorm's rrms
            } else if (norm.outputs().size() > 2 && id == norm.output(2).id()) {
                var = i;
            } else {
                throw new UnsupportedFeatureException(what + ": output " + id + " is inside the fused rows");
            }
        }
        if (result < 0) {
            throw new UnsupportedFeatureException(what + ": the result " + shape.result().id() + " is no output");
        }
        resultOut = result;
        srcOut = src;
        meanOut = mean;
        varOut = var;
    }

    @Override
    public void execute(List<Tensor> in, List<Tensor> out, Parallel pool) {
        Tensor res = out.get(resultOut);
        long[] dims = res.logicalTensor().dims();
        int last = dims.length - 1;
        long nL = dims[last];
        long rows = RowOperands.product(dims, last);
        if (nL > Integer.MAX_VALUE / 8) {
            throw new UnsupportedFeatureException("row length " + nL + " is beyond the fused normalisation's limit");
        }
        if (nL == 0 || rows == 0) {
            return;
        }
        int n = (int) nL;
        RowOperands.Bound preB = preOps.bind(in, dims);
        RowOperands.Bound postB = postOps.bind(in, dims);
        long srcLast = 1;
        for (int k = 0; k < preOps.rowCount(); k++) {
            srcLast = Math.max(srcLast, preB.lastDim(k));
        }
        if (srcLast != n) {
            // the row normalised must be the row written: a post chain may not widen it
            throw new UnsupportedFeatureException("partition " + request.partitionId() + ": normalised rows of "
                    + srcLast + " elements, result rows of " + n);
        }
        long[] lead = Arrays.copyOf(dims, last);
        for (int o : new int[] {meanOut, varOut, srcOut}) {
            if (o >= 0 && !Arrays.equals(out.get(o).logicalTensor().dims(), o == srcOut ? dims : lead)) {
                throw new UnsupportedFeatureException("partition " + request.partitionId() + ": output "
                        + LogicalTensor.dimsToString(out.get(o).logicalTensor().dims()) + " does not match rows "
                        + LogicalTensor.dimsToString(dims));
            }
        }
        int np = RowOperands.padded(n);
        float[][] channelBuf = CHANNEL_ROWS.get();
        float[] gamma = gammaPort < 0 ? null : perChannel(in.get(gammaPort), n, np, channelBuf, 0);
        float[] beta = betaPort < 0 ? null : perChannel(in.get(betaPort), n, np, channelBuf, 1);
        int tasks = RowOperands.tasks(rows, n, pool);
        pool.forEach(tasks, t -> rows(t * rows / tasks, (t + 1) * rows / tasks, n, np, dims, in, out, preB, postB,
                gamma, beta));
    }

    private void rows(long r0, long r1, int n, int np, long[] dims, List<Tensor> in, List<Tensor> out,
            RowOperands.Bound preB, RowOperands.Bound postB, float[] gamma, float[] beta) {
        int last = dims.length - 1;
        Scratch sc = scratch.get().fit(np);
        float[] rowBuf = sc.rowBuf;
        float[] postBuf = sc.postBuf;
        float[][] postSrc = sc.postSrc;
        int[] postOff = sc.postOff;
        if (postSlots > 1) {
            postSrc[1] = gamma == null ? postBuf : gamma;
            postOff[1] = gamma == null ? np : 0;
        }
        if (postSlots > 2) {
            postSrc[2] = beta == null ? postBuf : beta;
            postOff[2] = beta == null ? 2 * np : 0;
        }
        // operands the same for every row (per-channel scales, biases) are staged once; slot 0 never, it is overwritten
        boolean[] preEach = sc.preEach;
        for (int k = 0; k < preEach.length; k++) {
            preEach[k] = preB.slot(k) == 0 || !preB.rowInvariant(k);
            if (!preEach[k]) {
                preB.stage(k, 0, rowBuf, preB.slot(k) * np, n);
            }
        }
        boolean[] postEach = sc.postEach;
        for (int k = 0; k < postEach.length; k++) {
            postEach[k] = !postB.rowInvariant(k);
            if (!postEach[k]) {
                postB.stage(k, 0, postBuf, postB.slot(k) * np, n);
            }
        }
        float[] postScalars = sc.scalars(fixedScalars + postB.scalarValues.length);
        System.arraycopy(postB.scalarValues, 0, postScalars, fixedScalars, postB.scalarValues.length);
        Tensor res = out.get(resultOut);
        long[] resStrides = res.logicalTensor().strides();
        for (long r = r0; r < r1; r++) {
            for (int k = 0; k < preEach.length; k++) {
                if (preEach[k]) {
                    preB.stage(k, r, rowBuf, preB.slot(k) * np, n);
                }
            }
            if (pre != null) {
                pre.apply(sc.preSrc, sc.preOff, preB.scalarValues, n, (int) r, 0);
            }
            if (srcOut >= 0) {
                Tensor s = out.get(srcOut);
                long[] st = s.logicalTensor().strides();
                RowOperands.write(rowBuf, 0, s.data(), Strides.offset(r, dims, st, last), st[last], n);
            }
            float mean = 0;
            float second;
            if (layer) {
                mean = sum(rowBuf, n) / n;
                second = squaredDeviations(rowBuf, n, mean) / n; // variance
                postScalars[0] = mean;
                postScalars[1] = (float) (1 / Math.sqrt((double) second + eps));
            } else {
                second = (float) (1 / Math.sqrt((double) (squaredDeviations(rowBuf, n, 0f) / n) + eps)); // rrms
                postScalars[0] = second;
            }
            if (meanOut >= 0) {
                stat(out.get(meanOut), r, layer ? mean : second);
            }
            if (varOut >= 0) {
                stat(out.get(varOut), r, second);
            }
            for (int k = 0; k < postEach.length; k++) {
                if (postEach[k]) {
                    postB.stage(k, r, postBuf, postB.slot(k) * np, n);
                }
            }
            post.apply(postSrc, postOff, postScalars, n, (int) r, 0);
            RowOperands.write(rowBuf, 0, res.data(), Strides.offset(r, dims, resStrides, last), resStrides[last], n);
        }
    }

    private static void stat(Tensor t, long row, float v) {
        LogicalTensor lt = t.logicalTensor();
        t.data().setAtIndex(ValueLayout.JAVA_FLOAT, Strides.offset(row, lt.dims(), lt.strides(), lt.ndims()), v);
    }

    /** gamma or beta as one padded row ([C], [1, ..., C] or a single value), in {@code rows[slot]}. */
    private static float[] perChannel(Tensor t, int n, int np, float[][] rows, int slot) {
        LogicalTensor lt = t.logicalTensor();
        long[] d = lt.dims();
        long[] s = lt.strides();
        long c = d[d.length - 1];
        if (c != n && c != 1) {
            throw new UnsupportedFeatureException("gamma/beta " + LogicalTensor.dimsToString(d) + " for rows of " + n);
        }
        float[] r = rows[slot];
        if (r.length != np) {
            r = new float[np];
            rows[slot] = r;
        }
        MemorySegment m = t.data();
        RowOperands.read(m, 0, c == 1 ? 0 : s[s.length - 1], r, 0, n);
        Arrays.fill(r, n, np, 0f); // the padding as a new array had it, whatever an earlier row length left
        return r;
    }

    /** Sum of a[0..n) in vector lanes, two accumulators deep. */
    static float sum(float[] a, int n) {
        int vl = VectorMath.S.length();
        FloatVector acc0 = FloatVector.zero(VectorMath.S);
        FloatVector acc1 = FloatVector.zero(VectorMath.S);
        int j = 0;
        for (; j + 2 * vl <= n; j += 2 * vl) {
            acc0 = acc0.add(FloatVector.fromArray(VectorMath.S, a, j));
            acc1 = acc1.add(FloatVector.fromArray(VectorMath.S, a, j + vl));
        }
        for (; j + vl <= n; j += vl) {
            acc0 = acc0.add(FloatVector.fromArray(VectorMath.S, a, j));
        }
        float s = acc0.add(acc1).reduceLanes(VectorOperators.ADD);
        for (; j < n; j++) {
            s += a[j];
        }
        return s;
    }

    /** Sum of (a[i] - mean)^2 over a[0..n). */
    static float squaredDeviations(float[] a, int n, float mean) {
        int vl = VectorMath.S.length();
        FloatVector acc0 = FloatVector.zero(VectorMath.S);
        FloatVector acc1 = FloatVector.zero(VectorMath.S);
        int j = 0;
        for (; j + 2 * vl <= n; j += 2 * vl) {
            FloatVector d0 = FloatVector.fromArray(VectorMath.S, a, j).sub(mean);
            FloatVector d1 = FloatVector.fromArray(VectorMath.S, a, j + vl).sub(mean);
            acc0 = d0.fma(d0, acc0);
            acc1 = d1.fma(d1, acc1);
        }
        for (; j + vl <= n; j += vl) {
            FloatVector d = FloatVector.fromArray(VectorMath.S, a, j).sub(mean);
            acc0 = d.fma(d, acc0);
        }
        float s = acc0.add(acc1).reduceLanes(VectorOperators.ADD);
        for (; j < n; j++) {
            float d = a[j] - mean;
            s += d * d;
        }
        return s;
    }

    /** One thread's staged rows: src's slots, the post chain's slots, and their source tables. */
    private static final class Scratch {
        private final int preSlots;
        private final int postSlots;
        final float[][] preSrc;
        final int[] preOff;
        final float[][] postSrc;
        final int[] postOff;
        final boolean[] preEach;
        final boolean[] postEach;
        float[] rowBuf = new float[0];
        float[] postBuf = new float[0];
        private float[] scalars = new float[0];
        private int np = -1;

        Scratch(NormProgram p) {
            preSlots = p.preSlots;
            postSlots = p.postSlots;
            preSrc = new float[preSlots][];
            preOff = new int[preSlots];
            postSrc = new float[postSlots][];
            postOff = new int[postSlots];
            preEach = new boolean[p.preOps.rowCount()];
            postEach = new boolean[p.postOps.rowCount()];
        }

        /** Buffers for rows of {@code np} (padded) elements, laid out as slot s at s * np; grown, never shrunk. */
        Scratch fit(int np) {
            if (this.np == np) {
                return this;
            }
            if (rowBuf.length < preSlots * np) {
                rowBuf = new float[preSlots * np];
            }
            if (postBuf.length < postSlots * np) {
                postBuf = new float[postSlots * np];
            }
            for (int s = 0; s < preSlots; s++) {
                preSrc[s] = rowBuf;
                preOff[s] = s * np;
            }
            for (int s = 0; s < postSlots; s++) {
                postSrc[s] = postBuf;
                postOff[s] = s * np;
            }
            postSrc[0] = rowBuf; // the post kernel works on src's row in place
            postOff[0] = 0;
            this.np = np;
            return this;
        }

        float[] scalars(int n) {
            if (scalars.length != n) {
                scalars = new float[n];
            }
            return scalars;
        }
    }
}
