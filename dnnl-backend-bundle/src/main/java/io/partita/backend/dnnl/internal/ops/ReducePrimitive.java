package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import io.partita.backend.dnnl.internal.isa.Isa;

/**
 * ReduceSum and ReduceMean over the axes of the {@code axes} attribute ({@code keep_dims} only
 * changes the output dims, not the element order; no axes is a copy). The source dims are
 * simplified first (size-1 dims dropped, neighbours of the same kind that are contiguous merged),
 * then: if the innermost kept dim has unit stride, four vectors of output columns accumulate in vector
 * registers over all reduced positions; else if a reduced dim has unit stride, each output is a
 * vector sum along it; else scalar. Partial sums are flushed every {@value #FLUSH} terms so long
 * reductions do not lose precision. Few outputs with a long reduction: the reduction is split
 * across threads and the partial sums added at the end. Post-ops run on the finished output.
 */
public final class ReducePrimitive implements Primitive {
    private static final VectorSpecies<Float> S = Isa.FLOAT;
    /** Floats per vector (a constant C2 folds). */
    private static final int L = Isa.LANES;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final int FLUSH = 512;
    /** Output columns per task: four vectors. */
    private static final int COLS = 4 * L;
    private static final int SEGMENT = 4096;

    /** Source dims and strides, which dims are reduced, mean or sum, ports and post-ops: the primitive cache key. */
    public record Desc(long[] srcDims, long[] srcStrides, boolean[] reduced, boolean mean, int srcInput,
            PostOpChain post, int[] postInputs) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Desc d && Arrays.equals(d.srcDims, srcDims) && Arrays.equals(d.srcStrides, srcStrides)
                    && Arrays.equals(d.reduced, reduced) && d.mean == mean && d.srcInput == srcInput
                    && d.post.equals(post) && Arrays.equals(d.postInputs, postInputs);
        }

        @Override
        public int hashCode() {
            return ((Arrays.hashCode(srcDims) * 31 + Arrays.hashCode(srcStrides)) * 31 + Arrays.hashCode(reduced))
                    * 31 + post.hashCode() + (mean ? 1 : 0);
        }
    }

    public static Desc describe(Op op, List<LogicalTensor> inputs, LogicalTensor dst, PostOpChain post,
            int[] postInputs) {
        Views.requireDense(dst, op.kind().spelling());
        LogicalTensor src = Views.port(inputs, op.input(0));
        long[] dims = src.dims();
        boolean[] reduced = new boolean[dims.length];
        for (long a : op.longsAttr("axes")) {
            reduced[Views.normalizeAxis(a, dims.length)] = true;
        }
        return new Desc(dims, src.strides(), reduced, op.kind() == OpKind.ReduceMean, Views.indexOf(inputs, src.id()),
                post, postInputs);
    }

    private enum Mode { COPY, COLUMNS, ROWS, SCALAR }

    private final Desc d;
    private final Mode mode;
    private final long outCount;
    private final float scale;
    /** Kept dims (output order) and their source strides. */
    private final long[] kd;
    private final long[] ks;
    /** Reduced dims walked by the odometer and their source strides. */
    private final long[] rd;
    private final long[] rs;
    /** ROWS: the unit-stride reduced dim's size. */
    private final long unit;
    private final StridedCopy.Plan copy;

    public ReducePrimitive(Desc d) {
        this.d = d;
        long[] dims = d.srcDims;
        long count = 1;
        for (int i = 0; i < dims.length; i++) {
            if (d.reduced[i]) {
                count *= dims[i];
            }
        }
        this.scale = d.mean && count > 0 ? (float) (1.0 / count) : 1f;
        // Simplify: drop size-1 dims, merge contiguous neighbours of the same kind.
        List<long[]> kept = new ArrayList<>();
        List<long[]> red = new ArrayList<>();
        int lastKind = -1;
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] == 1) {
                continue;
            }
            int kind = d.reduced[i] ? 1 : 0;
            List<long[]> into = kind == 1 ? red : kept;
            long[] cur = {dims[i], d.srcStrides[i]};
            if (lastKind == kind && !into.isEmpty()) {
                long[] prev = into.get(into.size() - 1);
                if (prev[1] == cur[1] * cur[0]) {
                    into.set(into.size() - 1, new long[] {prev[0] * cur[0], cur[1]});
                    continue;
                }
            }
            into.add(cur);
            lastKind = kind;
        }
        long[][] k = split(kept);
        long[][] r = split(red);
        this.outCount = Views.product(k[0], 0, k[0].length);
        if (r[0].length == 0 || count == 0) {
            this.mode = Mode.COPY;
            this.kd = k[0];
            this.ks = k[1];
            this.rd = r[0];
            this.rs = r[1];
            this.unit = 1;
            long[] dense = LogicalTensor.denseStrides(k[0]);
            this.copy = count == 0 ? null : StridedCopy.plan(k[0], k[1], k[0], dense);
            return;
        }
        this.copy = null;
        int unitRed = -1;
        for (int i = 0; i < r[0].length; i++) {
            if (r[1][i] == 1) {
                unitRed = i;
            }
        }
        if (k[0].length > 0 && k[1][k[0].length - 1] == 1) {
            this.mode = Mode.COLUMNS;
            this.kd = k[0];
            this.ks = k[1];
            this.rd = r[0];
            this.rs = r[1];
            this.unit = 1;
        } else if (unitRed >= 0) {
            this.mode = Mode.ROWS;
            this.kd = k[0];
            this.ks = k[1];
            this.unit = r[0][unitRed];
            this.rd = remove(r[0], unitRed);
            this.rs = remove(r[1], unitRed);
        } else {
            this.mode = Mode.SCALAR;
            this.kd = k[0];
            this.ks = k[1];
            this.rd = r[0];
            this.rs = r[1];
            this.unit = 1;
        }
    }

    private static long[][] split(List<long[]> dims) {
        long[][] r = new long[2][dims.size()];
        for (int i = 0; i < dims.size(); i++) {
            r[0][i] = dims.get(i)[0];
            r[1][i] = dims.get(i)[1];
        }
        return r;
    }

    private static long[] remove(long[] a, int i) {
        long[] r = new long[a.length - 1];
        System.arraycopy(a, 0, r, 0, i);
        System.arraycopy(a, i + 1, r, i, a.length - i - 1);
        return r;
    }

    @Override
    public void execute(Invocation inv) {
        MemorySegment src = inv.in(d.srcInput);
        MemorySegment dst = inv.out(0);
        PostOpChain.Bound post = d.post.isEmpty() ? null : d.post.bind(inv.operands(d.postInputs));
        if (outCount == 0) {
            return;
        }
        switch (mode) {
            case COPY -> {
                if (copy == null) {
                    // a sum over nothing is 0, a mean over nothing 0 / 0
                    float v = d.mean ? Float.NaN : 0f;
                    for (long i = 0; i < outCount; i++) {
                        dst.set(F, 4 * i, v);
                    }
                } else {
                    StridedCopy.run(copy, src, 0, StridedCopy.F32, dst, 0, StridedCopy.F32, inv.pool());
                }
                if (post != null) {
                    applyAll(post, dst, inv);
                }
            }
            case COLUMNS -> columns(src, dst, post, inv);
            case ROWS -> rows(src, dst, post, inv);
            case SCALAR -> scalar(src, dst, post, inv);
            default -> throw new IllegalStateException();
        }
    }

    private void applyAll(PostOpChain.Bound post, MemorySegment dst, Invocation inv) {
        int blocks = (int) ((outCount + 16383) / 16384);
        Views.parallel(inv.pool(), blocks, outCount, (b0, b1) -> {
            for (int b = b0; b < b1; b++) {
                long f = (long) b * 16384;
                post.apply(dst, 4 * f, f, (int) Math.min(16384, outCount - f));
            }
        });
    }

    /** How many parts to split each output unit's reduction into so every thread has work. */
    private static int parts(Invocation inv, long units, long reductionUnits, long work) {
        int threads = Views.threads(inv.pool());
        if (threads == 1 || units >= 2L * threads || work < Views.PARALLEL_GRAIN) {
            return 1;
        }
        return (int) Math.max(1, Math.min(reductionUnits, (4L * threads + units - 1) / units));
    }

    /** Innermost kept dim unit-stride: {@link #COLS} output columns per task accumulate over all reduced positions. */
    private void columns(MemorySegment src, MemorySegment dst, PostOpChain.Bound post, Invocation inv) {
        int kr = kd.length - 1;
        long width = kd[kr];
        long[] rowDims = Arrays.copyOf(kd, kr);
        long[] rowStrides = Arrays.copyOf(ks, kr);
        long chunks = (width + COLS - 1) / COLS;
        long units = Views.product(rowDims, 0, kr) * chunks;
        long combos = Views.product(rd, 0, rd.length);
        int parts = parts(inv, units, combos, outCount * combos);
        float[] partial = parts > 1 ? new float[(int) (units * parts * COLS)] : null;
        Views.parallel(inv.pool(), (int) (units * parts), outCount * combos, (t0, t1) -> {
            Odometer od = new Odometer(rd, rs);
            float[] acc = new float[COLS];
            for (int t = t0; t < t1; t++) {
                long u = t / parts;
                int p = t % parts;
                long row = u / chunks;
                int c0 = (int) (u % chunks * COLS);
                int n = (int) Math.min(COLS, width - c0);
                long base = Views.offset(row, rowDims, rowStrides, 0, kr) + c0;
                long from = combos * p / parts;
                long to = combos * (p + 1) / parts;
                sumColumns(src, base, od, from, to, n, acc);
                long f = row * width + c0;
                if (partial != null) {
                    System.arraycopy(acc, 0, partial, t * COLS, n);
                } else {
                    store(dst, f, acc, n);
                    if (post != null) {
                        post.apply(dst, 4 * f, f, n);
                    }
                }
            }
        });
        if (partial != null) {
            float[] acc = new float[COLS];
            for (long u = 0; u < units; u++) {
                long row = u / chunks;
                int c0 = (int) (u % chunks * COLS);
                int n = (int) Math.min(COLS, width - c0);
                Arrays.fill(acc, 0f);
                for (int p = 0; p < parts; p++) {
                    for (int j = 0; j < n; j++) {
                        acc[j] += partial[(int) ((u * parts + p) * COLS) + j];
                    }
                }
                store(dst, row * width + c0, acc, n);
            }
            if (post != null) {
                applyAll(post, dst, inv);
            }
        }
    }

    /**
     * Sums of up to {@link #COLS} columns at {@code base} over reduced positions [from, to) into acc, in
     * blocks of {@link #FLUSH} positions summed in registers. The block loops are separate methods
     * on purpose: as one method, C1 ran out of registers at tier 3, and a method C1 cannot profile
     * never reached C2 (it ran on boxed vectors).
     */
    private static void sumColumns(MemorySegment src, long base, Odometer od, long from, long to, int n, float[] acc) {
        java.util.Arrays.fill(acc, 0, COLS, 0f);
        od.seek(from);
        for (long pos = from; pos < to; pos += FLUSH) {
            int count = (int) Math.min(FLUSH, to - pos);
            sumBlock(src, base, od, count, n, acc);
        }
    }

    /** One block of positions; the masks are all-true for a full block of {@link #COLS} columns. */
    private static void sumBlock(MemorySegment src, long base, Odometer od, int count, int n, float[] acc) {
        VectorMask<Float> m0 = S.indexInRange(0, n);
        VectorMask<Float> m1 = S.indexInRange(L, n);
        VectorMask<Float> m2 = S.indexInRange(2 * L, n);
        VectorMask<Float> m3 = S.indexInRange(3 * L, n);
        FloatVector a0 = FloatVector.zero(S);
        FloatVector a1 = a0;
        FloatVector a2 = a0;
        FloatVector a3 = a0;
        for (int i = 0; i < count; i++) {
            long o = 4 * (base + od.offset());
            a0 = a0.add(FloatVector.fromMemorySegment(S, src, o, ORDER, m0));
            if (n > L) {
                a1 = a1.add(FloatVector.fromMemorySegment(S, src, o + 4 * L, ORDER, m1));
            }
            if (n > 2 * L) {
                a2 = a2.add(FloatVector.fromMemorySegment(S, src, o + 8 * L, ORDER, m2));
            }
            if (n > 3 * L) {
                a3 = a3.add(FloatVector.fromMemorySegment(S, src, o + 12 * L, ORDER, m3));
            }
            od.next();
        }
        addInto(acc, a0, a1, a2, a3);
    }

    private static void addInto(float[] acc, FloatVector a0, FloatVector a1, FloatVector a2, FloatVector a3) {
        FloatVector.fromArray(S, acc, 0).add(a0).intoArray(acc, 0);
        FloatVector.fromArray(S, acc, L).add(a1).intoArray(acc, L);
        FloatVector.fromArray(S, acc, 2 * L).add(a2).intoArray(acc, 2 * L);
        FloatVector.fromArray(S, acc, 3 * L).add(a3).intoArray(acc, 3 * L);
    }

    private void store(MemorySegment dst, long f, float[] acc, int n) {
        for (int j = 0; j < n; j++) {
            dst.set(F, 4 * (f + j), acc[j] * scale);
        }
    }

    /** A unit-stride reduced dim: each output is a vector sum along it, over the other reduced positions. */
    private void rows(MemorySegment src, MemorySegment dst, PostOpChain.Bound post, Invocation inv) {
        long combos = Views.product(rd, 0, rd.length);
        long segs = (unit + SEGMENT - 1) / SEGMENT;
        long pieces = combos * segs;
        int parts = parts(inv, outCount, pieces, outCount * combos * unit);
        float[] partial = parts > 1 ? new float[(int) (outCount * parts)] : null;
        int tasks = (int) Math.min(outCount * parts, Math.max(1, 16L * Views.threads(inv.pool())));
        long units = outCount * parts;
        Views.parallel(inv.pool(), partial != null ? (int) units : tasks, outCount * combos * unit, (t0, t1) -> {
            Odometer od = new Odometer(rd, rs);
            Odometer out = new Odometer(kd, ks);
            long u0 = partial != null ? t0 : units * t0 / tasks;
            long u1 = partial != null ? t1 : units * t1 / tasks;
            if (u0 >= u1) {
                return;
            }
            out.seek(u0 / parts);
            long lastOut = u0 / parts;
            for (long u = u0; u < u1; u++) {
                long o = u / parts;
                if (o != lastOut) {
                    out.next();
                    lastOut = o;
                }
                int p = (int) (u % parts);
                float s = sumRows(src, out.offset(), od, pieces * p / parts, pieces * (p + 1) / parts, segs);
                if (partial != null) {
                    partial[(int) u] = s;
                } else {
                    dst.set(F, 4 * o, s * scale);
                }
            }
            if (partial == null && post != null) {
                post.apply(dst, 4 * u0, u0, (int) (u1 - u0));
            }
        });
        if (partial != null) {
            for (long o = 0; o < outCount; o++) {
                float s = 0;
                for (int p = 0; p < parts; p++) {
                    s += partial[(int) (o * parts + p)];
                }
                dst.set(F, 4 * o, s * scale);
            }
            if (post != null) {
                applyAll(post, dst, inv);
            }
        }
    }

    /** Sum over pieces [from, to): piece = (reduced position, segment of the unit-stride dim). */
    private float sumRows(MemorySegment src, long base, Odometer od, long from, long to, long segs) {
        double total = 0;
        long combo = from / segs;
        od.seek(combo);
        long pos = from;
        while (pos < to) {
            FloatVector acc = FloatVector.zero(S);
            int terms = 0;
            for (; pos < to && terms < FLUSH; pos++) {
                long c = pos / segs;
                if (c != combo) {
                    od.next();
                    combo = c;
                }
                long q0 = pos % segs * SEGMENT;
                long q1 = Math.min(unit, q0 + SEGMENT);
                long row = base + od.offset();
                long q = q0;
                for (; q + L <= q1; q += L) {
                    acc = acc.add(FloatVector.fromMemorySegment(S, src, 4 * (row + q), ORDER));
                }
                if (q < q1) {
                    VectorMask<Float> m = S.indexInRange(0, (int) (q1 - q));
                    acc = acc.add(FloatVector.fromMemorySegment(S, src, 4 * (row + q), ORDER, m));
                }
                terms += (int) ((q1 - q0 + L - 1) / L);
            }
            total += acc.reduceLanes(VectorOperators.ADD);
        }
        return (float) total;
    }

    /** Neither side unit-stride: plain loops, outputs in parallel. */
    private void scalar(MemorySegment src, MemorySegment dst, PostOpChain.Bound post, Invocation inv) {
        long combos = Views.product(rd, 0, rd.length);
        int tasks = (int) Math.min(outCount, 16L * Views.threads(inv.pool()));
        Views.parallel(inv.pool(), tasks, outCount * combos, (t0, t1) -> {
            long o0 = outCount * t0 / tasks;
            long o1 = outCount * t1 / tasks;
            if (o0 >= o1) {
                return;
            }
            Odometer od = new Odometer(rd, rs);
            Odometer out = new Odometer(kd, ks);
            out.seek(o0);
            for (long o = o0; o < o1; o++) {
                double s = 0;
                od.seek(0);
                for (long r = 0; r < combos; r++) {
                    s += src.get(F, 4 * (out.offset() + od.offset()));
                    od.next();
                }
                dst.set(F, 4 * o, (float) s * scale);
                out.next();
            }
            if (post != null) {
                post.apply(dst, 4 * o0, o0, (int) (o1 - o0));
            }
        });
    }

    @Override
    public String toString() {
        return (d.mean ? "reduce_mean " : "reduce_sum ") + Arrays.toString(d.srcDims) + " over "
                + Arrays.toString(d.reduced) + " (" + mode + ")" + (d.post.isEmpty() ? "" : " " + d.post);
    }
}
