package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

import io.partita.backend.compiler.internal.codegen.RowKernel;
import io.partita.graph.DataType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Attention in one pass over the keys, flash-attention style: for a group of query rows, scores
 * of one key block are computed, run through the partition's generated score kernel (scale,
 * mask, select), folded into a running max and sum (online softmax), and multiplied with the
 * value block, so neither the score matrix nor the probabilities exist in memory beyond one
 * group's block. Both products run on the register tiles of {@link RowTiles}: K packed as
 * panels of {@link Panels#NR} keys (K^T as the B operand of the score product), V as panels of
 * {@code NR} value columns, the group's query rows and probability rows at a constant stride;
 * the group is {@link Panels#MRW} rows (14 with 512-bit vectors: 28 accumulators, each loaded K
 * or V vector feeding 14 FMAs where four rows fed four and left the loop at half the FMA rate).
 * The tasks (batch entry x query block) run on the runtime's thread team.
 */
public final class FlashAttention {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int VL = S.length();
    private static final int NR = Panels.NR;
    /** Query rows sharing each load of K and V: one register tile. */
    private static final int RB = Panels.MRW;
    /** Query rows in the unit of work division: about 64, whole groups. */
    private static final int QB = (64 + RB - 1) / RB * RB;
    /**
     * Keys per block of the online softmax: up to 512 keys (BERT's longest sequence) are one block,
     * so the running max never moves and the output is never rescaled. Also the head-dim chunk of
     * {@link #scores}.
     */
    static final int KB = 512;
    /** Floats between rows of the staged queries and of the score block. */
    private static final int ROW = RowTiles.STRIDE;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
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
        int dvP = roundUp(dv, NR);
        Scratch s = SCRATCH.get();
        s.ensure(d, sk, dvP, g.operands().length);
        long bq = Strides.offset(batch, g.batch(), g.q().batchStrides(), g.batch().length);
        long bk = Strides.offset(batch, g.batch(), g.k().batchStrides(), g.batch().length);
        long bv = Strides.offset(batch, g.batch(), g.v().batchStrides(), g.batch().length);
        long bo = Strides.offset(batch, g.batch(), g.o().batchStrides(), g.batch().length);
        long bs = g.stats() == null ? 0 : Strides.offset(batch, g.batch(), g.stats().batchStrides(), g.batch().length);
        packKeys(b.k(), bk, g.k(), sk, d, s.kp, s.krow);
        packValues(b.v(), bv, g.v(), sk, dv, s.vp);
        long[] opBase = new long[g.operands().length];
        for (int k = 0; k < opBase.length; k++) {
            opBase[k] = Strides.offset(batch, g.batch(), g.operands()[k].batchStrides(), g.batch().length);
        }
        for (int i0 = q0; i0 < q1; i0 += RB) {
            int rows = Math.min(RB, q1 - i0);
            Arrays.fill(s.m, Float.NEGATIVE_INFINITY);
            Arrays.fill(s.l, 0f);
            for (int jb = 0; jb < skP; jb += KB) {
                int bc = Math.min(KB, skP - jb);
                int valid = Math.min(bc, sk - jb);
                scores(b.q(), bq, g.q(), i0, rows, d, s.kp, jb, jb + bc, s.q, s.longHead, s.s, -jb, ROW);
                if (!identity) {
                    stageOperands(g, b, s, opBase, i0, jb, valid, bc, true); // the same for every query row
                }
                for (int r = 0; r < rows; r++) {
                    if (!identity) {
                        stageOperands(g, b, s, opBase, i0 + r, jb, valid, bc, false);
                        s.src[0] = s.s;
                        s.off[0] = r * ROW;
                        scores.apply(s.src, s.off, b.scalars(), bc, i0 + r, jb);
                    }
                    Arrays.fill(s.s, r * ROW + valid, r * ROW + bc, Float.NEGATIVE_INFINITY);
                }
                // Every row's max before any row's exponentials: the maxes are independent, so they
                // overlap, where a row's exp pass waiting on its own max just before left the core
                // idle for the compare chain and the reduction (4% of the attention at sequence 128).
                for (int r = 0; r < rows; r++) {
                    s.blockMax[r] = SoftmaxExp.rowMax(s.s, r * ROW, r * ROW + bc);
                }
                for (int r = 0; r < rows; r++) {
                    softmaxStep(s, r, bc, dvP);
                }
                values(s, rows, sk, jb, valid, dvP, jb == 0);
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
     * K as the B operand of the score product: column panels of {@link Panels#NR} keys, each the
     * panel's head-dim rows back to back, {@code kp[(j / NR) * d * NR + e * NR + j % NR]}; keys up
     * to the last panel's end are zeros.
     */
    static void packKeys(MemorySegment k, long base, Access a, int sk, int d, float[] kp, float[] row) {
        Arrays.fill(kp, 0, roundUp(sk, NR) * d, 0f);
        if (a.row() == 1 && a.f32()) {
            // keys contiguous (K given as K^T): one bulk copy per head-dim element and panel
            for (int e = 0; e < d; e++) {
                long src = base + e * a.col();
                for (int j0 = 0; j0 < sk; j0 += NR) {
                    MemorySegment.copy(k, ValueLayout.JAVA_FLOAT, (src + j0) * 4, kp, (j0 / NR) * d * NR + e * NR,
                            Math.min(NR, sk - j0));
                }
            }
            return;
        }
        if (a.col() == 1 && a.f32() && Transpose.supported() && d % Transpose.length() == 0) {
            transposeKeys(k, base, a.row(), sk, d, kp, row);
            return;
        }
        for (int j = 0; j < sk; j++) {
            long src = base + j * a.row();
            int dst = (j / NR) * d * NR + j % NR;
            if (a.col() == 1 && a.f32()) {
                // one bulk copy per key, then the scatter between arrays (per-element segment reads cost more)
                MemorySegment.copy(k, ValueLayout.JAVA_FLOAT, src * 4, row, 0, d);
                for (int e = 0; e < d; e++) {
                    kp[dst + e * NR] = row[e];
                }
            } else {
                for (int e = 0; e < d; e++) {
                    kp[dst + e * NR] = Elements.get(a.type(), k, src + e * a.col());
                }
            }
        }
    }

    /**
     * {@link #packKeys} for f32 keys whose head dims are contiguous: whole blocks of keys by square
     * blocks transposed in registers ({@link Transpose}); the last keys (fewer than a block) through
     * {@code row} one key at a time; keys past sk up to the last panel's end are zeros.
     */
    private static void transposeKeys(MemorySegment k, long base, long row, int sk, int d, float[] kp, float[] buf) {
        int n = Transpose.length();
        int full = sk / n * n;
        for (int j = 0; j < full; j += n) {
            int at = (j / NR) * d * NR + j % NR;
            for (int e0 = 0; e0 < d; e0 += n) {
                Transpose.block(k, base + j * row + e0, row, kp, at + e0 * NR, NR);
            }
        }
        if (full % NR != 0 || full < sk) {
            int panel = (full / NR) * d * NR;
            for (int e = 0; e < d; e++) { // the last panel from the first key no block wrote
                Arrays.fill(kp, panel + e * NR + full % NR, panel + e * NR + NR, 0f);
            }
        }
        for (int j = full; j < sk; j++) {
            MemorySegment.copy(k, ValueLayout.JAVA_FLOAT, (base + j * row) * 4, buf, 0, d);
            int dst = (j / NR) * d * NR + j % NR;
            for (int e = 0; e < d; e++) {
                kp[dst + e * NR] = buf[e];
            }
        }
    }

    /**
     * V as the B operand of the value product: panels of {@link Panels#NR} value columns, each its
     * sk key rows back to back, {@code vp[((e / NR) * sk + j) * NR + e % NR]}; columns past dv zero.
     */
    private static void packValues(MemorySegment v, long base, Access a, int sk, int dv, float[] vp) {
        int panels = (dv + NR - 1) / NR;
        for (int j = 0; j < sk; j++) {
            long src = base + j * a.row();
            for (int p = 0; p < panels; p++) {
                int line = (p * sk + j) * NR;
                int w = Math.min(NR, dv - p * NR);
                if (a.col() == 1 && a.f32() && w == NR) {
                    // vector moves: a segment copy call per 32 floats costs more than the floats
                    for (int c = 0; c < NR; c += VL) {
                        FloatVector.fromMemorySegment(S, v, (src + p * NR + c) * 4, ORDER).intoArray(vp, line + c);
                    }
                } else if (a.col() == 1 && a.f32()) {
                    MemorySegment.copy(v, ValueLayout.JAVA_FLOAT, (src + p * NR) * 4, vp, line, w);
                } else {
                    for (int e = 0; e < w; e++) {
                        vp[line + e] = Elements.get(a.type(), v, src + (p * NR + e) * a.col());
                    }
                }
                Arrays.fill(vp, line + w, line + NR, 0f);
            }
        }
    }

    /**
     * Scores of query rows i0..i0+rows (at most {@link Panels#MRW}) against keys c0..c1 (c0 a
     * multiple of NR), whole panels: {@code dst[off + r * ldc + c]} for row r and key c. The rows
     * are staged in {@code qs} at {@link RowTiles#STRIDE}, so a head dim up to the stride is one
     * pass; longer ones are summed chunk by chunk through {@code tmp} (laid out as dst; may be
     * null otherwise).
     */
    static void scores(MemorySegment q, long base, Access a, int i0, int rows, int d, float[] kp, int c0, int c1,
            float[] qs, float[] tmp, float[] dst, int off, int ldc) {
        for (int e0 = 0; e0 < d; e0 += KB) { // head-dim chunks of KB <= ROW
            int w = Math.min(KB, d - e0);
            stageQueries(q, base, a, i0, rows, e0, w, qs);
            float[] into = e0 == 0 ? dst : tmp;
            for (int c = c0; c < c1; c += NR) {
                RowTiles.product(qs, rows, w, kp, ((c / NR) * d + e0) * NR, into, off + c, ldc);
            }
            if (e0 > 0) {
                int width = roundUp(c1 - c0, NR);
                for (int r = 0; r < rows; r++) {
                    int at = off + r * ldc + c0;
                    for (int c = 0; c < width; c++) {
                        dst[at + c] += tmp[at + c];
                    }
                }
            }
        }
    }

    /**
     * Head-dim values e0..e0+w of query rows i0..i0+rows as rows of {@code qs} at
     * {@link RowTiles#STRIDE}; the group's other rows are zeros (stale values there could be
     * denormals, slow in every FMA of the padding rows).
     */
    private static void stageQueries(MemorySegment q, long base, Access a, int i0, int rows, int e0, int w,
            float[] qs) {
        for (int r = 0; r < RB; r++) {
            int dst = r * ROW;
            if (r >= rows) {
                Arrays.fill(qs, dst, dst + w, 0f);
                continue;
            }
            long src = base + (long) (i0 + r) * a.row() + (long) e0 * a.col();
            if (a.col() == 1 && a.f32() && w % VL == 0) {
                for (int c = 0; c < w; c += VL) { // vector moves, as for V
                    FloatVector.fromMemorySegment(S, q, (src + c) * 4, ORDER).intoArray(qs, dst + c);
                }
            } else if (a.col() == 1 && a.f32()) {
                MemorySegment.copy(q, ValueLayout.JAVA_FLOAT, src * 4, qs, dst, w);
            } else {
                for (int e = 0; e < w; e++) {
                    qs[dst + e] = Elements.get(a.type(), q, src + e * a.col());
                }
            }
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

    /**
     * Folds one row's block into its running max and sum, given the block's max; leaves
     * exp(score - max) in place.
     */
    private static void softmaxStep(Scratch s, int r, int bc, int dvP) {
        float[] x = s.s;
        int base = r * ROW;
        float blockMax = s.blockMax[r];
        float old = s.m[r];
        float m = Math.max(old, blockMax);
        if (m == Float.NEGATIVE_INFINITY) {
            Arrays.fill(x, base, base + bc, 0f); // every score so far masked out: nothing to add
            return;
        }
        float alpha = old == Float.NEGATIVE_INFINITY ? 0f : (float) Math.exp(old - m);
        FloatVector mv = FloatVector.broadcast(S, m);
        FloatVector sum = FloatVector.zero(S);
        FloatVector sum2 = sum; // two sums: one dependency chain would wait on each add's latency
        int c = 0;
        for (; c + VL < bc; c += 2 * VL) {
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
     * o = p . V[jb .. jb+valid) for the group (rows past {@code rows} hold padding, computed but never
     * written out), per panel of value columns; a later key block's product goes through
     * {@code pv} and is added to o, which the softmax step has rescaled.
     */
    private static void values(Scratch s, int rows, int sk, int jb, int valid, int dvP, boolean first) {
        float[] c = first ? s.o : s.pv;
        for (int p = 0; p < dvP / NR; p++) {
            int panel = (p * sk + jb) * NR;
            RowTiles.product(s.s, rows, valid, s.vp, panel, c, p * NR, dvP);
        }
        if (!first) {
            for (int i = 0; i < rows * dvP; i += VL) {
                FloatVector.fromArray(S, s.o, i).add(FloatVector.fromArray(S, s.pv, i)).intoArray(s.o, i);
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
            long dst = base + (long) (i0 + r) * a.row();
            if (a.col() == 1 && a.f32() && dv % VL == 0) {
                for (int e = 0; e < dv; e += VL) { // scaled straight into the output
                    FloatVector.fromArray(S, s.o, ob + e).mul(iv).intoMemorySegment(out, (dst + e) * 4, ORDER);
                }
                continue;
            }
            for (int e = 0; e < dvP; e += VL) {
                FloatVector.fromArray(S, s.o, ob + e).mul(iv).intoArray(s.o, ob + e);
            }
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
        return roundUp(n, VL);
    }

    static int roundUp(int n, int multiple) {
        return (n + multiple - 1) / multiple * multiple;
    }

    /** One worker's buffers, grown to the largest shape it has run. */
    private static final class Scratch {
        float[] kp = new float[0];
        float[] krow = new float[0];
        float[] vp = new float[0];
        final float[] q = new float[RB * ROW];
        /** Partial scores of a head dim beyond KB (null until one is seen). */
        float[] longHead;
        final float[] s = new float[RB * ROW];
        float[] o = new float[0];
        float[] pv = new float[0];
        final float[] m = new float[RB];
        final float[] l = new float[RB];
        final float[] blockMax = new float[RB];
        float[][] rows = new float[0][];
        float[][] src = new float[1][];
        int[] off = new int[1];

        void ensure(int d, int sk, int dvP, int operands) {
            if (kp.length < d * roundUp(sk, NR)) {
                kp = new float[d * roundUp(sk, NR)];
            }
            if (krow.length < d) {
                krow = new float[d];
            }
            if (vp.length < sk * dvP) {
                vp = new float[sk * dvP];
            }
            if (d > KB && longHead == null) {
                longHead = new float[RB * ROW];
            }
            if (o.length < RB * dvP) {
                o = new float[RB * dvP];
                pv = new float[RB * dvP];
            }
            if (rows.length < operands) {
                rows = new float[operands][KB];
                src = new float[operands + 1][];
                off = new int[operands + 1];
            }
        }
    }
}
