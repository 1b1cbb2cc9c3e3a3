package io.partita.backend.dnnl.internal.ops;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import io.partita.spi.CpuTeam;
import io.partita.backend.dnnl.internal.gemm.PackedB;
import io.partita.backend.dnnl.internal.gemm.Sgemm;
import io.partita.backend.dnnl.internal.postops.PostOpChain;
import io.partita.backend.dnnl.internal.primitive.Invocation;
import io.partita.backend.dnnl.internal.primitive.PackedConstant;
import io.partita.backend.dnnl.internal.primitive.Primitive;
import io.partita.cache.Lease;
import io.partita.graph.LogicalTensor;
import io.partita.graph.OpKind;

/**
 * MatMul with its post-ops: batched (numpy-broadcast batch dims), transposes and 1-D operands as
 * oneDNN defines them. Weights are packed into micro-kernel panels; constant weights once, into the
 * unified constant cache. Post-ops run on each output tile as it is finished.
 */
public final class MatMulPrimitive implements Primitive {
    /** Per thread: the last packed non-constant B, reused by {@link #reusablePack}. */
    private static final ThreadLocal<PackedB[]> REUSABLE = ThreadLocal.withInitial(() -> new PackedB[1]);

    /** What identifies a MatMul primitive: operand descriptions, transposes, post-ops and where they come from. */
    public record Desc(LogicalTensor src, LogicalTensor weights, LogicalTensor dst, boolean transposeA,
            boolean transposeB, int srcInput, int weightsInput, boolean weightsConstant, PostOpChain post,
            int[] postInputs) {

        @Override
        public boolean equals(Object o) {
            return o instanceof Desc d && d.src.equals(src) && d.weights.equals(weights) && d.dst.equals(dst)
                    && d.transposeA == transposeA && d.transposeB == transposeB && d.srcInput == srcInput
                    && d.weightsInput == weightsInput && d.weightsConstant == weightsConstant && d.post.equals(post)
                    && Arrays.equals(d.postInputs, postInputs);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(src, weights, dst, transposeA, transposeB, srcInput, weightsInput,
                    weightsConstant, post) * 31 + Arrays.hashCode(postInputs);
        }
    }

    private final Desc d;
    private final int m;
    private final int k;
    private final int n;
    private final long[] outBatch;
    private final long batch;
    private final long[] aBatchDims;
    private final long[] aBatchStrides;
    private final long aRowStride;
    private final long aColStride;
    private final long[] bBatchDims;
    private final long[] bBatchStrides;
    private final long bRowStride;
    private final long bColStride;
    private final long bMatrices;
    /**
     * The chain's leading Add of a per-column operand (a bias: one value per output column, the
     * same for every row and batch item), or -1: added as the tiles are stored, so it costs no
     * second pass over C. {@link #tail} is the rest of the chain, run as the epilogue.
     */
    private final int biasOperand;
    private final boolean relu;
    private final PostOpChain tail;

    public MatMulPrimitive(Desc d) {
        this.d = d;
        this.biasOperand = columnBias(d.post, d.dst);
        PostOpChain rest = biasOperand < 0 ? d.post
                : new PostOpChain(d.dst.dims(), d.post.steps().subList(1, d.post.steps().size()));
        // a lone ReLU after it is applied as the tiles are last stored, too
        this.relu = rest.steps().size() == 1 && rest.steps().get(0) instanceof PostOpChain.Act a
                && a.activation().kind() == OpKind.ReLU;
        this.tail = relu ? PostOpChain.EMPTY : rest;
        long[] ad = d.src.dims();
        long[] as = d.src.strides();
        long[] bd = d.weights.dims();
        long[] bs = d.weights.strides();
        if (ad.length == 1) {
            ad = new long[] {1, ad[0]};
            as = new long[] {0, as[0]};
        }
        if (bd.length == 1) {
            bd = new long[] {bd[0], 1};
            bs = new long[] {bs[0], 0};
        }
        int ra = ad.length;
        int rb = bd.length;
        boolean ta = d.transposeA && d.src.ndims() >= 2;
        boolean tb = d.transposeB && d.weights.ndims() >= 2;
        this.m = (int) ad[ra - (ta ? 1 : 2)];
        this.k = (int) ad[ra - (ta ? 2 : 1)];
        this.n = (int) bd[rb - (tb ? 2 : 1)];
        this.aRowStride = ta ? as[ra - 1] : as[ra - 2];
        this.aColStride = ta ? as[ra - 2] : as[ra - 1];
        this.bRowStride = tb ? bs[rb - 1] : bs[rb - 2];
        this.bColStride = tb ? bs[rb - 2] : bs[rb - 1];
        this.aBatchDims = Arrays.copyOf(ad, ra - 2);
        this.aBatchStrides = Arrays.copyOf(as, ra - 2);
        this.bBatchDims = Arrays.copyOf(bd, rb - 2);
        this.bBatchStrides = Arrays.copyOf(bs, rb - 2);
        int batchRank = Math.max(ra, rb) - 2;
        this.outBatch = new long[batchRank];
        for (int i = 0; i < batchRank; i++) {
            int ia = i - (batchRank - aBatchDims.length);
            int ib = i - (batchRank - bBatchDims.length);
            outBatch[i] = Math.max(ia >= 0 ? aBatchDims[ia] : 1, ib >= 0 ? bBatchDims[ib] : 1);
        }
        this.batch = Strided.product(outBatch, 0, batchRank);
        this.bMatrices = Strided.product(bBatchDims, 0, bBatchDims.length);
    }

    @Override
    public void execute(Invocation inv) {
        var a = inv.in(d.srcInput);
        var c = inv.out(0);
        MemorySegment[] operands = inv.operands(d.postInputs);
        PostOpChain.Bound post = tail.isEmpty() ? null : tail.bind(operands);
        float[] bias = biasOperand < 0 ? null : readBias(operands[biasOperand]);
        Lease lease = d.weightsConstant ? inv.constant(d.weightsInput, "packed-panels",
                PackedConstant.bytesFor((int) bMatrices, k, n), () -> new PackedConstant(packAll(inv))) : null;
        try {
            PackedB[] perBatch = lease != null ? null : (bMatrices == 1 ? new PackedB[] {reusablePack(inv, 0)} : null);
            CpuTeam pool = inv.pool();
            int threads = pool == null ? 1 : pool.threads();
            // Many small products: one thread per batch item; few large ones: all threads per product.
            boolean perItem = batch >= threads && (long) m * n * k < (1L << 24);
            CpuTeam.RangeBody items = (b0, b1) -> {
                for (long bi = b0; bi < b1; bi++) {
                    long bIdx = bMatrices == 1 ? 0 : Strided.batchOffset(bi, outBatch, bBatchDims, bBatchStrides);
                    PackedB pb = lease != null ? ((PackedConstant) lease.buffer()).matrix(matrixIndex(bi))
                            : perBatch != null ? perBatch[0] : reusablePack(inv, bIdx);
                    long aOff = 4L * Strided.batchOffset(bi, outBatch, aBatchDims, aBatchStrides);
                    long cOff = 4L * bi * m * n;
                    Sgemm.multiply(a, aOff, aRowStride, aColStride, m, pb, c, cOff, n, bias, relu,
                            post == null ? null : epilogue(post, bi * m * n, n), perItem ? null : pool);
                }
            };
            if (perItem && pool != null) {
                pool.parallelFor((int) batch, items);
            } else {
                items.run(0, (int) batch);
            }
        } finally {
            if (lease != null) {
                lease.close();
            }
        }
    }

    /**
     * The operand index of the chain's first step if it is an Add whose operand varies along the
     * output's last dim only (strides 0 but the last, which is 1), else -1.
     */
    static int columnBias(PostOpChain post, LogicalTensor dst) {
        if (post.isEmpty() || !(post.steps().get(0) instanceof PostOpChain.Bin b) || b.kind() != OpKind.Add) {
            return -1;
        }
        long[] st = b.strides();
        long[] dims = dst.dims();
        if (st.length != dims.length || st.length == 0 || st[st.length - 1] != 1) {
            return -1;
        }
        for (int i = 0; i < st.length - 1; i++) {
            if (st[i] != 0 && dims[i] != 1) {
                return -1;
            }
        }
        return b.operand();
    }

    /** The bias's n values, padded with zeros to whole panels (the kernels read a panel's width). */
    private float[] readBias(MemorySegment seg) {
        int padded = (n + Sgemm.NR - 1) / Sgemm.NR * Sgemm.NR;
        float[] v = BIAS.get();
        if (v.length < padded) {
            v = new float[padded];
            BIAS.set(v);
        }
        MemorySegment.copy(seg, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, v, 0, n);
        Arrays.fill(v, n, padded, 0f);
        return v;
    }

    /** Per calling thread: an execution's bias values (read by the pool's threads while the caller waits). */
    private static final ThreadLocal<float[]> BIAS = ThreadLocal.withInitial(() -> new float[0]);

    /** The rest of the chain as a GEMM epilogue: GEMM row r, column j is output flat index {@code flatBase + r * rowLength + j}. */
    private static Sgemm.Epilogue epilogue(PostOpChain.Bound post, long flatBase, long rowLength) {
        return (seg, rowOff, row, col, cols) -> post.apply(seg, rowOff + 4L * col, flatBase + row * rowLength + col, cols);
    }

    /** Which packed weight matrix output batch item bi uses. */
    private int matrixIndex(long bi) {
        if (bMatrices == 1) {
            return 0;
        }
        long flat = bi;
        long idx = 0;
        long mul = 1;
        for (int dd = outBatch.length - 1; dd >= 0; dd--) {
            long i = flat % outBatch[dd];
            flat /= outBatch[dd];
            int o = dd - (outBatch.length - bBatchDims.length);
            if (o >= 0) {
                idx += (bBatchDims[o] == 1 ? 0 : i) * mul;
                mul *= bBatchDims[o];
            }
        }
        return (int) idx;
    }

    private PackedB[] packAll(Invocation inv) {
        PackedB[] all = new PackedB[(int) bMatrices];
        long[] idx = new long[bBatchDims.length];
        for (int i = 0; i < all.length; i++) {
            long off = 0;
            long rem = i;
            for (int dd = bBatchDims.length - 1; dd >= 0; dd--) {
                idx[dd] = rem % bBatchDims[dd];
                rem /= bBatchDims[dd];
                off += idx[dd] * bBatchStrides[dd];
            }
            all[i] = packAt(inv, off);
        }
        return all;
    }

    /** A B packed for the constant cache: its own array, kept. */
    private PackedB packAt(Invocation inv, long elementOffset) {
        return PackedB.pack(inv.in(d.weightsInput), 4L * elementOffset, bRowStride, bColStride, k, n);
    }

    /**
     * A B that is not constant, packed into this thread's buffer of the last such pack when it has
     * the same size: a per-op attention packed K and V into new arrays at every execution (1.7 GB
     * of garbage in a benchmark run). The buffer is used until the product returns: the thread
     * either runs the product or waits for it.
     */
    private PackedB reusablePack(Invocation inv, long elementOffset) {
        PackedB[] slot = REUSABLE.get();
        slot[0] = PackedB.pack(inv.in(d.weightsInput), 4L * elementOffset, bRowStride, bColStride, k, n, slot[0]);
        return slot[0];
    }

    @Override
    public String toString() {
        return "matmul " + Arrays.toString(outBatch) + " " + m + "x" + k + "x" + n + (d.post.isEmpty() ? "" : " " + d.post);
    }
}
