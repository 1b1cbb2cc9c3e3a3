package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import io.partita.backend.compiler.internal.codegen.RowKernel;
import io.partita.graph.DataType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Attention in one pass over the keys, flash-attention style: for a block of four query rows,
 * scores of one key block are computed, run through the partition's generated score kernel
 * (scale, mask, select), folded into a running max and sum (online softmax), and multiplied
 * with the value block, so neither the score matrix nor the probabilities exist in memory. K is
 * packed transposed in groups of one vector of keys and V row-major per batch entry; the tasks
 * (batch entry x query block) run on the runtime's thread team.
 */
public final class FlashAttention {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int VL = S.length();
    /** Query rows sharing each load of K and V. */
    private static final int RB = 4;
    /** Query rows in the unit of work division. */
    private static final int QB = 64;
    /**
     * Keys per block of the online softmax: up to 512 keys (BERT's longest sequence) are one block,
     * so the running max never moves and the output is never rescaled.
     */
    private static final int KB = 512;
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private FlashAttention() {
    }

    /**
     * Where everything is, in elements. Batch strides run over {@code batch} (the output's batch
     * dims; 0 where an input is broadcast).
     */
    public record Geometry(long[] batch, int sq, int sk, int d, int dv, Access q, Access k, Access v, Access o,
            Access stats, Access[] operands, boolean infAsZero) {
        long batchCount() {
            long n = 1;
            for (long b : batch) {
                n *= b;
            }
            return n;
        }
    }

    /**
     * One tensor's addressing: batch strides plus the row and column strides of its last two dims
     * (Q: query x head dim, K: key x head dim, V: key x value dim, O: query x value dim,
     * score operands: query x key).
     */
    public record Access(long[] batchStrides, long row, long col, DataType type) {
        boolean f32() {
            return type == DataType.F32;
        }
    }

    /**
     * Data of one execution; {@code operands[i]} for score leaf {@code i + 1}; {@code stats} the
     * SoftMax's second output (max + log(sum) per row, for training) or null.
     */
    public record Buffers(MemorySegment q, MemorySegment k, MemorySegment v, MemorySegment o, MemorySegment stats,
            MemorySegment[] operands, float[] scalars) {
    }

    public static void run(Geometry g, Buffers b, RowKernel scores, boolean identityScores, Parallel pool) {
        long batches = g.batchCount();
        int qBlocks = (g.sq() + QB - 1) / QB;
        // Each task packs K and V of its batch entry once and sweeps a run of query blocks, so the
        // packing is shared by as many query rows as the parallelism allows: a batch entry is split
        // only as far as needed to give every worker about two tasks.
        long wanted = 2L * pool.threads();
        int splits = (int) Math.max(1, Math.min(qBlocks, (wanted + batches - 1) / batches));
        int blocksPerTask = (qBlocks + splits - 1) / splits;
        splits = (qBlocks + blocksPerTask - 1) / blocksPerTask;
        long tasks = batches * splits;
        if (tasks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("attention with " + tasks + " tasks is beyond one partition");
        }
        int perTask = blocksPerTask;
        int split = splits;
        pool.forEach((int) tasks, t -> {
            int q0 = (t % split) * perTask * QB;
            block(g, b, scores, identityScores, t / split, q0, Math.min(g.sq(), q0 + perTask * QB));
        });
    }

    private static void block(Geometry g, Buffers b, RowKernel scores, boolean identity, long batch, int q0, int q1) {
        int d = g.d();
        int dv = g.dv();
        int sk = g.sk();
        int skP = roundUp(sk);
        int dvP = roundUp(dv);
        Scratch s = SCRATCH.get();
        s.ensure(d, skP, dvP, g.operands().length);
        long bq = Strides.offset(batch, g.batch(), g.q().batchStrides(), g.batch().length);
        long bk = Strides.offset(batch, g.batch(), g.k().batchStrides(), g.batch().length);
        long bv = Strides.offset(batch, g.batch(), g.v().batchStrides(), g.batch().length);
        long bo = Strides.offset(batch, g.batch(), g.o().batchStrides(), g.batch().length);
        long bs = g.stats() == null ? 0 : Strides.offset(batch, g.batch(), g.stats().batchStrides(), g.batch().length);
        packKeys(b.k(), bk, g.k(), sk, skP, d, s.kt, s.krow);
        packValues(b.v(), bv, g.v(), sk, dv, dvP, s.vp);
        long[] opBase = new long[g.operands().length];
        for (int k = 0; k < opBase.length; k++) {
            opBase[k] = Strides.offset(batch, g.batch(), g.operands()[k].batchStrides(), g.batch().length);
        }
        for (int i0 = q0; i0 < q1; i0 += RB) {
            int rows = Math.min(RB, q1 - i0);
            stageQueries(b.q(), bq, g.q(), i0, rows, d, s.q);
            Arrays.fill(s.m, Float.NEGATIVE_INFINITY);
            Arrays.fill(s.l, 0f);
            Arrays.fill(s.o, 0, RB * dvP, 0f);
            for (int jb = 0; jb < skP; jb += KB) {
                int bc = Math.min(KB, skP - jb);
                int valid = Math.min(bc, sk - jb);
                scoresBlock(s.kt, s.q, d, jb, bc, s.s, 0, KB);
                if (!identity) {
                    stageOperands(g, b, s, opBase, i0, jb, valid, bc, true); // the same for every query row
                }
                for (int r = 0; r < rows; r++) {
                    if (!identity) {
                        stageOperands(g, b, s, opBase, i0 + r, jb, valid, bc, false);
                        s.src[0] = s.s;
                        s.off[0] = r * KB;
                        scores.apply(s.src, s.off, b.scalars(), bc, i0 + r, jb);
                    }
                    Arrays.fill(s.s, r * KB + valid, r * KB + bc, Float.NEGATIVE_INFINITY);
                    softmaxStep(s, r, bc, dvP);
                }
                accumulateValues(s, rows, jb, valid, dvP);
            }
            writeRows(b.o(), bo, g.o(), g.infAsZero(), i0, rows, dv, dvP, s);
            if (b.stats() != null) {
                for (int r = 0; r < rows; r++) {
                    float m = s.m[r];
                    // -inf for a fully masked row with inf_as_zero; NaN (as exp(-inf - -inf)) otherwise
                    float st = m == Float.NEGATIVE_INFINITY ? (g.infAsZero() ? m : Float.NaN)
                            : m + (float) Math.log(s.l[r]);
                    Elements.set(g.stats().type(), b.stats(), bs + (long) (i0 + r) * g.stats().row(), st);
                }
            }
        }
    }

    /**
     * K transposed in column groups of one vector: {@code kt[(j / VL) * d * VL + e * VL + j % VL]},
     * so the score loop over the head dim streams one contiguous run per group.
     */
    static void packKeys(MemorySegment k, long base, Access a, int sk, int skP, int d, float[] kt, float[] row) {
        Arrays.fill(kt, 0, skP * d, 0f);
        if (a.row() == 1 && a.f32()) {
            // keys contiguous (K given as K^T): one bulk copy per head-dim element and key group
            for (int e = 0; e < d; e++) {
                long src = base + e * a.col();
                for (int j0 = 0; j0 < sk; j0 += VL) {
                    MemorySegment.copy(k, ValueLayout.JAVA_FLOAT, (src + j0) * 4, kt, (j0 / VL) * d * VL + e * VL,
                            Math.min(VL, sk - j0));
                }
            }
            return;
        }
        for (int j = 0; j < sk; j++) {
            long src = base + j * a.row();
            int dst = (j / VL) * d * VL + j % VL;
            if (a.col() == 1 && a.f32()) {
                // one bulk copy per key, then the scatter between arrays (per-element segment reads cost more)
                MemorySegment.copy(k, ValueLayout.JAVA_FLOAT, src * 4, row, 0, d);
                for (int e = 0; e < d; e++) {
                    kt[dst + e * VL] = row[e];
                }
            } else {
                for (int e = 0; e < d; e++) {
                    kt[dst + e * VL] = Elements.get(a.type(), k, src + e * a.col());
                }
            }
        }
    }

    private static void packValues(MemorySegment v, long base, Access a, int sk, int dv, int dvP, float[] vp) {
        for (int j = 0; j < sk; j++) {
            int row = j * dvP;
            long src = base + j * a.row();
            if (a.col() == 1 && a.f32()) {
                MemorySegment.copy(v, ValueLayout.JAVA_FLOAT, src * 4, vp, row, dv);
            } else {
                for (int e = 0; e < dv; e++) {
                    vp[row + e] = Elements.get(a.type(), v, src + e * a.col());
                }
            }
            Arrays.fill(vp, row + dv, row + dvP, 0f);
        }
    }

    static void stageQueries(MemorySegment q, long base, Access a, int i0, int rows, int d, float[] qs) {
        Arrays.fill(qs, 0f);
        for (int r = 0; r < rows; r++) {
            long src = base + (long) (i0 + r) * a.row();
            if (a.col() == 1 && a.f32()) {
                MemorySegment.copy(q, ValueLayout.JAVA_FLOAT, src * 4, qs, r * d, d);
            } else {
                for (int e = 0; e < d; e++) {
                    qs[r * d + e] = Elements.get(a.type(), q, src + e * a.col());
                }
            }
        }
    }

    /**
     * Scores of four staged query rows against keys jb..jb+bc (padding rows of Q are zeros), two
     * key groups at a time, into {@code dst[off + r * stride + c]} for row r and key jb + c.
     */
    static void scoresBlock(float[] kt, float[] q, int d, int jb, int bc, float[] dst, int off, int stride) {
        int group = d * VL;
        int c = 0;
        for (; c + 2 * VL <= bc; c += 2 * VL) {
            FloatVector a0 = FloatVector.zero(S);
            FloatVector a1 = a0;
            FloatVector a2 = a0;
            FloatVector a3 = a0;
            FloatVector b0 = a0;
            FloatVector b1 = a0;
            FloatVector b2 = a0;
            FloatVector b3 = a0;
            int k0 = ((jb + c) / VL) * group;
            int k1 = k0 + group;
            for (int e = 0; e < d; e++) {
                FloatVector kv = FloatVector.fromArray(S, kt, k0 + e * VL);
                FloatVector kw = FloatVector.fromArray(S, kt, k1 + e * VL);
                FloatVector x = FloatVector.broadcast(S, q[e]);
                a0 = x.fma(kv, a0);
                b0 = x.fma(kw, b0);
                x = FloatVector.broadcast(S, q[d + e]);
                a1 = x.fma(kv, a1);
                b1 = x.fma(kw, b1);
                x = FloatVector.broadcast(S, q[2 * d + e]);
                a2 = x.fma(kv, a2);
                b2 = x.fma(kw, b2);
                x = FloatVector.broadcast(S, q[3 * d + e]);
                a3 = x.fma(kv, a3);
                b3 = x.fma(kw, b3);
            }
            a0.intoArray(dst, off + c);
            b0.intoArray(dst, off + c + VL);
            a1.intoArray(dst, off + stride + c);
            b1.intoArray(dst, off + stride + c + VL);
            a2.intoArray(dst, off + 2 * stride + c);
            b2.intoArray(dst, off + 2 * stride + c + VL);
            a3.intoArray(dst, off + 3 * stride + c);
            b3.intoArray(dst, off + 3 * stride + c + VL);
        }
        for (; c < bc; c += VL) {
            FloatVector a0 = FloatVector.zero(S);
            FloatVector a1 = a0;
            FloatVector a2 = a0;
            FloatVector a3 = a0;
            int k0 = ((jb + c) / VL) * group;
            for (int e = 0; e < d; e++) {
                FloatVector kv = FloatVector.fromArray(S, kt, k0 + e * VL);
                a0 = FloatVector.broadcast(S, q[e]).fma(kv, a0);
                a1 = FloatVector.broadcast(S, q[d + e]).fma(kv, a1);
                a2 = FloatVector.broadcast(S, q[2 * d + e]).fma(kv, a2);
                a3 = FloatVector.broadcast(S, q[3 * d + e]).fma(kv, a3);
            }
            a0.intoArray(dst, off + c);
            a1.intoArray(dst, off + stride + c);
            a2.intoArray(dst, off + 2 * stride + c);
            a3.intoArray(dst, off + 3 * stride + c);
        }
    }

    /**
     * Stages the score operands of one query row: those whose row stride is 0 (a mask broadcast over
     * the queries) when {@code invariant}, the others otherwise.
     */
    private static void stageOperands(Geometry g, Buffers b, Scratch s, long[] base, int row, int jb, int valid, int bc,
            boolean invariant) {
        Access[] ops = g.operands();
        for (int k = 0; k < ops.length; k++) {
            Access a = ops[k];
            if ((a.row() == 0) != invariant) {
                continue;
            }
            float[] dst = s.rows[k];
            stageRow(a, b.operands()[k], base[k] + row * a.row() + jb * a.col(), dst, valid, bc);
            s.src[k + 1] = dst;
            s.off[k + 1] = 0;
        }
    }

    /**
     * One row of a score operand from element {@code src} of its memory: {@code valid} values
     * along its column stride, then zeros up to {@code padded} (whole vectors for the score kernel).
     */
    static void stageRow(Access a, MemorySegment m, long src, float[] dst, int valid, int padded) {
        if (a.col() == 1 && a.f32()) {
            MemorySegment.copy(m, ValueLayout.JAVA_FLOAT, src * 4, dst, 0, valid);
        } else if (a.col() == 0) {
            Arrays.fill(dst, 0, valid, Elements.get(a.type(), m, src));
        } else {
            for (int j = 0; j < valid; j++) {
                dst[j] = Elements.get(a.type(), m, src + j * a.col());
            }
        }
        Arrays.fill(dst, valid, padded, 0f);
    }

    /** Folds one row's block into its running max and sum; leaves exp(score - max) in place. */
    private static void softmaxStep(Scratch s, int r, int bc, int dvP) {
        float[] x = s.s;
        int base = r * KB;
        // two running maxima and two sums: one dependency chain would wait on each step's latency
        FloatVector mx = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        FloatVector my = mx;
        int c = 0;
        for (; c + VL < bc; c += 2 * VL) {
            mx = mx.max(FloatVector.fromArray(S, x, base + c));
            my = my.max(FloatVector.fromArray(S, x, base + c + VL));
        }
        if (c < bc) {
            mx = mx.max(FloatVector.fromArray(S, x, base + c));
        }
        float blockMax = mx.max(my).reduceLanes(VectorOperators.MAX);
        float old = s.m[r];
        float m = Math.max(old, blockMax);
        if (m == Float.NEGATIVE_INFINITY) {
            Arrays.fill(x, base, base + bc, 0f); // every score so far masked out: nothing to add
            return;
        }
        float alpha = old == Float.NEGATIVE_INFINITY ? 0f : (float) Math.exp(old - m);
        FloatVector mv = FloatVector.broadcast(S, m);
        FloatVector sum = FloatVector.zero(S);
        FloatVector sum2 = sum;
        for (c = 0; c + VL < bc; c += 2 * VL) {
            FloatVector p = SoftmaxExp.exp(FloatVector.fromArray(S, x, base + c).sub(mv));
            FloatVector q = SoftmaxExp.exp(FloatVector.fromArray(S, x, base + c + VL).sub(mv));
            p.intoArray(x, base + c);
            q.intoArray(x, base + c + VL);
            sum = sum.add(p);
            sum2 = sum2.add(q);
        }
        if (c < bc) {
            FloatVector p = SoftmaxExp.exp(FloatVector.fromArray(S, x, base + c).sub(mv));
            p.intoArray(x, base + c);
            sum = sum.add(p);
        }
        s.l[r] = s.l[r] * alpha + sum.add(sum2).reduceLanes(VectorOperators.ADD);
        s.m[r] = m;
        if (alpha != 1f && old != Float.NEGATIVE_INFINITY) { // before the first block o holds zeros
            FloatVector av = FloatVector.broadcast(S, alpha);
            int ob = r * dvP;
            for (int e = 0; e < dvP; e += VL) {
                FloatVector.fromArray(S, s.o, ob + e).mul(av).intoArray(s.o, ob + e);
            }
        }
    }

    /**
     * o[r] += p[r] . V[jb .. jb+valid) for the four rows at once, two vectors of the value dim per
     * pass (each loaded V vector and broadcast probability feeds four and two FMAs).
     */
    private static void accumulateValues(Scratch s, int rows, int jb, int valid, int dvP) {
        float[] p = s.s;
        float[] vp = s.vp;
        float[] o = s.o;
        int e = 0;
        for (; e + 2 * VL <= dvP; e += 2 * VL) {
            FloatVector a0 = FloatVector.fromArray(S, o, e);
            FloatVector a1 = FloatVector.fromArray(S, o, dvP + e);
            FloatVector a2 = FloatVector.fromArray(S, o, 2 * dvP + e);
            FloatVector a3 = FloatVector.fromArray(S, o, 3 * dvP + e);
            FloatVector b0 = FloatVector.fromArray(S, o, e + VL);
            FloatVector b1 = FloatVector.fromArray(S, o, dvP + e + VL);
            FloatVector b2 = FloatVector.fromArray(S, o, 2 * dvP + e + VL);
            FloatVector b3 = FloatVector.fromArray(S, o, 3 * dvP + e + VL);
            int vrow = jb * dvP + e;
            for (int j = 0; j < valid; j++, vrow += dvP) {
                FloatVector v = FloatVector.fromArray(S, vp, vrow);
                FloatVector w = FloatVector.fromArray(S, vp, vrow + VL);
                FloatVector x = FloatVector.broadcast(S, p[j]);
                a0 = x.fma(v, a0);
                b0 = x.fma(w, b0);
                x = FloatVector.broadcast(S, p[KB + j]);
                a1 = x.fma(v, a1);
                b1 = x.fma(w, b1);
                x = FloatVector.broadcast(S, p[2 * KB + j]);
                a2 = x.fma(v, a2);
                b2 = x.fma(w, b2);
                x = FloatVector.broadcast(S, p[3 * KB + j]);
                a3 = x.fma(v, a3);
                b3 = x.fma(w, b3);
            }
            // rows past the block's end hold padding: never stored
            a0.intoArray(o, e);
            b0.intoArray(o, e + VL);
            if (rows > 1) {
                a1.intoArray(o, dvP + e);
                b1.intoArray(o, dvP + e + VL);
            }
            if (rows > 2) {
                a2.intoArray(o, 2 * dvP + e);
                b2.intoArray(o, 2 * dvP + e + VL);
            }
            if (rows > 3) {
                a3.intoArray(o, 3 * dvP + e);
                b3.intoArray(o, 3 * dvP + e + VL);
            }
        }
        for (; e < dvP; e += VL) {
            FloatVector a0 = FloatVector.fromArray(S, o, e);
            FloatVector a1 = FloatVector.fromArray(S, o, dvP + e);
            FloatVector a2 = FloatVector.fromArray(S, o, 2 * dvP + e);
            FloatVector a3 = FloatVector.fromArray(S, o, 3 * dvP + e);
            for (int j = 0; j < valid; j++) {
                FloatVector v = FloatVector.fromArray(S, vp, (jb + j) * dvP + e);
                a0 = FloatVector.broadcast(S, p[j]).fma(v, a0);
                a1 = FloatVector.broadcast(S, p[KB + j]).fma(v, a1);
                a2 = FloatVector.broadcast(S, p[2 * KB + j]).fma(v, a2);
                a3 = FloatVector.broadcast(S, p[3 * KB + j]).fma(v, a3);
            }
            a0.intoArray(o, e);
            if (rows > 1) {
                a1.intoArray(o, dvP + e);
            }
            if (rows > 2) {
                a2.intoArray(o, 2 * dvP + e);
            }
            if (rows > 3) {
                a3.intoArray(o, 3 * dvP + e);
            }
        }
    }

    private static void writeRows(MemorySegment out, long base, Access a, boolean infAsZero, int i0, int rows, int dv,
            int dvP, Scratch s) {
        for (int r = 0; r < rows; r++) {
            float l = s.l[r];
            // A row whose every score was -inf: zeros with inf_as_zero, NaN (0/0) otherwise, as the reference.
            float inv = l == 0f ? (infAsZero ? 0f : Float.NaN) : 1f / l;
            int ob = r * dvP;
            FloatVector iv = FloatVector.broadcast(S, inv);
            for (int e = 0; e < dvP; e += VL) {
                FloatVector.fromArray(S, s.o, ob + e).mul(iv).intoArray(s.o, ob + e);
            }
            long dst = base + (long) (i0 + r) * a.row();
            if (a.col() == 1 && a.f32()) {
                MemorySegment.copy(s.o, ob, out, ValueLayout.JAVA_FLOAT, dst * 4, dv);
            } else {
                for (int e = 0; e < dv; e++) {
                    Elements.set(a.type(), out, dst + e * a.col(), s.o[ob + e]);
                }
            }
        }
    }

    static int roundUp(int n) {
        return (n + VL - 1) / VL * VL;
    }

    /** One worker's buffers, grown to the largest shape it has run. */
    private static final class Scratch {
        float[] kt = new float[0];
        float[] krow = new float[0];
        float[] vp = new float[0];
        float[] q = new float[0];
        final float[] s = new float[RB * KB];
        float[] o = new float[0];
        final float[] m = new float[RB];
        final float[] l = new float[RB];
        float[][] rows = new float[0][];
        float[][] src = new float[1][];
        int[] off = new int[1];

        void ensure(int d, int skP, int dvP, int operands) {
            if (kt.length < d * skP) {
                kt = new float[d * skP];
            }
            if (krow.length < d) {
                krow = new float[d];
            }
            if (vp.length < skP * dvP) {
                vp = new float[skP * dvP];
            }
            if (q.length < RB * d) {
                q = new float[RB * d];
            }
            if (o.length < RB * dvP) {
                o = new float[RB * dvP];
            }
            if (rows.length < operands) {
                rows = new float[operands][KB];
                src = new float[operands + 1][];
                off = new int[operands + 1];
            }
        }
    }
}
