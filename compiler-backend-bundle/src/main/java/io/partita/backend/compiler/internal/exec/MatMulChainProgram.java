package io.partita.backend.compiler.internal.exec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.partita.backend.compiler.internal.codegen.RowKernel;
import io.partita.backend.compiler.internal.codegen.RowKernelGenerator;
import io.partita.backend.compiler.internal.expr.Expr;
import io.partita.backend.compiler.internal.expr.ExprBuilder;
import io.partita.backend.compiler.internal.expr.Fn;
import io.partita.backend.compiler.internal.fusion.MatMulChainShape;
import io.partita.cache.CacheKey;
import io.partita.cache.ConstantBuffer;
import io.partita.cache.ConstantTensorCache;
import io.partita.cache.Lease;
import io.partita.cache.SourceMemory;
import io.partita.graph.AttrValue;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Tensor;
import io.partita.graph.UnsupportedFeatureException;
import io.partita.spi.CompileRequest;

/**
 * A compiled MatMul with its elementwise prologue and epilogue: per batch entry and block of
 * rows, the generated prologue kernel computes the block's rows of A into a staged block (A never
 * exists whole), B is packed into column panels (once per execution, or once into the unified
 * constant cache under the backend's id when constant), the register tile runs over each panel,
 * and the generated epilogue kernel (bias, scales, activations) finishes each tile row in cache
 * before it is stored. Dims and strides are read at every execution.
 */
public final class MatMulChainProgram implements Program {
    /** Rows of A per block: the block is reused across every panel of B. */
    private static final int MB = 64;
    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private final String backendId;
    private final CompileRequest request;
    private final String what;
    private final boolean transA;
    private final boolean transB;
    private final int aRank;
    private final long[] aStatic;
    /** A's port when it is a partition input (no prologue), else -1. */
    private final int aPort;
    private final int bPort;
    private final RowKernel pre;
    private final RowOperands preOps;
    private final int preSlots;
    /** Null when the MatMul's output is stored as it is. */
    private final RowKernel post;
    private final RowOperands postOps;
    private final int postSlots;
    private final ConstantTensorCache cache;
    private final Set<CacheKey> added = ConcurrentHashMap.newKeySet();

    /** This backend's constant cache key: B of one compiled MatMul, packed. */
    private record PackedKey(long program, int port, LogicalTensor tensor, SourceMemory source) {
    }

    public MatMulChainProgram(String backendId, CompileRequest request, MatMulChainShape shape,
            RowKernelGenerator generator, ConstantTensorCache cache) {
        this.backendId = backendId;
        this.request = request;
        this.cache = cache;
        this.what = "partition " + request.partitionId() + " (" + request.pattern() + ")";
        if (request.outputs().size() != 1 || request.outputs().get(0).id() != shape.result().id()) {
            throw new UnsupportedFeatureException(what + ": a fused MatMul chain writes one output");
        }
        Op mm = shape.matmul();
        transA = flag(mm, "transpose_a");
        transB = flag(mm, "transpose_b");
        aStatic = shape.a().dims();
        aRank = aStatic.length;
        bPort = RowOperands.port(request, shape.b());
        preOps = new RowOperands(request, 0);
        if (shape.prologue().isEmpty()) {
            aPort = RowOperands.port(request, shape.a());
            pre = null;
            preSlots = 0;
        } else {
            aPort = -1;
            ExprBuilder b = new ExprBuilder();
            for (Op op : shape.prologue()) {
                b.add(op, aRank, t -> preOps.leaf(b, t));
            }
            Expr e = b.build(shape.a().id());
            preSlots = Math.max(1, e.sources());
            long k = aStatic[aRank - 1];
            pre = generator.kernel(e, !transA && k > 0 && k < Integer.MAX_VALUE / 8 ? (int) k : 0, what);
        }
        postOps = new RowOperands(request, 1);
        if (shape.epilogue().isEmpty() && shape.bias() == null) {
            post = null;
            postSlots = 0;
        } else {
            int rank = mm.output(0).dims().length;
            ExprBuilder b = new ExprBuilder();
            int x = b.source();
            long out = mm.output(0).id();
            if (shape.bias() != null) {
                int bias = postOps.leaf(b, shape.bias());
                x = b.apply(Fn.ADD, x, bias);
            }
            b.bind(out, x);
            for (Op op : shape.epilogue()) {
                b.add(op, rank, t -> postOps.leaf(b, t));
            }
            Expr e = b.build(shape.result().id());
            postSlots = e.sources();
            post = generator.kernel(e, Panels.NR, what);
        }
    }

    private static boolean flag(Op op, String attr) {
        return op.attr(attr).map(AttrValue::asBool).orElse(false);
    }

    /** What one execution works on. */
    private record Run(long[] ad, long[] bd, long[] od, int m, int n, int k, int kp, Tensor a, float[] packed,
            int bLength, RowOperands.Bound preB, RowOperands.Bound postB, Tensor res) {
    }

    @Override
    public void execute(List<Tensor> in, List<Tensor> out, Parallel pool) {
        Tensor res = out.get(0);
        long[] od = res.logicalTensor().dims();
        int r = od.length;
        Tensor bt = in.get(bPort);
        long[] bd = bt.logicalTensor().dims();
        long[] ad = pre == null ? in.get(aPort).logicalTensor().dims() : aDims(in);
        int ar = ad.length;
        int br = bd.length;
        long mL = transA ? ad[ar - 1] : ad[ar - 2];
        long kL = transA ? ad[ar - 2] : ad[ar - 1];
        long bk = transB ? bd[br - 1] : bd[br - 2];
        long nL = transB ? bd[br - 2] : bd[br - 1];
        boolean ok = r == Math.max(ar, br) && od[r - 2] == mL && od[r - 1] == nL && bk == kL;
        for (int i = 0; ok && i < r - 2; i++) {
            long x = batchDim(ad, i, r);
            long y = batchDim(bd, i, r);
            ok = (x == y || x == 1 || y == 1) && od[i] == Math.max(x, y) || (x == 0 || y == 0) && od[i] == 0;
        }
        if (!ok) {
            throw new UnsupportedFeatureException(what + ": A " + LogicalTensor.dimsToString(ad) + (transA ? "^T" : "")
                    + " times B " + LogicalTensor.dimsToString(bd) + (transB ? "^T" : "") + " is no "
                    + LogicalTensor.dimsToString(od));
        }
        if (Math.max(mL, Math.max(nL, kL)) > Integer.MAX_VALUE / 16) {
            throw new UnsupportedFeatureException(what + ": dims beyond the fused MatMul's limit");
        }
        long batch = RowOperands.product(od, r - 2);
        int m = (int) mL;
        int n = (int) nL;
        int k = (int) kL;
        if (batch == 0 || m == 0 || n == 0) {
            return;
        }
        RowOperands.Bound preB = pre == null ? null : preOps.bind(in, ad);
        RowOperands.Bound postB = post == null ? null : postOps.bind(in, od);
        long bBatch = RowOperands.product(bd, br - 2);
        long bLength = Panels.length(k, n);
        if (bBatch * bLength > Integer.MAX_VALUE - 16) {
            throw new UnsupportedFeatureException(what + ": B " + LogicalTensor.dimsToString(bd)
                    + " is beyond the fused MatMul's limit of 2^31 packed floats");
        }
        Packed packed = pack(bt, bBatch, k, n, (int) bLength, pool);
        try {
            Run run = new Run(ad, bd, od, m, n, k, RowOperands.padded(Math.max(k, 1)),
                    pre == null ? in.get(aPort) : null, packed.data(), (int) bLength, preB, postB, res);
            int rowBlocks = (m + MB - 1) / MB;
            long blocks = batch * rowBlocks;
            int panels = Panels.panels(n);
            // few row blocks: split the panels too (each group computes the block's prologue again)
            int groups = blocks >= 2L * pool.threads() ? 1
                    : (int) Math.min(panels, (2L * pool.threads() + blocks - 1) / blocks);
            long units = blocks * groups;
            double work = (double) batch * m * n * Math.max(k, 1);
            int tasks = (int) Math.max(1, Math.min(units, Math.min(pool.threads() * 4L, (long) (work / 65536) + 1)));
            pool.forEach(tasks, t -> units(run, t * units / tasks, (t + 1) * units / tasks, rowBlocks, groups,
                    panels));
        } finally {
            if (packed.lease() != null) {
                packed.lease().close();
            }
        }
    }

    /** A's dims with a prologue: those its operands broadcast to, checked against the static ones. */
    private long[] aDims(List<Tensor> in) {
        long[] d = preOps.broadcastDims(in, aRank);
        for (int i = 0; i < aRank; i++) {
            if (aStatic[i] >= 0 && aStatic[i] != d[i]) {
                throw new UnsupportedFeatureException(what + ": the prologue computes "
                        + LogicalTensor.dimsToString(d) + ", not A " + LogicalTensor.dimsToString(aStatic));
            }
        }
        return d;
    }

    /** Batch dim i (of the output's r - 2) of an operand, right-aligned; 1 where it has none. */
    private static long batchDim(long[] d, int i, int r) {
        int j = i - (r - d.length);
        return j >= 0 ? d[j] : 1;
    }

    /** The flat batch index of an operand for output batch entry {@code bi} (its dims of 1 broadcast). */
    static long batchIndex(long bi, long[] od, long[] d) {
        int r = od.length;
        long idx = 0;
        long mul = 1;
        for (int i = r - 3; i >= 0; i--) {
            long o = od[i];
            long x = bi % o;
            bi /= o;
            int j = i - (r - d.length);
            if (j >= 0) {
                long dd = d[j];
                if (dd != 1) {
                    idx += x * mul;
                }
                mul *= dd;
            }
        }
        return idx;
    }

    private record Packed(float[] data, Lease lease) {
    }

    /** B's batch entries packed into panels, back to back: from the constant cache when constant. */
    private Packed pack(Tensor t, long bBatch, int k, int n, int bLength, Parallel pool) {
        LogicalTensor lt = t.logicalTensor();
        int length = (int) (bBatch * bLength);
        if (lt.isConstant() && cache != null) {
            CacheKey key = new CacheKey(backendId, new PackedKey(id, bPort, lt, SourceMemory.of(t.data())));
            long bytes = Math.max(4L * length, 1);
            Lease lease = cache.getOrAdd(key, bytes, 2 * bytes, () -> {
                forgetDeadSources();
                added.add(key);
                float[] dst = new float[length];
                packAll(t, bBatch, k, n, bLength, dst, Parallel.CALLER);
                return new PackedPanels(dst);
            }, null);
            return new Packed(PackedPanels.of(lease), lease);
        }
        float[] dst = new float[length];
        packAll(t, bBatch, k, n, bLength, dst, pool);
        return new Packed(dst, null);
    }

    private void packAll(Tensor t, long bBatch, int k, int n, int bLength, float[] dst, Parallel pool) {
        long[] d = t.logicalTensor().dims();
        long[] s = t.logicalTensor().strides();
        int br = d.length;
        long rowStride = transB ? s[br - 1] : s[br - 2];
        long colStride = transB ? s[br - 2] : s[br - 1];
        int tasks = (int) Math.min(bBatch, pool.threads() * 2L);
        pool.forEach(tasks, x -> {
            for (long j = x * bBatch / tasks; j < (x + 1) * bBatch / tasks; j++) {
                long base = Strides.offset(j, d, s, br - 2);
                Panels.pack(t.data(), base, rowStride, colStride, k, n, k, dst, (int) (j * bLength));
            }
        });
    }

    private void forgetDeadSources() {
        for (CacheKey key : added) {
            if (!((PackedKey) key.backendKey()).source().isAlive()) {
                cache.removeIfExist(key);
                added.remove(key);
            }
        }
    }

    /** Units [u0, u1) of (batch entry, row block, panel group), the block's A computed once for its groups. */
    private void units(Run run, long u0, long u1, int rowBlocks, int groups, int panels) {
        int kp = run.kp();
        float[] xb = new float[MB * kp];
        float[] preBuf = pre == null ? null : new float[preSlots * Math.max(kp, RowOperands.padded(MB))];
        float[] tile = new float[Panels.MR * Panels.NR + Math.max(0, postSlots - 1) * Panels.NR];
        float[] col = pre != null && transA ? new float[RowOperands.padded(MB)] : null;
        long lastBlock = -1;
        for (long u = u0; u < u1; u++) {
            long block = u / groups;
            int g = (int) (u % groups);
            long bi = block / rowBlocks;
            int m0 = (int) (block % rowBlocks) * MB;
            int rows = Math.min(MB, run.m() - m0);
            if (block != lastBlock) {
                blockOfA(run, bi, m0, rows, xb, preBuf, col);
                lastBlock = block;
            }
            int p0 = (int) ((long) g * panels / groups);
            int p1 = (int) ((long) (g + 1) * panels / groups);
            panels(run, bi, m0, rows, p0, p1, xb, tile);
        }
    }

    /** Rows m0..m0+rows of A for batch entry bi into xb (row stride kp). */
    private void blockOfA(Run run, long bi, int m0, int rows, float[] xb, float[] preBuf, float[] col) {
        long[] ad = run.ad();
        int ar = ad.length;
        int k = run.k();
        int kp = run.kp();
        long aBi = batchIndex(bi, run.od(), ad);
        if (pre == null) {
            LogicalTensor lt = run.a().logicalTensor();
            long[] s = lt.strides();
            long base = Strides.offset(aBi, ad, s, ar - 2);
            long mStride = transA ? s[ar - 1] : s[ar - 2];
            long kStride = transA ? s[ar - 2] : s[ar - 1];
            for (int i = 0; i < rows; i++) {
                RowOperands.read(run.a().data(), base + (m0 + i) * mStride, kStride, xb, i * kp, k);
            }
            return;
        }
        RowOperands.Bound b = run.preB();
        float[][] src = new float[preSlots][];
        int[] off = new int[preSlots];
        if (!transA) {
            // A's rows are the prologue's rows: computed in place in the block
            for (int i = 0; i < rows; i++) {
                long row = aBi * run.m() + m0 + i;
                src[0] = xb;
                off[0] = i * kp;
                for (int s = 1; s < preSlots; s++) {
                    src[s] = preBuf;
                    off[s] = (s - 1) * kp;
                }
                for (int q = 0; q < preOps.rowCount(); q++) {
                    int s = b.slot(q);
                    b.stage(q, row, 0, src[s], off[s], k);
                }
                pre.apply(src, off, b.scalarValues, k, (int) row, 0);
            }
            return;
        }
        // A stored [K, M]: its rows run along M; the block's columns of every row, transposed into xb
        int w = RowOperands.padded(rows);
        src[0] = col;
        off[0] = 0;
        for (int s = 1; s < preSlots; s++) {
            src[s] = preBuf;
            off[s] = (s - 1) * w;
        }
        for (int kk = 0; kk < k; kk++) {
            long row = aBi * k + kk;
            for (int q = 0; q < preOps.rowCount(); q++) {
                int s = b.slot(q);
                b.stage(q, row, m0, src[s], off[s], rows);
            }
            pre.apply(src, off, b.scalarValues, rows, (int) row, m0);
            for (int i = 0; i < rows; i++) {
                xb[i * kp + kk] = col[i];
            }
        }
    }

    /** Output panels p0..p1 of the block's rows: tiles, the epilogue per tile row, the store. */
    private void panels(Run run, long bi, int m0, int rows, int p0, int p1, float[] xb, float[] t) {
        int nr = Panels.NR;
        int kp = run.kp();
        int k = run.k();
        long[] od = run.od();
        int r = od.length;
        long[] os = run.res().logicalTensor().strides();
        long colStride = os[r - 1];
        MemorySegment outSeg = run.res().data();
        int bBase = (int) (batchIndex(bi, od, run.bd()) * run.bLength());
        RowOperands.Bound pb = run.postB();
        float[][] src = post == null ? null : new float[Math.max(1, postSlots)][];
        int[] off = post == null ? null : new int[src.length];
        if (src != null) {
            for (int s = 1; s < src.length; s++) {
                src[s] = t;
                off[s] = Panels.MR * nr + (s - 1) * nr;
            }
            src[0] = t;
        }
        for (int p = p0; p < p1; p++) {
            int c0 = p * nr;
            int w = Math.min(nr, run.n() - c0);
            int panel = bBase + p * k * nr;
            for (int rg = 0; rg < rows; rg += Panels.MR) {
                if (rows - rg == 1) {
                    Panels.tile1(xb, rg * kp, 1, k, run.packed(), panel, t, 0);
                } else {
                    Panels.tile(xb, rg * kp, kp, k, run.packed(), panel, t, 0);
                }
                for (int i = 0; i < Panels.MR && rg + i < rows; i++) {
                    long row = bi * run.m() + m0 + rg + i;
                    if (post != null) {
                        off[0] = i * nr;
                        for (int q = 0; q < postOps.rowCount(); q++) {
                            int s = pb.slot(q);
                            pb.stage(q, row, c0, t, off[s], w);
                            Arrays.fill(t, off[s] + w, off[s] + nr, 0f);
                        }
                        post.apply(src, off, pb.scalarValues, nr, (int) row, c0);
                    }
                    long base = Strides.offset(row, od, os, r - 1) + c0 * colStride;
                    RowOperands.write(t, i * nr, outSeg, base, colStride, w);
                }
            }
        }
    }

    /** Drops the packed B this program put into the constant cache. */
    @Override
    public void close() {
        for (CacheKey key : added) {
            cache.removeIfExist(key);
        }
        added.clear();
    }
}
