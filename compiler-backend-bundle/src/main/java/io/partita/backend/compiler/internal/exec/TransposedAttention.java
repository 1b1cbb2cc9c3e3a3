package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import io.partita.backend.compiler.internal.codegen.RowKernel;
import io.partita.backend.compiler.internal.exec.FlashAttention.Access;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The transposed attention loop (JAX's multi-query export): the output column j is
 * {@code sum_i V[e, i] * softmax_j(S[i, :])[j]}, a sum over whole probability rows. Per batch
 * entry, blocks of rows are scored against all keys at once (K packed as in
 * {@link FlashAttention}), run through the generated score kernel, normalised completely (every
 * row's softmax is final before it is used, so nothing is rescaled later) and folded into the
 * transposed output {@code Ot[e, j]}, which stays in the worker's scratch until it is written
 * once. Neither the scores nor the probabilities exist in memory beyond one block of rows.
 */
public final class TransposedAttention {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int VL = S.length();
    /** Query rows of one register tile ({@link Panels#MRW}). */
    private static final int RB = Panels.MRW;
    /**
     * Rows scored and folded into the output together (about 32, whole tiles): each output vector is
     * loaded once per block.
     */
    private static final int IB = RB * Math.max(1, 32 / RB);
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private TransposedAttention() {
    }

    /**
     * Where everything is, in elements; batch strides run over {@code batch} (the score tensor's
     * leading dims). Q: row i x head dim; K: key j x head dim; V: row i x value dim e; O: key j x
     * value dim e; score operands: row i x key j.
     */
    public record Geometry(long[] batch, int rows, int keys, int d, int dv, Access q, Access k, Access v, Access o,
            Access[] operands, boolean infAsZero) {
        long batchCount() {
            long n = 1;
            for (long b : batch) {
                n *= b;
            }
            return n;
        }
    }

    public static void run(Geometry g, FlashAttention.Buffers b, RowKernel scores, boolean identityScores,
            Parallel pool) {
        long tasks = g.batchCount();
        if (tasks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("attention with " + tasks + " batch entries is beyond one partition");
        }
        // A batch entry is one task: its output columns are sums over all its rows.
        pool.forEach((int) tasks, t -> entry(g, b, scores, identityScores, t));
    }

    private static void entry(Geometry g, FlashAttention.Buffers b, RowKernel scores, boolean identity, long batch) {
        int d = g.d();
        int dv = g.dv();
        int sk = g.keys();
        // whole key panels: the score tile writes them
        int skP = FlashAttention.roundUp(sk, Panels.NR);
        int dv4 = (dv + 3) / 4 * 4;
        Scratch s = SCRATCH.get();
        s.ensure(d, skP, dv4, g.operands().length);
        long[] bd = g.batch();
        int rank = bd.length;
        long bq = Strides.offset(batch, bd, g.q().batchStrides(), rank);
        long bk = Strides.offset(batch, bd, g.k().batchStrides(), rank);
        long bv = Strides.offset(batch, bd, g.v().batchStrides(), rank);
        long bo = Strides.offset(batch, bd, g.o().batchStrides(), rank);
        long[] opBase = new long[g.operands().length];
        for (int k = 0; k < opBase.length; k++) {
            opBase[k] = Strides.offset(batch, bd, g.operands()[k].batchStrides(), rank);
        }
        FlashAttention.packKeys(b.k(), bk, g.k(), sk, d, s.kp, s.krow);
        Arrays.fill(s.ot, 0, dv4 * skP, 0f);
        for (int i0 = 0; i0 < g.rows(); i0 += IB) {
            int rows = Math.min(IB, g.rows() - i0);
            for (int r0 = 0; r0 < rows; r0 += RB) {
                int group = Math.min(RB, rows - r0);
                FlashAttention.scores(b.q(), bq, g.q(), i0 + r0, group, d, s.kp, 0, skP, s.q, s.longHead, s.p,
                        r0 * skP, skP);
            }
            stageValues(b.v(), bv, g.v(), i0, rows, dv, s.vb);
            for (int r = 0; r < rows; r++) {
                if (!identity) {
                    stageOperands(g, b, s, opBase, i0 + r, sk, skP);
                    s.src[0] = s.p;
                    s.off[0] = r * skP;
                    scores.apply(s.src, s.off, b.scalars(), skP, i0 + r, 0);
                }
                normalise(s, r, sk, skP, dv, g.infAsZero());
            }
            accumulate(s, rows, skP, dv4);
        }
        writeColumns(b.o(), bo, g.o(), sk, skP, dv, s.ot);
    }

    /** vb[e * IB + r] = V[i0 + r, e]; rows past the block and value dims past dv stay zero. */
    private static void stageValues(MemorySegment v, long base, Access a, int i0, int rows, int dv, float[] vb) {
        Arrays.fill(vb, 0f);
        for (int e = 0; e < dv; e++) {
            long src = base + (long) i0 * a.row() + e * a.col();
            if (a.row() == 1 && a.f32()) {
                MemorySegment.copy(v, ValueLayout.JAVA_FLOAT, src * 4, vb, e * IB, rows);
            } else {
                for (int r = 0; r < rows; r++) {
                    vb[e * IB + r] = Elements.get(a.type(), v, src + r * a.row());
                }
            }
        }
    }

    private static void stageOperands(Geometry g, FlashAttention.Buffers b, Scratch s, long[] base, int row, int sk,
            int skP) {
        Access[] ops = g.operands();
        for (int k = 0; k < ops.length; k++) {
            Access a = ops[k];
            float[] dst = s.rows[k];
            FlashAttention.stageRow(a, b.operands()[k], base[k] + row * a.row(), dst, sk, skP);
            s.src[k + 1] = dst;
            s.off[k + 1] = 0;
        }
    }

    /**
     * Turns row r of the block into exp(score - max) and folds 1/sum into the row's staged values,
     * so the accumulation multiplies normalised probabilities. A row whose every score is -inf
     * contributes zeros with inf_as_zero and NaN otherwise (0/0), as the reference.
     */
    private static void normalise(Scratch s, int r, int sk, int skP, int dv, boolean infAsZero) {
        float[] x = s.p;
        int base = r * skP;
        Arrays.fill(x, base + sk, base + skP, Float.NEGATIVE_INFINITY);
        float m = SoftmaxExp.rowMax(x, base, base + skP);
        float scale;
        if (m == Float.NEGATIVE_INFINITY) {
            // NaN times any staged value, zero included, carries the NaN to every output of the row
            Arrays.fill(x, base, base + sk, infAsZero ? 0f : Float.NaN);
            Arrays.fill(x, base + sk, base + skP, 0f);
            scale = infAsZero ? 0f : 1f;
        } else {
            FloatVector mv = FloatVector.broadcast(S, m);
            FloatVector sum = FloatVector.zero(S);
            for (int c = 0; c < skP; c += VL) {
                FloatVector p = SoftmaxExp.exp(FloatVector.fromArray(S, x, base + c).sub(mv));
                p.intoArray(x, base + c);
                sum = sum.add(p);
            }
            // NaN scores (or +inf: m is then +inf and every exp NaN) make the sum NaN, as the reference's row
            scale = 1f / sum.reduceLanes(VectorOperators.ADD);
        }
        float[] vb = s.vb;
        for (int e = 0; e < dv; e++) {
            vb[e * IB + r] *= scale;
        }
    }

    /**
     * ot[e, j] += sum over the block's rows of vb[e, r] * p[r, j]: four value dims by two key
     * vectors in registers, each loaded probability vector feeding four FMAs.
     */
    private static void accumulate(Scratch s, int rows, int skP, int dv4) {
        float[] p = s.p;
        float[] vb = s.vb;
        float[] ot = s.ot;
        for (int e = 0; e < dv4; e += 4) {
            int o0 = e * skP;
            int o1 = o0 + skP;
            int o2 = o1 + skP;
            int o3 = o2 + skP;
            int v0 = e * IB;
            int c = 0;
            for (; c + 2 * VL <= skP; c += 2 * VL) {
                FloatVector a0 = FloatVector.fromArray(S, ot, o0 + c);
                FloatVector a1 = FloatVector.fromArray(S, ot, o1 + c);
                FloatVector a2 = FloatVector.fromArray(S, ot, o2 + c);
                FloatVector a3 = FloatVector.fromArray(S, ot, o3 + c);
                FloatVector b0 = FloatVector.fromArray(S, ot, o0 + c + VL);
                FloatVector b1 = FloatVector.fromArray(S, ot, o1 + c + VL);
                FloatVector b2 = FloatVector.fromArray(S, ot, o2 + c + VL);
                FloatVector b3 = FloatVector.fromArray(S, ot, o3 + c + VL);
                for (int r = 0; r < rows; r++) {
                    FloatVector x = FloatVector.fromArray(S, p, r * skP + c);
                    FloatVector y = FloatVector.fromArray(S, p, r * skP + c + VL);
                    FloatVector w = FloatVector.broadcast(S, vb[v0 + r]);
                    a0 = w.fma(x, a0);
                    b0 = w.fma(y, b0);
                    w = FloatVector.broadcast(S, vb[v0 + IB + r]);
                    a1 = w.fma(x, a1);
                    b1 = w.fma(y, b1);
                    w = FloatVector.broadcast(S, vb[v0 + 2 * IB + r]);
                    a2 = w.fma(x, a2);
                    b2 = w.fma(y, b2);
                    w = FloatVector.broadcast(S, vb[v0 + 3 * IB + r]);
                    a3 = w.fma(x, a3);
                    b3 = w.fma(y, b3);
                }
                a0.intoArray(ot, o0 + c);
                a1.intoArray(ot, o1 + c);
                a2.intoArray(ot, o2 + c);
                a3.intoArray(ot, o3 + c);
                b0.intoArray(ot, o0 + c + VL);
                b1.intoArray(ot, o1 + c + VL);
                b2.intoArray(ot, o2 + c + VL);
                b3.intoArray(ot, o3 + c + VL);
            }
            for (; c < skP; c += VL) {
                FloatVector a0 = FloatVector.fromArray(S, ot, o0 + c);
                FloatVector a1 = FloatVector.fromArray(S, ot, o1 + c);
                FloatVector a2 = FloatVector.fromArray(S, ot, o2 + c);
                FloatVector a3 = FloatVector.fromArray(S, ot, o3 + c);
                for (int r = 0; r < rows; r++) {
                    FloatVector x = FloatVector.fromArray(S, p, r * skP + c);
                    a0 = FloatVector.broadcast(S, vb[v0 + r]).fma(x, a0);
                    a1 = FloatVector.broadcast(S, vb[v0 + IB + r]).fma(x, a1);
                    a2 = FloatVector.broadcast(S, vb[v0 + 2 * IB + r]).fma(x, a2);
                    a3 = FloatVector.broadcast(S, vb[v0 + 3 * IB + r]).fma(x, a3);
                }
                a0.intoArray(ot, o0 + c);
                a1.intoArray(ot, o1 + c);
                a2.intoArray(ot, o2 + c);
                a3.intoArray(ot, o3 + c);
            }
        }
    }

    private static void writeColumns(MemorySegment out, long base, Access a, int sk, int skP, int dv, float[] ot) {
        for (int e = 0; e < dv; e++) {
            long dst = base + e * a.col();
            if (a.row() == 1 && a.f32()) {
                MemorySegment.copy(ot, e * skP, out, ValueLayout.JAVA_FLOAT, dst * 4, sk);
            } else {
                for (int j = 0; j < sk; j++) {
                    Elements.set(a.type(), out, dst + j * a.row(), ot[e * skP + j]);
                }
            }
        }
    }

    /** One worker's buffers, sized for the shapes it runs (kept between calls). */
    private static final class Scratch {
        float[] kp = new float[0];
        float[] krow = new float[0];
        final float[] q = new float[RB * RowTiles.STRIDE];
        /** Partial scores of a head dim beyond one chunk (FlashAttention.KB; null until one is seen). */
        float[] longHead;
        float[] p = new float[0];
        float[] ot = new float[0];
        float[] vb = new float[0];
        float[][] rows = new float[0][];
        float[][] src = new float[1][];
        int[] off = new int[1];

        void ensure(int d, int skP, int dv4, int operands) {
            if (kp.length < d * skP) {
                kp = new float[d * skP];
            }
            if (krow.length < d) {
                krow = new float[d];
            }
            if (p.length < IB * skP) {
                p = new float[IB * skP];
                longHead = null;
            }
            if (d > FlashAttention.KB && longHead == null) {
                longHead = new float[p.length];
            }
            if (ot.length < dv4 * skP) {
                ot = new float[dv4 * skP];
            }
            if (vb.length != dv4 * IB) {
                vb = new float[dv4 * IB];
            }
            if (rows.length < operands || operands > 0 && rows[0].length < skP) {
                rows = new float[operands][skP];
                src = new float[operands + 1][];
                off = new int[operands + 1];
            }
        }
    }
}
